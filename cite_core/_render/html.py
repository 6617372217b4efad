"""Safe, self-contained HTML of a cited answer.

Safety rules (see ``docs/rendering.md``):

- every string that came from a source, its metadata or the model is HTML-escaped (``html.escape``
  with quotes) before it reaches the output; the only markup is ours;
- links come only from a source's metadata, never from the answer text: its ``url`` when
  :func:`safe_url` accepts it (absolute ``http``/``https``, plus a text fragment of the cited sentence),
  and with ``file_links`` a ``file:///`` URL built from its local path (``location.passage_link``);
  anything else is shown as text;
- the only ``<style>`` and ``<script>`` are ``STYLE`` and ``SCRIPT`` (the package data files
  ``cite.css`` and ``cite.js``); the full page carries a Content-Security-Policy that allows exactly those
  (by hash) and nothing else;
- titles and other metadata are shown cut to ``MAX_LABEL_CHARS`` characters (the whole title stays in
  ``data-title``), so a huge unbreakable value cannot stall layout.

The HTML works without script: markers are ``#`` links to the cited passage in the reference list
(highlighted with ``:target``), tooltips are CSS (``:hover``/``:focus-within``). The script adds the side
panel that shows the whole source with the cited span highlighted, Escape handling and focus return.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Sequence
from importlib.resources import files
from typing import TYPE_CHECKING

from .._args import check_flag, check_text, check_texts, shown
from .._exceptions import CiteError
from .html_builders import CitationIds, esc, markers_html, panel_html, references_html
from .labels import detect_lang, labels_for, one_line, short
from .notes import Note, answer_notes, check_render_args

if TYPE_CHECKING:
    from .._schema.models import CitedAnswer

__all__ = ["PAGE_STYLE", "SCRIPT", "STYLE", "content_security_policy", "render_html"]


def _data(name: str) -> str:
    return files(__package__).joinpath(name).read_text(encoding="utf-8").strip()


STYLE = _data("cite.css")
"""The fragment's stylesheet (``cite.css``): light and dark themes, tooltips, reference list, panel."""
SCRIPT = _data("cite.js")
"""The fragment's script (``cite.js``): tooltip placement, the source panel, Escape and focus return."""
PAGE_STYLE = _data("page.css")
"""The extra style of the full page (around the fragment)."""

_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,40}")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(*, script: bool = True, extra_styles: Iterable[str] = ()) -> str:
    """The CSP that allows exactly this module's inline style and script (by hash) and nothing else.

    Send it (or merge it into yours) when you embed ``render_html`` fragments in your own pages;
    ``extra_styles`` are the texts of other inline ``<style>`` elements to allow.
    """
    check_flag(script, "script")
    styles = " ".join(_hash(text) for text in (STYLE, *check_texts(extra_styles, "extra_styles")))
    parts = [
        "default-src 'none'",
        f"style-src {styles}",
        f"script-src {_hash(SCRIPT)}" if script else "script-src 'none'",
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    return "; ".join(parts)


def _prefix(answer: CitedAnswer, id_prefix: str | None) -> str:
    if id_prefix is not None:
        if not _PREFIX.fullmatch(id_prefix):
            raise RenderError(f"id_prefix must match {_PREFIX.pattern}, got {shown(id_prefix)}")
        return id_prefix
    digest = hashlib.sha1(answer.model_dump_json().encode("utf-8")).hexdigest()[:8]
    return f"cite-{digest}"


class RenderError(CiteError, ValueError):
    """A rendering option was wrong (an ``id_prefix`` that is not a short identifier)."""


def notes_html(notes: Sequence[Note]) -> str:
    """One ``<p class="cite-note cite-note-KIND">`` per note."""
    return "".join(f'<p class="cite-note cite-note-{n.kind}">{esc(n.text)}</p>' for n in notes)


def render_html(
    answer: CitedAnswer,
    *,
    full_page: bool = False,
    title: str = "Answer",
    lang: str | None = None,
    id_prefix: str | None = None,
    script: bool = True,
    style: bool = True,
    references_open: bool = True,
    notes: Sequence[Note] | None = None,
    file_links: bool = False,
) -> str:
    """Safe HTML of the answer with citation markers, tooltips, notes, a reference list and a source panel.

    Every string is escaped; links go only to http(s) URLs from source metadata, never from the model.
    ``full_page`` returns a self-contained document with a Content-Security-Policy allowing only the
    inline style and script of this module; otherwise a fragment (``<div class="cite-answer">``) that
    carries its own ``<style>`` and ``<script>`` (``style``/``script`` to leave them out) and works
    without script. ``lang`` is ``"en"``, ``"es"`` or ``"zh"`` for the labels and notes (guessed from the
    text by default); ``notes`` replaces ``answer_notes(answer, lang)``; ``id_prefix`` makes element ids
    unique when several answers share a page. Each reference links to its source at the cited passage
    (a web URL with a text fragment, a PDF URL at its page); ``file_links`` also links local files
    (``file:///``, a PDF at ``#page=N``): pass it only when the sources' paths are your own files.
    """
    notes = check_render_args(answer, lang, notes)
    check_text(title, "title")
    check_text(id_prefix, "id_prefix", optional=True)
    for name, value in (("full_page", full_page), ("script", script), ("style", style)):
        check_flag(value, name)
    check_flag(references_open, "references_open")
    check_flag(file_links, "file_links")
    lang = lang or detect_lang(answer.plain_text or answer.text)
    labels = labels_for(lang)
    p = _prefix(answer, id_prefix)
    ids = CitationIds(answer)
    notes = answer_notes(answer, lang) if notes is None else notes
    parts = [
        f'<div class="cite-answer" id="{p}" lang="{esc(lang)}">',
        f"<style>{STYLE}</style>" if style else "",
        f'<div class="cite-text">{markers_html(answer, ids, labels, p)}</div>',
        notes_html(notes),
    ]
    if answer.references:
        parts.append(references_html(answer, ids, labels, p, open_=references_open, file_links=file_links))
        if script:
            parts += [panel_html(answer, ids, labels, p, file_links=file_links), f"<script>{SCRIPT}</script>"]
    parts.append("</div>")
    fragment = "".join(parts)
    if not full_page:
        return fragment
    csp = content_security_policy(script=script, extra_styles=(PAGE_STYLE,))
    heading = esc(short(title))
    return (
        f'<!DOCTYPE html><html lang="{esc(lang)}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">'
        f"<title>{esc(one_line(title))}</title><style>{PAGE_STYLE}</style></head>"
        f'<body><main class="cite-page"><h1 class="cite-page-title">{heading}</h1>'
        f"{fragment}</main></body></html>"
    )
