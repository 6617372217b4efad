"""Render a cited answer: safe HTML, safe Markdown, terminal text, and the trust notes they all show.

Modules: ``labels`` (every label in English, Spanish and Chinese), ``notes`` (the one wording of trust
notes), ``blocks`` (walking ``answer.content``), ``html`` with ``html_builders`` (markers, references and
panel), ``markdown``, ``terminal``, ``location`` (where a reference's text is, and links to it), ``urls``,
``ai_sdk`` (the Vercel AI SDK's UI message stream) with ``ai_sdk_responses`` (a streaming response
object read as its events); the page's CSS and JS are the package data files
``cite.css``, ``cite.js`` and ``page.css``.
"""

from __future__ import annotations

from .ai_sdk import AI_SDK_HEADERS, ato_ai_sdk_stream, to_ai_sdk_stream
from .html import PAGE_STYLE, SCRIPT, STYLE, content_security_policy, render_html
from .location import reference_entries
from .markdown import render_markdown
from .notes import Note, answer_notes
from .terminal import render_terminal, strip_controls
from .urls import safe_url

__all__ = [
    "AI_SDK_HEADERS",
    "PAGE_STYLE",
    "SCRIPT",
    "STYLE",
    "Note",
    "answer_notes",
    "ato_ai_sdk_stream",
    "content_security_policy",
    "reference_entries",
    "render_html",
    "render_markdown",
    "render_terminal",
    "safe_url",
    "strip_controls",
    "to_ai_sdk_stream",
]
