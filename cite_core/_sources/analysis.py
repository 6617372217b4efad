"""A source's analysis: its citable units (sentences or lines, whole blocks) with their terms, term
counts and fragment flags, computed once per chunk text (the chunk cache) and kept on the source
(``SourceAnalysis``, reached through ``analysis_of``); and the global unit numbers of a list of sources.

Pure analysis of the source's text: no scoring. What scoring derives from it (term statistics, the scoring
index of ``unit_index``) is kept on the same ``SourceAnalysis``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._schema.source import ChunkAnalysis, Source, SourceAnalysis, Unit, analysis_of
from .cache import CHUNK_CACHE_MAX_CHARS, CHUNKS
from .segmenter import split_units
from .term_analyser import TERM_ANALYSER, counts_of
from .terms import _analyze, ascii_separated

_new_tuple = tuple.__new__

__all__ = [
    "chunk_of",
    "first_sentences",
    "fragment_flags",
    "source_terms",
    "source_units",
    "unit_counts",
]


def source_units(source: Source) -> list[Unit]:
    """The citable units of a source, cached on it (with their term counts and lengths)."""
    analysis = analysis_of(source)
    units = analysis.units
    return _analyse_source(source, analysis)[0] if units is None else units


def _analyse_source(
    source: Source, analysis: SourceAnalysis
) -> tuple[list[Unit], tuple[list[dict[str, int]], list[int]]]:
    """The units of ``source`` and their term counts and lengths, kept on ``analysis``."""
    blocks = source.kind == "blocks"
    segments = source.segments
    units: list[Unit]
    counted: tuple[list[dict[str, int]], list[int]]
    if len(segments) == 1 and segments[0].start == 0:  # one chunk: the analysed units as they are
        entry = _chunk(segments[0].text, blocks)
        units = list(entry.units)
        counted = (entry.counts, entry.lengths)
        if len(segments[0].text) > CHUNK_CACHE_MAX_CHARS:
            analysis.chunk = entry  # not kept by the chunk cache: its index goes with the source
    else:
        units, counted = [], ([], [])
        for index, seg in enumerate(segments):
            entry = _chunk(seg.text, blocks)
            offset = seg.start
            units.extend(Unit(u.start + offset, u.end + offset, index, u.terms) for u in entry.units)
            counted[0].extend(entry.counts)
            counted[1].extend(entry.lengths)
    analysis.units = units
    analysis.unit_counts = counted
    return units, counted


def _chunk(text: str, blocks: bool) -> ChunkAnalysis:
    """The analysis of a chunk text, from the chunk cache (a very long text is analysed, not kept)."""
    if len(text) > CHUNK_CACHE_MAX_CHARS:
        return _analyse_segment(text, blocks)
    return CHUNKS.get_or_build((text, blocks), lambda: _analyse_segment(text, blocks))


def _analyse_segment(text: str, blocks: bool) -> ChunkAnalysis:
    if blocks:
        spans = [(0, len(text))]
    else:
        spans = split_units(text)
    lowered = text.lower()
    # lower() keeps every offset when it keeps the length (final sigma, the one case that depends on
    # context, is a non-ASCII word and falls back); then one pass over the chunk finds every unit's words
    separated = ascii_separated(lowered) if len(lowered) == len(text) else None
    if separated is not None:
        terms, counts, lengths = TERM_ANALYSER.unit_terms(separated, spans)
    else:
        terms = [_analyze(text[a:b]) for a, b in spans]
        counts, lengths = [counts_of(t) for t in terms], [len(t) for t in terms]
    # tuple.__new__ skips the named tuple's Python-level __new__ (a lambda per unit): ~40 % of this line
    # on never-seen chunks (docs/benchmarks.md, "Building units without the named tuple's __new__")
    units = tuple([_new_tuple(Unit, (a, b, 0, t)) for (a, b), t in zip(spans, terms)])
    return ChunkAnalysis(units, counts, lengths)


def unit_counts(source: Source) -> tuple[list[dict[str, int]], list[int]]:
    """Term counts (for BM25; their keys give document frequencies) and lengths of each unit, cached on
    the source by ``source_units``."""
    analysis = analysis_of(source)
    counted = analysis.unit_counts
    return _analyse_source(source, analysis)[1] if counted is None else counted


def source_terms(source: Source) -> set[str]:
    """Every term of the source (for support: claim names and numbers found nowhere in it), cached."""
    analysis = analysis_of(source)
    terms = analysis.terms
    if terms is None:
        terms = analysis.terms = set().union(*unit_counts(source)[0])  # the units' keys, in C
    return terms


def chunk_of(source: Source) -> ChunkAnalysis | None:
    """The analysis of a one-chunk source, kept on it from its first citation (only cited sources keep
    it: 10,000 uncited sources do not); None for a source of several segments."""
    analysis = analysis_of(source)
    entry = analysis.chunk
    if entry is None:
        segments = source.segments
        if len(segments) != 1 or segments[0].start != 0:
            return None
        entry = analysis.chunk = _chunk(segments[0].text, source.kind == "blocks")
    return entry


def fragment_flags(source: Source, units: list[Unit]) -> list[bool]:
    """``_fragments`` of the source's units, cached on it and, for one chunk, kept with its analysis."""
    analysis = analysis_of(source)
    flags = analysis.fragments
    if flags is None:
        entry = chunk_of(source)
        if entry is None:
            flags = _fragments(source.text, units)
        else:
            flags = entry.fragments
            if flags is None:  # two threads may both build it: the same value
                flags = entry.fragments = _fragments(source.text, units)
        analysis.fragments = flags
    return flags


_ENDS = frozenset(".!?…。！？")
_CLOSERS = "\"'”’»)]}」』）*_`"


def _fragments(text: str, units: Sequence[Unit]) -> list[bool]:
    """Whether each unit is a fragment rather than a sentence: its text does not end with ``. ! ? …``
    or ``。！？`` (closing quotes, brackets and emphasis marks aside)."""
    return [text[u.start : u.end].rstrip(_CLOSERS)[-1:] not in _ENDS for u in units]


def first_sentences(sources: Sequence[Source]) -> list[int]:
    """The global number of each source's first unit (one more entry: the total number of units)."""
    firsts, total = [], 0
    for source in sources:
        firsts.append(total)
        total += len(source_units(source))
    firsts.append(total)
    return firsts
