"""Offsets into a provider's answer text, converted from the unit the provider counts in.

Python strings index code points. Providers count in other units: Gemini's grounding segments in UTF-8
bytes of the part text, JavaScript-built services in UTF-16 code units, most others in code points. The
units agree on ASCII text and disagree after the first character outside it, so a wrong guess cites
the wrong words exactly where users write in their own language. ``Offsets`` converts an offset of a
given unit to code points, and refuses one that falls outside the text or inside a character (a byte
inside a multi-byte sequence, a unit between two surrogates): such a span is reported, never cut.

``resolve_span`` picks the unit: where the provider also gives the text the span delimits (Gemini's
``segment.text``, Cohere's ``text``), the unit that reproduces it wins; otherwise the provider's
documented unit (docs/providers.md says which for each).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Literal

__all__ = ["Offsets", "Unit", "resolve_span"]

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
