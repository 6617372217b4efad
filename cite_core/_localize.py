"""Find the exact sentence(s) of a source that support a claim, and build the citation for them."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NamedTuple

from . import _scoring, _tokens
from ._citations import citation_for_span
from ._models import Citation, Source
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


class Unit(NamedTuple):
    """A citable unit of a source: a sentence (text, pages) or a whole block (blocks).

    A named tuple: immutable like the frozen dataclass it was, and built 2x faster (a source of 1 KB
    has about ten units, built for every source of every query)."""

    start: int
    end: int
    segment: int
    terms: tuple[str, ...]


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
            cached, counts, lengths = _segment_units(segments[0].text, blocks)
            units = list(cached)
            counted = (counts, lengths)
        else:
            units, counted = [], ([], [])
            for index, seg in enumerate(segments):
                cached, counts, lengths = _segment_units(seg.text, blocks)
                offset = seg.start
                units.extend(Unit(u.start + offset, u.end + offset, index, u.terms) for u in cached)
                counted[0].extend(counts)
                counted[1].extend(lengths)
        cache["units"] = units
        cache["unit_counts"] = counted
    return units


SEGMENT_CACHE_SIZE = 1024
"""At most this many analysed chunk texts are kept across queries (the same chunks are retrieved
again and again), least recently used first out."""
SEGMENT_CACHE_CHARS = 2_000_000
"""...and at most this many characters of them in all: their analyses take about 20 bytes per
character (sentence units, terms, counts, postings), so about 40 MB at most."""
SEGMENT_CACHE_MAX_CHARS = 65536
"""Longer chunk texts are analysed every time rather than kept."""

_Analysis = tuple[tuple[Unit, ...], list[dict[str, int]], list[int]]


class _ChunkCache:
    """Least-recently-used analyses of chunk texts, bounded by count and by characters; thread-safe.
    Each entry is ``[units, counts, lengths, postings or None]``, shared read-only by every source whose
    chunk has that text."""

    def __init__(self, max_items: int, max_chars: int) -> None:
        self.max_items, self.max_chars = max_items, max_chars
        self._entries: OrderedDict[tuple[str, bool], list[Any]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def entry(self, text: str, blocks: bool) -> list[Any]:
        if len(text) > SEGMENT_CACHE_MAX_CHARS:  # analysed every time, never kept
            return [*_analyse_segment(text, blocks), None]
        key = (text, blocks)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        entry = [*_analyse_segment(text, blocks), None]  # outside the lock: other threads go on
        with self._lock:
            if key not in self._entries:
                self._entries[key] = entry
                self._chars += len(text)
                while len(self._entries) > self.max_items or self._chars > self.max_chars:
                    (old, _), _ = self._entries.popitem(last=False)
                    self._chars -= len(old)
        return entry

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def chars(self) -> int:
        return self._chars


_CHUNKS = _ChunkCache(SEGMENT_CACHE_SIZE, SEGMENT_CACHE_CHARS)


def _segment_units(text: str, blocks: bool) -> _Analysis:
    """The units of one chunk text (offsets into it, segment 0), their term counts and lengths; shared
    read-only by every source with this text."""
    units, counts, lengths, _ = _CHUNKS.entry(text, blocks)
    return units, counts, lengths


def _analyse_segment(text: str, blocks: bool) -> tuple[tuple[Unit, ...], list[dict[str, int]], list[int]]:
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
    return tuple(units), [_counts(u.terms) for u in units], [len(u.terms) for u in units]


def clear_caches() -> None:
    """Forget every analysed chunk, sentence and word and every remembered token count (to measure
    first sight, or to give the memory back in a long-running process)."""
    forget_chunks()
    _scoring._stem.cache_clear()


def forget_chunks() -> None:
    """Forget analysed chunks and sentences and their token counts, keeping word stems: what a
    long-running process meets when chunks it never saw, in words it has seen, are retrieved."""
    _tokens.clear_counts()
    _CHUNKS.clear()
    _scoring._analyze.cache_clear()


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
    entry = _CHUNKS.entry(text, blocks)
    if entry[3] is None:  # two threads may both build it: the same value
        entry[3] = build_postings(entry[1])
    return entry[3]


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
    """The sources of one answer, with term statistics over all their units (built on first use)."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = list(sources)
        self.by_number = {s.number: s for s in self.sources}
        self._stats: TermStats | None = None

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
        if first is None:
            first, last = self._best(weights, total, units, *_unit_counts(source), _postings(source))
        if first is None:
            seg = source.segments[0]
            start, end, seg_index = seg.start, seg.end, 0
            cited_terms: Sequence[str] = [t for u in units if u.segment == 0 for t in u.terms]
        else:
            last = first if last is None else last  # _best gives both or neither
            start, end, seg_index = units[first].start, units[last].end, units[first].segment
            if first == last:
                cited_terms = units[first].terms
            else:
                cited_terms = [t for u in units[first : last + 1] for t in u.terms]
        score = weighted_support(claim_terms, weights, total, cited_terms) if claim_terms else 0.0
        return citation_for_span(source, start, end, reference=reference, support=score, segment=seg_index)

    def _best(
        self,
        weights: list[tuple[str, float]],
        total: float,
        units: list[Unit],
        counts: list[dict[str, int]],
        lengths: list[int],
        postings: dict[str, list[tuple[int, int]]],
    ) -> tuple[int | None, int | None]:
        if not weights or not units:
            return None, None
        scores = bm25_postings(weights, postings, lengths, self.stats.avg_len)
        best = scores.index(max(scores))  # the first of equal best scores (no key function per unit)
        if scores[best] <= 0:
            return None, None
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
