"""The units of one source as scoring reads them: ``CountsIndex``, the Python reference of the scorer's
index (``_locate/scorer.py``), built once per source analysis from the same term analysis as its units
(``analysis.unit_counts``) and kept with it: for a one-chunk source with the chunk's analysis (shared by
every source of that text through the chunk cache), else with the source's analysis.

It holds each unit's term counts and lengths, their BM25 postings once built (``POSTINGS_AFTER``), what a
cited span may take in (segments, line breaks between neighbours, fragment flags), and the compiled
index of the same units when the extension scores them (``native``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._schema.source import ChunkAnalysis, Source, Unit, analysis_of
from .analysis import chunk_fragments, chunk_of, fragment_flags, source_units, unit_counts, unit_lengths

__all__ = ["POSTINGS_AFTER", "CountsIndex", "build_postings", "index_of"]

POSTINGS_AFTER = 8
"""BM25 postings of a unit list are built on its eighth use; earlier uses score the units' term counts
directly: building costs several direct passes, so chunks cited a few times by one answer are never
indexed, and chunks retrieved again and again are after their first queries (the measured costs are in
docs/benchmarks.md, "Postings")."""

Postings = dict[str, list[tuple[int, int]]]


def build_postings(counts: Sequence[Mapping[str, int]]) -> Postings:
    """Term -> [(unit index, count)] over the units' term counts, in unit order."""
    postings: Postings = {}
    for index, unit in enumerate(counts):
        for term, count in unit.items():
            entry = postings.get(term)
            if entry is None:
                postings[term] = [(index, count)]
            else:
                entry.append((index, count))
    return postings


class CountsIndex:
    """One source's units for scoring (offsets and segments as in ``source_units``)."""

    __slots__ = (
        "_counts",
        "_fragments",
        "_postings",
        "_uses",
        "chunks",
        "lengths",
        "native",
        "text",
        "units",
    )

    def __init__(
        self,
        text: str,
        units: Sequence[Unit],
        counts: list[dict[str, int]] | None,
        lengths: list[int],
        fragments: list[bool] | None,
        chunks: Sequence[ChunkAnalysis] = (),
    ) -> None:
        self.text = text
        self.units = units
        self._counts = counts
        self.lengths = lengths
        """Number of terms of each unit."""
        self._fragments = fragments
        self.chunks = tuple(chunks)
        """The analysis of each segment's chunk (of every unit, in order), when the source has them:
        the counts come from them on first read, and the compiled index from their compiled analyses."""
        self.native: object = None
        """The compiled index of these units (``_native.UnitIndex``) once the extension scored them,
        False when it cannot (a term without a UTF-8 form)."""
        self._postings: Postings | None = None
        self._uses = 0

    @property
    def counts(self) -> list[dict[str, int]]:
        """Term -> count of each unit (its keys are the unit's distinct terms); of chunks the extension
        analysed, built on first read (the reference scorer's: the compiled one reads its own index)."""
        counts = self._counts
        if counts is None:  # two threads may both build them: the same value
            chunks = self.chunks
            counts = chunks[0].counts if len(chunks) == 1 else [c for e in chunks for c in e.counts]
            self._counts = counts
        return counts

    @property
    def fragments(self) -> list[bool]:
        """Whether each unit is a fragment rather than a sentence (``analysis.fragment_flags``); of one
        chunk the extension analysed, asked of it on first read and kept with the chunk's analysis (the
        compiled index reads its own flags: a source cited through it never asks)."""
        flags = self._fragments
        if flags is None:  # two threads may both build them: the same value
            flags = self._fragments = chunk_fragments(self.chunks[0], self.text, self.units)
        return flags

    def __getstate__(self) -> dict[str, object]:
        # a pickled source (a pickled answer holds its sources) leaves the compiled index out: it is
        # built again on the next citation; the fragment flags are read first (the Rust analysis they
        # come from does not pickle)
        state = {name: getattr(self, name) for name in self.__slots__}
        state["native"] = None
        state["_fragments"] = self.fragments
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def postings(self, now: bool = False) -> Postings | None:
        """Term -> [(unit index, count)] (for ``bm25``); None on the first ``POSTINGS_AFTER`` - 1 uses
        (score the counts directly) unless ``now`` (a source located through its candidates)."""
        postings = self._postings
        if postings is None:  # two threads may both build it: the same value
            self._uses += 1
            if now or self._uses >= POSTINGS_AFTER:
                postings = self._postings = build_postings(self.counts)
        return postings

    def line_between(self, a: int, b: int) -> bool:
        """Whether unit ``b`` starts on a later line than unit ``a`` ends (a span never takes in
        another line)."""
        return self.text.find("\n", self.units[a].end, self.units[b].start) >= 0

    def breaks(self) -> list[bool]:
        """``line_between`` of each unit and the next."""
        text, units = self.text, self.units
        return [text.find("\n", a.end, b.start) >= 0 for a, b in zip(units, units[1:])]


def index_of(source: Source) -> CountsIndex:
    """The scoring index of ``source``'s units, built on first use and kept with its analysis."""
    analysis = analysis_of(source)
    index = analysis.index
    if not isinstance(index, CountsIndex):  # None until built
        entry = chunk_of(source)
        if entry is not None and isinstance(entry.index, CountsIndex):
            index = entry.index
        else:
            units = source_units(source)
            chunks = analysis.chunks or ()
            counts = None if chunks else unit_counts(source)[0]  # else built from the chunks when read
            # of one chunk the extension analysed, the flags are asked of it when read (``fragments``)
            lazy = entry is not None and len(chunks) == 1 and chunks[0] is entry and entry.native is not None
            fragments = None if lazy else fragment_flags(source, units)
            index = CountsIndex(source.text, units, counts, unit_lengths(source), fragments, chunks)
            if entry is not None:  # one chunk: kept with its analysis (two threads: the same value)
                entry.index = index
        analysis.index = index
    return index
