"""Which URLs may become links, and links that open a source at the cited passage.

Web links are absolute http(s) URLs from source metadata, never from the model (:func:`safe_url`); a
cited sentence is appended as a text fragment (:func:`with_text_fragment`). File links are built here
from a local path (:func:`file_url`), never taken from metadata as URLs: ``file:///`` with no host.
"""

from __future__ import annotations

import ntpath
import os
import re
from pathlib import Path, PureWindowsPath
from urllib.parse import quote, urlsplit

__all__ = ["file_url", "md_url", "page_fragment", "safe_url", "text_directive", "with_text_fragment"]

EXACT_WORDS = 10
"""A cited sentence of at most this many words is the whole ``textStart`` of its text fragment; a
longer one is a ``textStart,textEnd`` range of its first and last ``RANGE_WORDS`` words."""
RANGE_WORDS = 5
MAX_EXACT_CHARS = 300
"""Text without spaces (Chinese) longer than this gets no fragment: a range must start and end at word
boundaries, which only the browser's word breaker knows."""

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_MD_LINK = re.compile(r"!?\[([^\[\]\n]{0,300})\]\([^()\s]{0,2000}\)")
_LINE_MARKUP = re.compile(r"^[ \t]*(?:(?:[-*+>]|#{1,6}|\d{1,9}[.)])[ \t]+)*", re.MULTILINE)


def _shown_words(text: str) -> list[str]:
    """The words of ``text`` as a browser shows them when ``text`` is Markdown (web loaders often give
    Markdown): a link's text without its URL, no ``*`` or backquote marks, no ``_`` at a word's edge,
    no bullet, list number, heading or quote mark at a line's start. A text fragment must match the
    rendered text."""
    text = _LINE_MARKUP.sub("", _MD_LINK.sub(r"\1", text))
    words = (w.strip("_") for w in text.replace("*", "").replace("`", "").split())
    return [w for w in words if w]


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL without spaces or control characters, else ``None``."""
    if not url or not isinstance(url, str) or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def md_url(url: str) -> str:
    """A URL safe inside Markdown ``(...)``: characters that could end or break the link are %-encoded."""
    return quote(url, safe="/:?#@!$&'*+,;=%-._~")


def _encode(text: str) -> str:
    """A text directive value: everything but unreserved characters %-encoded, and ``-`` too (the WICG
    Text Fragments syntax reserves ``-``, ``&`` and ``,``)."""
    return quote(text, safe="").replace("-", "%2D")


def text_directive(text: str) -> str | None:
    """``text=...`` finding ``text`` in a web page (WICG Text Fragments), or None for empty text.

    Whitespace runs become one space and Markdown marks are left out (browsers match rendered text:
    :func:`_shown_words`). A sentence of more than ``EXACT_WORDS`` words becomes ``text=start,end`` (its
    first and last ``RANGE_WORDS`` words), which the spec allows for long passages and which keeps the
    URL short."""
    words = _shown_words(text)
    if not words:
        return None
    if len(words) <= EXACT_WORDS:
        whole = " ".join(words)
        return f"text={_encode(whole)}" if len(whole) <= MAX_EXACT_CHARS or len(words) > 1 else None
    start, end = " ".join(words[:RANGE_WORDS]), " ".join(words[-RANGE_WORDS:])
    return f"text={_encode(start)},{_encode(end)}"


def with_text_fragment(url: str, text: str) -> str:
    """``url`` with a text fragment for ``text``: ``#:~:text=...``; after an existing fragment
    (``#intro:~:text=...``, the spec's fragment directive delimiter), or joined with ``&`` to an
    existing directive. ``url`` unchanged when ``text`` gives no directive."""
    directive = text_directive(text)
    if directive is None:
        return url
    _, hash_, fragment = url.partition("#")
    if not hash_:
        return f"{url}#:~:{directive}"
    return f"{url}&{directive}" if ":~:" in fragment else f"{url}:~:{directive}"


def page_fragment(url: str, page: int) -> str:
    """``url#page=N`` (PDF viewers open the page), unless ``url`` already has a fragment."""
    return url if "#" in url else f"{url}#page={page}"


def file_url(path: str) -> str | None:
    """A ``file:///`` URL of a local path (relative paths resolved against the current directory), or
    None for what is not a local path: empty, control characters, a URL or other ``scheme:``, a UNC or
    ``//host`` path (opening it would make the system connect to that host, on Windows with the user's
    credentials). Built by ``pathlib``, which %-encodes everything but ``/`` (spaces, ``#``, ``?``)."""
    if not isinstance(path, str) or not path.strip() or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    if path.startswith(("//", "\\\\")) or ntpath.splitdrive(path)[0].startswith(("\\\\", "//")):
        return None
    if _DRIVE.match(path):
        return PureWindowsPath(path).as_uri()
    if _SCHEME.match(path):
        return None
    absolute = Path(os.path.normpath(Path.cwd() / path))
    return absolute.as_uri() if absolute.is_absolute() else None
