"""The statement format of long-context citation models (LongCite, CoF) and its global sentence numbers.

Models trained for citation write ``<statement>S<cite>[a-b][c-d]</cite></statement>``. With the
``statements`` prompt style every citable unit of the shown sources (``source_units``: a sentence or
line, a whole block) is numbered ``<C0>``, ``<C1>``, ... across all sources, in source order, 0-based as
in LongCite, and ``[a-b]`` inside ``<cite>`` names the units a..b (inclusive). ``SentenceMap`` turns such
a range back into (source, unit range) pieces, one per source segment: a cited span never crosses a
source, chunk, page or block. The prompt and the parser both number through ``first_sentences``, so the
number the model saw is the number the parser reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ._localize import source_units
from ._models import Source

__all__ = ["SentenceMap", "SentenceRange", "first_sentences", "sentence_ranges"]

_RANGE = re.compile(r"([0-9０-９]{1,6})(?:\s*[-–—~]\s*([0-9０-９]{1,6}))?")


def first_sentences(sources: Sequence[Source]) -> list[int]:
    """The global number of each source's first unit (one more entry: the total number of units)."""
    firsts, total = [], 0
    for source in sources:
        firsts.append(total)
        total += len(source_units(source))
    firsts.append(total)
    return firsts


def sentence_ranges(raw: str) -> list[tuple[int, int, str]]:
    """The ``(first, last, raw part)`` ranges of a marker such as ``[4-5]``, ``[7]`` or ``[1, 3-4]``."""
    parts = list(_RANGE.finditer(raw))
    out = []
    for m in parts:
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        out.append((min(lo, hi), max(lo, hi), f"[{m.group(0)}]" if len(parts) > 1 else raw))
    return out


@dataclass(frozen=True)
class SentenceRange:
    """Units ``first..last`` (0-based, inclusive, one segment) of ``source``."""

    source: Source
    first: int
    last: int


class SentenceMap:
    """Global sentence numbers of the ``statements`` style back to sources (built on first use)."""

    def __init__(self, sources: Sequence[Source]) -> None:
        """``sources``: the sources shown to the model, in the order they were shown."""
        self._sources = list(sources)
        self._firsts: list[int] | None = None

    @property
    def total(self) -> int:
        """How many units are numbered."""
        return self._starts()[-1]

    def _starts(self) -> list[int]:
        if self._firsts is None:
            self._firsts = first_sentences(self._sources)
        return self._firsts

    def resolve(self, lo: int, hi: int) -> list[SentenceRange] | None:
        """Units ``lo..hi`` (global, inclusive) as one piece per source segment; None when out of range."""
        starts = self._starts()
        if lo < 0 or hi >= starts[-1] or hi < lo:
            return None
        pieces: list[SentenceRange] = []
        for index, source in enumerate(self._sources):
            first, end = starts[index], starts[index + 1]
            if end <= lo or first > hi:
                continue
            units = source_units(source)
            a, b = max(lo, first) - first, min(hi, end - 1) - first
            start = a
            for i in range(a + 1, b + 1):
                if units[i].segment != units[start].segment:
                    pieces.append(SentenceRange(source, start, i - 1))
                    start = i
            pieces.append(SentenceRange(source, start, b))
        return pieces
