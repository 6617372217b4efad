"""Offsets into a provider's answer text, converted from the unit the provider counts in.

Python strings index code points. Providers count in other units: Gemini's grounding segments in UTF-8
bytes of the part text, JavaScript-built services in UTF-16 code units, most others in code points. The
units agree on ASCII text and disagree after the first character outside it, so a wrong guess cites
the wrong words exactly where users write in their own language. ``Offsets`` converts an offset of a
given unit to code points, and refuses one that falls outside the text or inside a character (a byte
inside a multi-byte sequence, a unit between two surrogates): such a span is reported, never cut.

``resolve_span`` picks the unit: where the provider also gives the text the span delimits (Gemini's
``segment.text``, Cohere's ``text``), the unit that reproduces it wins; otherwise the provider's
documented unit (docs/providers.md says which for each). ``span_showing`` picks it for a span that
covers a link (OpenAI's ``url_citation``: the ``([site](url))`` written after the claim): the unit whose
span shows the link's URL, host or title.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["Offsets", "Unit", "link_shown", "resolve_span", "span_showing"]

Unit = Literal["codepoint", "utf16", "utf8"]


class Offsets:
    """Code-point offsets of ``text`` from UTF-8 byte or UTF-16 unit offsets (tables built on first use)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: dict[str, list[int]] = {}

    def _table(self, unit: Unit) -> list[int]:
        """The offset, in ``unit``, where each character starts, then the text's length in ``unit``."""
        table = self._starts.get(unit)
        if table is None:
            table, at = [], 0
            for char in self.text:
                table.append(at)
                code = ord(char)
                if unit == "utf16":
                    at += 2 if code > 0xFFFF else 1
                else:
                    at += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
            table.append(at)
            self._starts[unit] = table
        return table

    def to_chars(self, offset: int, unit: Unit) -> int | None:
        """``offset`` in code points, or None when it is outside the text or inside a character."""
        if offset < 0:
            return None
        if unit == "codepoint" or self.text.isascii():
            return offset if offset <= len(self.text) else None
        table = self._table(unit)
        index = bisect_left(table, offset)
        return index if index < len(table) and table[index] == offset else None

    def span(self, start: int, end: int, unit: Unit) -> tuple[int, int] | None:
        """``(start, end)`` in code points, or None when either end is not a character boundary of the
        text or the span is reversed."""
        lo, hi = self.to_chars(start, unit), self.to_chars(end, unit)
        if lo is None or hi is None or lo > hi:
            return None
        return lo, hi


def resolve_span(
    offsets: Offsets,
    start: int,
    end: int,
    expected: str | None,
    units: tuple[Unit, ...],
    *,
    search: bool = True,
) -> tuple[int, int] | None:
    """The code-point span of ``start:end``: in the first of ``units`` whose span reads ``expected``
    (the text the provider says the span holds; compared stripped too), else where the text holds
    ``expected`` exactly once (only with ``search``: when ``expected`` is surely the answer's text),
    else in ``units[0]`` (the provider's documented unit); None when that is no span of the text."""
    text = offsets.text
    if expected:
        for unit in units:
            span = offsets.span(start, end, unit)
            if span is not None and text[span[0] : span[1]] == expected:
                return span
        wanted = expected.strip()
        for unit in units:
            span = offsets.span(start, end, unit)
            if span is not None and wanted and text[span[0] : span[1]].strip() == wanted:
                return span
        if (
            search and wanted and text.count(wanted) == 1
        ):  # no unit reproduces it: where the text holds it, once
            found = text.find(wanted)
            return found, found + len(wanted)
    return offsets.span(start, end, units[0])


def link_shown(url: str | None, title: str | None) -> Callable[[str], bool]:
    """Whether a span's text is the written link of ``url``: it holds the URL (whole, without its
    query, or its host; the ``title`` only for a citation without a URL) and starts and ends where a
    link does (``([site](url))``, ``[site](url)``, the bare URL). A span read in the wrong unit is
    shifted by a character or more, so it cuts the link or takes the text beside it. A short title
    alone is no evidence (a title ``X`` is in most texts)."""
    needles: set[str] = set()
    if url:
        host = urlsplit(url).hostname or ""
        needles = {n for n in (url, url.split("?")[0].split("#")[0], host, host.removeprefix("www.")) if n}
    elif title and len(title.strip()) >= 4:
        needles = {title.strip()}

    def shows(text: str) -> bool:
        whole = text.strip()
        ends = (whole[:1] in ("(", "[") and whole[-1:] in (")", "]")) or (bool(url) and whole == url)
        return ends and any(n.casefold() in whole.casefold() for n in needles)

    return shows


def span_showing(
    offsets: Offsets, start: int, end: int, shows: Callable[[str], bool], units: tuple[Unit, ...]
) -> tuple[int, int] | None:
    """The code-point span of ``start:end`` in the first of ``units`` whose span's text ``shows`` what
    it should cover (``link_shown``), else in ``units[0]``; None when that is no span of the text."""
    for unit in units:
        span = offsets.span(start, end, unit)
        if span is not None and shows(offsets.text[span[0] : span[1]]):
            return span
    return offsets.span(start, end, units[0])
