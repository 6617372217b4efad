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
from typing import TYPE_CHECKING, Any

from ._citations import display_number
from ._localize import source_units
from ._match_types import Item, Marker, Tag
from ._models import Source

__all__ = ["SentenceMap", "SentenceRange", "StatementTags", "first_sentences", "sentence_ranges"]

_CLOSE = re.compile(r"[\]】］〕)]")
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


class StatementTags:
    """The statement-format tags for ``Assembler`` (a mixin: it uses the assembler's state).

    ``<statement>`` opens a claim as ``<CIT>`` does, with no items; ``<cite>`` starts a marker group
    citing that claim (without an open statement: the claim before it), whose text is dropped up to
    ``</cite>`` or the end of the line; ``</statement>`` closes the claim.
    """

    _sentence_map: SentenceMap | None
    _in_cite: Any
    _tag: tuple[int, tuple[Item, ...]] | None
    _tag_text: list[str]
    _plain_len: int
    _forward: list[Any]
    _group: Any
    _groups: list[Any]
    _invalid: list[str]
    _by_number: dict[int, Source]
    _display_no: dict[int, int]

    if TYPE_CHECKING:  # the assembler's methods this mixin calls

        def text(self, text: str) -> None: ...
        def _new_group(self) -> Any: ...
        def _resolve_forward(self, end: int) -> tuple[int, int, str]: ...
        def _close_tag(self) -> None: ...
        def _tag_claim(self, start: int) -> tuple[int, int, str]: ...
        def _backward_claim(self, group: Any) -> None: ...
        def _move_boundary(self, offset: int) -> None: ...
        def _cite(self, group: Any, source: Source, item: Item) -> None: ...
        def _show_only(self, text: str) -> None: ...
        def _cited_source(self, item: Item) -> Source | None: ...

    def _statement_tag(self, tag: Tag) -> None:
        """``<statement>`` opens a claim as ``<CIT>`` does (with no items); ``</statement>`` closes it;
        ``<cite>`` makes the markers up to ``</cite>`` cite it; a stray ``</cite>`` is text."""
        if tag.name == "cite" and tag.closing:
            if self._in_cite is None:
                self.text(tag.raw)
                return
            self._in_cite = None
            if self._tag is not None and not self._tag[1]:  # a second <cite> in the statement: new claim
                self._tag, self._tag_text = (self._plain_len, ()), []
            return
        self._in_cite = None
        self._group = None
        if self._forward:
            self._resolve_forward(self._plain_len)
        if tag.name == "cite":
            self._in_cite = self._statement_group()
            return
        self._close_tag()
        if not tag.closing:
            self._tag = (self._plain_len, ())
            self._tag_text = []

    def _statement_group(self) -> Any:
        """The group that the markers of a ``<cite>`` add to: the open statement, else the claim before."""
        group = self._new_group()
        self._groups.append(group)
        if self._tag is None:
            self._backward_claim(group)
        else:
            group.start, group.end, group.claim = self._tag_claim(self._tag[0])
            group.resolved = True
        if not group.forward:
            self._move_boundary(self._plain_len)
        return group

    def _cite_marker(self, group: Any, marker: Marker) -> None:
        """A marker inside ``<cite>``: source numbers, or (``statements`` style) global sentence ranges
        split into one citation per source segment; numbers outside the sources are invalid."""
        if self._sentence_map is None or any(item.sentences for item in marker.items):
            self._invalid.extend(marker.invalid)
            for item in marker.items:
                self._cite_item(group, item)
            return
        for lo, hi, raw in sentence_ranges(marker.raw):
            pieces = self._sentence_map.resolve(lo, hi)
            if pieces is None:
                self._invalid.append(raw)
                continue
            for piece in pieces:
                self._cite_item(group, Item(piece.source.number, raw, (piece.first + 1, piece.last + 1)))

    def _cite_item(self, group: Any, item: Item) -> None:
        source = self._cited_source(item)
        if source is None:
            return
        if any(s.number == source.number and i.sentences == item.sentences for s, i in group.items):
            return
        if not any(s.number == source.number for s, _ in group.items):
            self._show_only(f"[{display_number(self._display_no, source.number)}]")
        group.items.append((source, item))
        self._cite(group, source, item)
