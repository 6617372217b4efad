"""A source's analysis: its citable units (sentences or lines, whole blocks) with their terms, term
counts and fragment flags, computed once per chunk text (the chunk cache) and kept on the source
(``SourceAnalysis``, reached through ``analysis_of``); and the global unit numbers of a list of sources.

Pure analysis of the source's text: no scoring. What scoring derives from it (term statistics, the scoring
index of ``unit_index``) is kept on the same ``SourceAnalysis``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._schema.source import ChunkAnalysis, Source, SourceAnalysis, Unit, analysis_of
from .cache import CHUNK_CACHE_MAX_CHARS, CHUNKS
from .chunk_analyser import CHUNK_ANALYSER, NativeChunkAnalyser, NativeUnits, fragments_of

__all__ = [
    "chunk_fragments",
    "chunk_of",
    "corpus_frequencies",
    "first_sentences",
    "fragment_flags",
    "source_terms",
    "source_units",
    "unit_counts",
    "unit_lengths",
]


def source_units(source: Source) -> Sequence[Unit]:
    """The citable units of a source, cached on it (with their term counts and lengths): a list, or of
    a one-chunk source its chunk's ``NativeUnits`` (each made when read)."""
    analysis = analysis_of(source)
    units = analysis.units
    return _analyse_source(source, analysis) if units is None else units


def _analyse_source(source: Source, analysis: SourceAnalysis) -> Sequence[Unit]:
    """The units of ``source`` and their lengths, kept on ``analysis`` with their term counts when every
    chunk's counts are built (the reference's analysis), else with the chunks that build them on first
    read (``unit_counts``)."""
    blocks = source.kind == "blocks"
    segments = source.segments
    units: Sequence[Unit]
    entries: tuple[ChunkAnalysis, ...]
    if len(segments) == 1 and segments[0].start == 0:  # one chunk: the analysed units as they are
        entry = _chunk(segments[0].text, blocks)
        if len(segments[0].text) > CHUNK_CACHE_MAX_CHARS:
            analysis.chunk = entry  # not kept by the chunk cache: its index goes with the source
        return _keep_chunk(analysis, entry)
    every: list[Unit] = []
    lengths, chunks = [], []
    for index, seg in enumerate(segments):
        entry = _chunk(seg.text, blocks)
        offset = seg.start
        every.extend(Unit(u.start + offset, u.end + offset, index, u.terms) for u in entry.units)
        lengths.extend(entry.lengths)
        chunks.append(entry)
    entries, units = tuple(chunks), every
    if all(e.counted is not None for e in entries):
        # as before the compiled analysis: the source keeps the counts, not the chunks
        counts = entries[0].counts if len(entries) == 1 else [c for e in entries for c in e.counts]
        analysis.unit_counts = (counts, lengths)
    else:
        analysis.chunks = entries
    analysis.lengths = lengths
    analysis.units = units
    return units


def _keep_chunk(analysis: SourceAnalysis, entry: ChunkAnalysis) -> Sequence[Unit]:
    """``_analyse_source`` of a one-chunk source whose chunk's analysis is ``entry``."""
    found = entry.units  # the source's own object of them (not made one by one here)
    units = found.view() if isinstance(found, NativeUnits) else list(found)
    lengths = entry.lengths
    if entry.counted is not None:  # as before the compiled analysis: the source keeps the counts
        analysis.unit_counts = (entry.counted, lengths)
    else:
        analysis.chunks = (entry,)
    analysis.lengths = lengths
    analysis.units = units
    return units


def _analyse_sources(
    sources: Sequence[Source], analyses: Sequence[SourceAnalysis], analyser: NativeChunkAnalyser
) -> None:
    """``_analyse_source`` of each source not analysed yet, the chunk texts of the one-chunk ones that
    the chunk cache lacks analysed in one compiled call (one call per source, with the cache's lock
    and Python's layers around it, cost about as much as the compiled analysis of a short source)."""
    single: list[tuple[SourceAnalysis, tuple[str, bool]]] = []
    seen: set[int] = set()  # a copy of a source shares its analysis until its text changes
    for source, analysis in zip(sources, analyses):
        if analysis.units is not None or id(analysis) in seen:
            continue
        segments = source.segments
        if len(segments) == 1 and segments[0].start == 0 and len(segments[0].text) <= CHUNK_CACHE_MAX_CHARS:
            seen.add(id(analysis))
            single.append((analysis, (segments[0].text, source.kind == "blocks")))
        else:
            _analyse_source(source, analysis)
    if single:
        entries = CHUNKS.get_or_build_many([key for _, key in single], analyser.analyse_many)
        for (analysis, _), entry in zip(single, entries):
            _keep_chunk(analysis, entry)


def _chunk(text: str, blocks: bool) -> ChunkAnalysis:
    """The analysis of a chunk text, from the chunk cache (a very long text is analysed, not kept)."""
    if len(text) > CHUNK_CACHE_MAX_CHARS:
        return _analyse_segment(text, blocks)
    return CHUNKS.get_or_build((text, blocks), lambda: _analyse_segment(text, blocks))


def _analyse_segment(text: str, blocks: bool) -> ChunkAnalysis:
    """The analysis of one chunk text (``chunk_analyser``: one compiled call, or the reference)."""
    return CHUNK_ANALYSER.analyse(text, blocks)


def unit_counts(source: Source) -> tuple[list[dict[str, int]], list[int]]:
    """Term counts (for BM25; their keys give document frequencies) and lengths of each unit, cached on
    the source (built from its chunks on first read when the extension analysed them)."""
    analysis = analysis_of(source)
    counted = analysis.unit_counts
    if counted is None:
        if analysis.units is None:
            _analyse_source(source, analysis)
        counted = analysis.unit_counts
        if counted is None:  # two threads may both build them: the same value
            entries = analysis.chunks or ()
            counts = entries[0].counts if len(entries) == 1 else [c for e in entries for c in e.counts]
            counted = analysis.unit_counts = (counts, unit_lengths(source))
    return counted


def unit_lengths(source: Source) -> list[int]:
    """The number of terms of each unit of a source, cached on it."""
    analysis = analysis_of(source)
    if analysis.units is None:
        _analyse_source(source, analysis)
    lengths = analysis.lengths
    assert lengths is not None  # set with the units
    return lengths


def _natives(source: Source) -> list[Any] | None:
    """The compiled analyses of the source's chunks, when the extension analysed every one (else None)."""
    analysis = analysis_of(source)
    if analysis.units is None:
        _analyse_source(source, analysis)
    return _chunk_natives(analysis)


def _chunk_natives(analysis: SourceAnalysis) -> list[Any] | None:
    """``_natives`` of an analysed source: None when its counts were built (the units' counts serve) or a
    chunk of it was analysed by the reference."""
    entries = analysis.chunks
    if entries is None:
        return None
    natives = [e.native for e in entries]
    return None if None in natives else natives


def corpus_frequencies(sources: Sequence[Source]) -> tuple[Mapping[str, int], list[list[int]]] | None:
    """The document frequencies over every unit of ``sources`` (``TermStats.from_groups``'s), counted
    in Rust from their compiled analyses, with each source's ``unit_lengths``; None when a source has a
    chunk the reference analysed (a word that is not ASCII) or without the extension (the caller counts
    the units' term counts). The sources not analysed yet are analysed together (``_analyse_sources``)."""
    analyser = CHUNK_ANALYSER
    if not isinstance(analyser, NativeChunkAnalyser):
        return None
    analyses = [analysis_of(s) for s in sources]
    _analyse_sources(sources, analyses, analyser)
    chunks: list[Any] = []
    for analysis in analyses:
        natives = _chunk_natives(analysis)
        if natives is None:
            return None
        chunks.extend(natives)
    frequencies = analyser.frequencies(chunks)
    if frequencies is None:
        return None
    return frequencies, [a.lengths for a in analyses]  # type: ignore[misc]  # set with the units


def source_terms(source: Source) -> set[str]:
    """Every term of the source (for support: claim names and numbers found nowhere in it), cached."""
    analysis = analysis_of(source)
    terms = analysis.terms
    if terms is None:
        natives = _natives(source) if analysis.unit_counts is None else None
        if natives is not None:  # the compiled analysis gives its chunks' terms without the counts
            terms = natives[0].terms() if len(natives) == 1 else set().union(*(n.terms() for n in natives))
        else:
            terms = set().union(*unit_counts(source)[0])  # the units' keys, in C
        analysis.terms = terms
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
        entries = analysis.chunks  # the analysed chunk, when the source kept it (not analysed again)
        entry = entries[0] if entries else _chunk(segments[0].text, source.kind == "blocks")
        analysis.chunk = entry
    return entry


def fragment_flags(source: Source, units: Sequence[Unit]) -> list[bool]:
    """``_fragments`` of the source's units, cached on it and, for one chunk, kept with its analysis."""
    analysis = analysis_of(source)
    flags = analysis.fragments
    if flags is None:
        entry = chunk_of(source)
        text = source.text
        flags = _fragments(text, units) if entry is None else chunk_fragments(entry, text, units)
        analysis.fragments = flags
    return flags


def chunk_fragments(entry: ChunkAnalysis, text: str, units: Sequence[Unit]) -> list[bool]:
    """``_fragments`` of a chunk's units (``text``: the chunk's), kept with its analysis ``entry``: asked of
    its compiled analysis when it has one."""
    flags = entry.fragments
    if flags is None:  # two threads may both build it: the same value
        native = entry.native
        flags = native.fragments() if native is not None else _fragments(text, units)
        entry.fragments = flags
    return flags


_fragments = fragments_of
"""Whether each unit is a fragment rather than a sentence (``chunk_analyser.fragments_of``)."""


def first_sentences(sources: Sequence[Source]) -> list[int]:
    """The global number of each source's first unit (one more entry: the total number of units)."""
    firsts, total = [], 0
    for source in sources:
        firsts.append(total)
        total += len(source_units(source))
    firsts.append(total)
    return firsts
