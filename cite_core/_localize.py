"""Find the exact sentence(s) of a source that support a claim, and build the citation for them."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from . import _cache as _cache_module
from ._cache import CHUNK_CACHE_MAX_CHARS, CHUNKS, ChunkAnalysis, Unit
from ._dense import DenseModel, cosine
from ._models import CharLocation, Citation, ContentBlockLocation, PageLocation, Source
from ._scoring import (
    TermStats,
    _analyze,
    analyze,
    bm25_postings,
    build_postings,
    claim_weights,
    weighted_coverage,
    weighted_support,
    weights_total,
)
from ._segment import split_sentences

__all__ = ["Corpus", "Unit", "clear_caches", "forget_chunks", "source_stats", "source_units"]

EXTEND_GAIN = 0.2
"""Extend the best sentence with a neighbour when that adds this much coverage of the claim (0..1)."""

LONG_UNIT = 300
"""A "sentence" longer than this that spans several lines is split at lines that start a new item."""

_LINE_BREAK = re.compile(r"(?<![,;:\-])[^\S\n]*\n\s*(?=[^a-z\s])")
"""A newline inside a unit, after a line not ending in , ; : - and before a line not starting lowercase."""


def _cache(source: Source) -> dict[str, Any]:
    """The source's private cache, read from pydantic's private-attribute slot (``source._cache`` goes
    through ``BaseModel.__getattr__``, which costs microseconds on this hot path)."""
    return source.__pydantic_private__["_cache"]  # type: ignore[index]


def source_units(source: Source) -> list[Unit]:
    """The citable units of a source, cached on it (with their term counts and lengths)."""
    cache = _cache(source)
    units = cache.get("units")
    if units is None:
        blocks = source.kind == "blocks"
        segments = source.segments
        if len(segments) == 1 and segments[0].start == 0:  # one chunk: the analysed units as they are
            entry = _chunk(segments[0].text, blocks)
            units = list(entry.units)
            counted = (entry.counts, entry.lengths)
        else:
            units, counted = [], ([], [])
            for index, seg in enumerate(segments):
                entry = _chunk(seg.text, blocks)
                offset = seg.start
                units.extend(Unit(u.start + offset, u.end + offset, index, u.terms) for u in entry.units)
                counted[0].extend(entry.counts)
                counted[1].extend(entry.lengths)
        cache["units"] = units
        cache["unit_counts"] = counted
    return units


def _chunk(text: str, blocks: bool) -> ChunkAnalysis:
    """The analysis of a chunk text, from the chunk cache (a very long text is analysed, not kept)."""
    if len(text) > CHUNK_CACHE_MAX_CHARS:
        return _analyse_segment(text, blocks)
    return CHUNKS.get_or_build((text, blocks), lambda: _analyse_segment(text, blocks))


def _analyse_segment(text: str, blocks: bool) -> ChunkAnalysis:
    if blocks:
        spans = [(0, len(text))]
    else:
        spans = split_sentences(text) or [(0, len(text))]
    units = []
    for a, b in spans:
        if not blocks and b - a > LONG_UNIT:  # the common short case skips _split_long's call
            for lo, hi in _split_long(text, a, b):
                units.append(Unit(lo, hi, 0, _analyze(text[lo:hi])))
        else:
            units.append(Unit(a, b, 0, _analyze(text[a:b])))  # the memoised tuple itself
    return ChunkAnalysis(tuple(units), [_counts(u.terms) for u in units], [len(u.terms) for u in units])


clear_caches = _cache_module.clear
forget_chunks = _cache_module.forget_chunks


def _split_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A long multi-line unit (a list or table the splitter joined as wrapped lines) cut into its lines."""
    if end - start <= LONG_UNIT or "\n" not in text[start:end]:
        return [(start, end)]
    pieces, cursor = [], start
    for m in _LINE_BREAK.finditer(text, start, end):
        if m.start() > cursor:
            pieces.append((cursor, m.start()))
        cursor = m.end()
    pieces.append((cursor, end))
    return pieces


def source_stats(source: Source) -> TermStats:
    """Term statistics over one source's units, cached on it."""
    cache = _cache(source)
    stats = cache.get("stats")
    if stats is None:
        stats = cache["stats"] = TermStats.from_units(u.terms for u in source_units(source))
    return stats


def _postings(source: Source) -> dict[str, list[tuple[int, int]]]:
    """Term -> [(unit index, count)] over the source's units (for ``bm25_postings``), cached on it."""
    cache = _cache(source)
    postings = cache.get("postings")
    if postings is None:
        segments = source.segments
        if len(segments) == 1 and segments[0].start == 0:  # one chunk: kept with its analysis
            postings = _chunk_postings(segments[0].text, source.kind == "blocks")
        else:
            postings = build_postings(_unit_counts(source)[0])
        cache["postings"] = postings
    return postings


def _chunk_postings(text: str, blocks: bool) -> dict[str, list[tuple[int, int]]]:
    entry = _chunk(text, blocks)
    if entry.postings is None:  # two threads may both build it: the same value
        entry.postings = build_postings(entry.counts)
    return entry.postings


def _unit_counts(source: Source) -> tuple[list[dict[str, int]], list[int]]:
    """Term counts (for BM25; their keys give document frequencies) and lengths of each unit, cached on
    the source by ``source_units``."""
    counted = _cache(source).get("unit_counts")
    if counted is None:
        source_units(source)
        counted = _cache(source)["unit_counts"]
    return counted


def _counts(terms: tuple[str, ...]) -> dict[str, int]:
    """Term -> count. Most sentences (4 in 5) repeat no term, and ``dict.fromkeys`` (in C) then gives
    the counts; a plain loop counts the others. Both beat ``Counter``'s Python-level constructor."""
    counts = dict.fromkeys(terms, 1)
    if len(counts) != len(terms):
        counts = dict.fromkeys(terms, 0)
        for term in terms:
            counts[term] += 1
    return counts


class Corpus:
    """The sources of one answer, with term statistics over all their units (built on first use).

    With ``embeddings`` (anything ``embedding_scorer`` accepts), dense similarity is mixed into the
    choice of the cited sentence and into ``support``; a source's units are embedded the first time it
    is cited (one batch with the claim), and kept in the vector cache."""

    def __init__(self, sources: Sequence[Source], *, embeddings: Any = None) -> None:
        self.sources = list(sources)
        self.by_number = {s.number: s for s in self.sources}
        self._stats: TermStats | None = None
        self.dense = DenseModel(embeddings) if embeddings is not None else None

    @property
    def stats(self) -> TermStats:
        if self._stats is None:
            # one counting pass over every unit (not a merge of per-source statistics, whose lazy
            # document-frequency sums cost 20 dict lookups per term for 20 sources); the units' term
            # counts serve BM25 later
            counted = [_unit_counts(s) for s in self.sources]
            self._stats = TermStats.from_groups([c for c, _ in counted], [n for _, n in counted])
        return self._stats

    def cite(
        self, source: Source, claim: str, *, reference: int, sentences: tuple[int, int] | None = None
    ) -> Citation:
        """The citation of ``source`` for ``claim``: explicit 1-based sentence range, else the best match."""
        units = source_units(source)
        claim_terms = analyze(claim)
        # the claim's (term, idf) pairs and their sum, computed once for BM25, coverage and support
        weights = claim_weights(claim_terms, self.stats) if claim_terms else []
        total = weights_total(weights)
        first = last = None
        if sentences is not None:
            lo, hi = sentences
            if 1 <= lo <= hi <= len(units):
                first, last = lo - 1, hi - 1
                while units[last].segment != units[first].segment:
                    last -= 1  # a citation never spans two chunks, pages or blocks
        vectors = None
        if self.dense is not None and claim.strip():
            vectors = self.dense.vectors([claim, *(source.text[u.start : u.end] for u in units)])
        if first is None:
            dense = [cosine(vectors[0], v) for v in vectors[1:]] if vectors else None
            first, last = self._best(weights, total, units, *_unit_counts(source), _postings(source), dense)
        if first is None:
            seg = source.segments[0]
            start, end, seg_index = seg.start, seg.end, 0
            cited_terms = [t for u in units if u.segment == 0 for t in u.terms]
        else:
            start, end, seg_index = units[first].start, units[last].end, units[first].segment
            if first == last:
                cited_terms = units[first].terms
            else:
                cited_terms = [t for u in units[first : last + 1] for t in u.terms]
        cited = source.text[start:end]
        score = weighted_support(claim_terms, weights, total, cited_terms) if claim_terms else 0.0
        if vectors:
            lo, hi = (first, last) if first is not None else (0, len(units) - 1)
            span = [v for u, v in zip(units[lo : hi + 1], vectors[1 + lo : hi + 2]) if u.segment == seg_index]
            score = hybrid_support(score, cosine(vectors[0], _mean(span)))
        return _make_citation(source, seg_index, start, end, cited, reference, score)

    def _best(
        self,
        weights: list[tuple[str, float]],
        total: float,
        units: list[Unit],
        counts: list[dict[str, int]],
        lengths: list[int],
        postings: dict[str, list[tuple[int, int]]],
        dense: list[float] | None = None,
    ) -> tuple[int | None, int | None]:
        if not units or not (weights or dense):
            return None, None
        scores = bm25_postings(weights, postings, lengths, self.stats.avg_len)
        if dense is not None:
            scores = mix_scores(scores, dense)
        elif max(scores) <= 0:
            return None, None
        best = scores.index(max(scores))  # the first of equal best scores (no key function per unit)
        first = last = best
        # a unit's term counts hold its distinct terms as keys: membership as in a set of its terms
        base = weighted_coverage(weights, total, counts[best].keys())
        for neighbour in (best - 1, best + 1):
            if 0 <= neighbour < len(units) and units[neighbour].segment == units[best].segment:
                lo, hi = min(first, neighbour), max(last, neighbour)
                terms = (
                    counts[lo].keys() | counts[hi].keys()
                    if hi - lo == 1
                    else {t for c in counts[lo : hi + 1] for t in c}
                )
                gain = weighted_coverage(weights, total, terms) - base
                if gain >= EXTEND_GAIN:
                    first, last, base = lo, hi, base + gain
        return first, last


DENSE_WEIGHT = 0.5
"""Weight of the dense similarity in the choice of the cited unit (z-scores of both mixed)."""


def mix_scores(lexical: Sequence[float], dense: Sequence[float]) -> list[float]:
    """Lexical and dense scores of a source's units mixed: each z-scored over the units, then
    ``(1 - DENSE_WEIGHT) * lexical + DENSE_WEIGHT * dense`` (a unit without any claim term keeps its
    dense share, so a paraphrase can still win)."""
    return [(1 - DENSE_WEIGHT) * a + DENSE_WEIGHT * b for a, b in zip(_z(lexical), _z(dense))]


def _z(values: Sequence[float]) -> list[float]:
    n = len(values)
    mean = math.fsum(values) / n
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)
    return [(v - mean) / spread if spread > 1e-12 else 0.0 for v in values]


def _mean(vectors: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
    """The unit-length mean of unit vectors (one vector: itself)."""
    vectors = [v for v in vectors if v]
    if len(vectors) <= 1:
        return vectors[0] if vectors else ()
    summed = [math.fsum(c) for c in zip(*vectors)]
    norm = math.sqrt(math.fsum(x * x for x in summed))
    return tuple(x / norm for x in summed) if norm else ()


HYBRID_WEIGHTS = (-3.0, 1.0, 6.0)
"""Logistic weights of (bias, logit of the lexical support, cosine of claim and cited text) for the
support score with an embedding model."""


def hybrid_support(lexical: float, similarity: float) -> float:
    """The support score with an embedding model: lexical support and dense similarity combined."""
    p = min(max(lexical, 1e-4), 1 - 1e-4)
    bias, w_lex, w_dense = HYBRID_WEIGHTS
    z = bias + w_lex * math.log(p / (1 - p)) + w_dense * similarity
    return round(1.0 / (1.0 + math.exp(-z)), 4)


def _make_citation(
    source: Source, seg_index: int, start: int, end: int, cited: str, reference: int, score: float
) -> Citation:
    seg = source.segments[seg_index]
    common: dict[str, Any] = {
        "cited_text": cited,
        "document_index": source.number - 1,
        "document_title": source.title,
        "reference": reference,
        "support": score,
        "source_start": start,
        "source_end": end,
    }
    if source.kind == "pages" and seg.page is not None:
        return PageLocation(start_page_number=seg.page, end_page_number=seg.page + 1, **common)
    if source.kind == "blocks" and seg.block is not None:
        return ContentBlockLocation(start_block_index=seg.block, end_block_index=seg.block + 1, **common)
    if source.document_coordinates:
        offset = seg.doc_start - seg.start  # type: ignore[operator]
        return CharLocation(start_char_index=start + offset, end_char_index=end + offset, **common)
    return CharLocation(start_char_index=start, end_char_index=end, **common)
