"""The statement format of long-context citation models (LongCite, CoF) and its global sentence numbers.

Models trained for citation write ``<statement>S<cite>[a-b][c-d]</cite></statement>``. With the
``statements`` prompt style every citable unit of the shown sources (``source_units``: a sentence or
line, a whole block) is numbered ``<C0>``, ``<C1>``, ... across all sources, in source order, 0-based as
in LongCite, and ``[a-b]`` inside ``<cite>`` names the units a..b (inclusive). ``SentenceMap`` turns such
a range back into (source, unit range) pieces, one per source segment: a cited span never crosses a
source, chunk, page or block. The prompt and the parser both number through ``first_sentences``
(``_analysis``), so the number the model saw is the number the parser reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._brackets import KEYWORD_CLOSERS, MARKER_CLOSERS
from .._schema.citations import display_number
from .._schema.models import Source
from .._sources.analysis import first_sentences, source_units
from .assembly import Group, cited_source, tag_claim
from .match_types import Item, Marker, Tag

if TYPE_CHECKING:
    from .assembler import Assembler

__all__ = ["SentenceMap", "SentenceRange", "Statements", "per_segment", "sentence_ranges"]

_CLOSE = re.compile(f"[{re.escape(MARKER_CLOSERS + KEYWORD_CLOSERS)}]")
_RANGE = re.compile(r"([0-9０-９]{1,6})(?:\s*[-–—~]\s*([0-9０-９]{1,6}))?")


def sentence_ranges(raw: str) -> list[tuple[int, int, str]]:
    """The ``(first, last, raw part)`` ranges of a marker such as ``[4-5]``, ``[7]`` or ``[1, 3-4]``
    (a link target after the brackets, ``[4](https://...)``, is not read)."""
    close = _CLOSE.search(raw)
    parts = list(_RANGE.finditer(raw, 0, close.end() if close else len(raw)))
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


class Statements:
    """The statement-format tags, for the ``Assembler`` that owns this object (``assembler.statements``).

    ``<statement>`` opens a claim as ``<CIT>`` does, with no items; ``<cite>`` starts a marker group
    citing that claim (without an open statement: the claim before it), whose text is dropped up to
    ``</cite>`` or the end of the line; ``</statement>`` closes the claim. The claims, groups and
    citations are the assembler's: this object keeps only what is open (``cite_group``) and the
    sentence numbering, and asks the assembler for the rest. The assembler is passed to each call, not
    kept: a reference back to it would make every parse a reference cycle, whose sources, units and
    citations then wait for the cyclic garbage collector (measured: whole parses about 20% slower).
    """

    def __init__(self, sentence_map: SentenceMap | None) -> None:
        """``sentence_map``: with the ``statements`` style, the global sentence numbers (else None)."""
        self._sentence_map = sentence_map
        self.cite_group: Group | None = None
        """Inside ``<cite>...</cite>``: the group its markers cite (its text is not answer text)."""

    def tag(self, out: Assembler, tag: Tag) -> None:
        """``<statement>`` opens a claim as ``<CIT>`` does (with no items); ``</statement>`` closes it;
        ``<cite>`` makes the markers up to ``</cite>`` cite it; a stray ``</cite>`` is text."""
        if tag.name == "cite" and tag.closing:
            if self.cite_group is None:
                out.text(tag.raw)
                return
            self.cite_group = None
            if out._tag is not None and not out._tag[1]:  # a second <cite> in the statement: new claim
                out._tag, out._tag_text = (out._plain_len, ()), []
            return
        self.cite_group = None
        out._group = None
        if out._forward:
            out._resolve_forward(out._plain_len)
        if tag.name == "cite":
            self.cite_group = self._group(out)
            return
        out._close_tag()
        if not tag.closing:
            out._tag = (out._plain_len, ())
            out._tag_text = []

    def _group(self, out: Assembler) -> Group:
        """The group that the markers of a ``<cite>`` add to: the open statement, else the claim before."""
        group = Group()
        out._groups.append(group)
        if out._tag is None:
            out._backward_claim(group)
        else:
            group.start, group.end, group.claim = tag_claim(out._tag[0], out._tag_text)
            group.resolved = True
        if not group.forward:
            out._move_boundary(out._plain_len)
        return group

    def marker(self, out: Assembler, marker: Marker) -> None:
        """A marker inside ``<cite>``: source numbers, or (``statements`` style) global sentence ranges
        split into one citation per source segment; numbers outside the sources are invalid."""
        group = self.cite_group
        assert group is not None  # the assembler hands markers here only inside <cite>
        if self._sentence_map is None or any(item.sentences for item in marker.items):
            out.invalid.extend(marker.invalid)
            for item in marker.items:
                self._cite_item(out, group, item)
            return
        for lo, hi, raw in sentence_ranges(marker.raw):
            pieces = self._sentence_map.resolve(lo, hi)
            if pieces is None:
                out.invalid.append(raw)
                continue
            for piece in pieces:
                self._cite_item(out, group, Item(piece.source.number, raw, (piece.first + 1, piece.last + 1)))

    def _cite_item(self, out: Assembler, group: Group, item: Item) -> None:
        source = cited_source(out.corpus.by_number, item, out.invalid)  # None: no such source or sentences
        if source is None:
            return
        if any(s.number == source.number and i.sentences == item.sentences for s, i in group.items):
            return
        if not any(s.number == source.number for s, _ in group.items):
            out._show_marker(group, display_number(out._display_no, source.number))
        group.items.append((source, item))
        out._cite(group, source, item)


def per_segment(source: Source, sentences: tuple[int, int] | None) -> list[tuple[int, int] | None]:
    """The 1-based sentence range ``sentences`` cut where the source's segments change (one range when
    it stays in one; ``[None]``, the best match, without a range)."""
    if sentences is None:
        return [None]
    lo, hi = sentences
    units = source_units(source)
    parts: list[tuple[int, int] | None] = []
    start = lo
    for n in range(lo + 1, hi + 1):
        if units[n - 1].segment != units[n - 2].segment:
            parts.append((start, n - 1))
            start = n
    parts.append((start, hi))
    return parts
