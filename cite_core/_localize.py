"""Find the exact sentence(s) of a source that support a claim, and build the citation for them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import _cache as _cache_module
from ._cache import CHUNK_CACHE_MAX_CHARS, CHUNKS, ChunkAnalysis, Unit
from ._citations import citation_for_span
from ._dense import DenseModel, cosine
from ._hybrid import hybrid_support, mean_vector, mix_scores
from ._models import Citation, Source
from ._scoring import (
    ClaimTerms,
    TermStats,
    bm25,
    build_postings,
    coverage,
    support,
)
from ._segment import split_sentences
from ._stopwords import STOP
from ._terms import _TOKEN, _analyze, ascii_separated, term_of

__all__ = ["Corpus", "Unit", "clear_caches", "forget_chunks", "source_stats", "source_terms", "source_units"]

EXTEND_GAIN = 0.2
"""Extend the best sentence with a neighbour when that adds this much coverage of the claim (0..1)."""

SOURCE_UNITS = 5
"""``support`` is the better of the cited span's support and that of the source's this many best
matching units read together: a long claim is often supported by several sentences of its source,
while the span cites one (WiCE dev: supported claims flagged 0.31 -> 0.06 at the calibrated threshold).
"""

WRAP_MIN = 50
"""A line at least this long that runs on into a lowercase line is a wrapped line of a paragraph;
shorter lines (headlines, menu entries, list items, table rows, dates) are units of their own."""

_NEWLINE = re.compile(r"[^\S\n]*\n\s*")
_CONTINUES = (",", ";", "-", "–", "(", "/", "&")
"""A line ending with one of these goes on in the next line (a URL ending in ``/`` excepted)."""
_URL_END = re.compile(r"(?:https?://|www\.)\S*$", re.IGNORECASE)


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
            if len(segments[0].text) > CHUNK_CACHE_MAX_CHARS:
                cache["chunk"] = entry  # not kept by the chunk cache: its postings go with the source
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
        spans = [
            piece
            for a, b in split_sentences(text) or [(0, len(text))]
            # the common one-line sentence skips split_lines' call
            for piece in (split_lines(text, a, b) if text.find("\n", a, b) >= 0 else ((a, b),))
        ]
    lowered = text.lower()
    # lower() keeps every offset when it keeps the length (final sigma, the one case that depends on
    # context, is a non-ASCII word and falls back); then one pass over the chunk finds every unit's words
    separated = ascii_separated(lowered) if len(lowered) == len(text) else None
    if separated is not None:
        term = term_of()  # "" (a stop word's term) is dropped
        terms = [tuple(filter(None, map(term, separated[a:b].split()))) for a, b in spans]
    else:
        terms = [_analyze(text[a:b]) for a, b in spans]
    units = tuple([Unit(a, b, 0, t) for (a, b), t in zip(spans, terms)])
    return ChunkAnalysis(units, [_counts(t) for t in terms], [len(t) for t in terms])


clear_caches = _cache_module.clear
forget_chunks = _cache_module.forget_chunks


def split_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence span cut at its line breaks, except where a line wraps: a line ending in ``, ; -``
    and the like (not a URL's ``/``), or a line of at least ``WRAP_MIN`` characters followed by a
    lowercase line."""
    if "\n" not in text[start:end]:
        return [(start, end)]
    pieces, cursor = [], start
    for m in _NEWLINE.finditer(text, start, end):
        line = text[cursor : m.start()]
        if m.end() >= end or not line:
            continue
        if (line.endswith(_CONTINUES) and not (line[-1] == "/" and _URL_END.search(line))) or (
            len(line) >= WRAP_MIN and text[m.end()].islower()
        ):
            continue  # a wrapped line: the sentence goes on
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


POSTINGS_AFTER = 8
"""BM25 postings of a unit list are built on its eighth use; earlier uses score the units' term counts
directly: building costs several direct passes, so chunks cited a few times by one answer are never
indexed, and chunks retrieved again and again are after their first queries (the measured costs are in
docs/benchmarks.md, "Postings")."""


def _postings(source: Source) -> dict[str, list[tuple[int, int]]] | None:
    """Term -> [(unit index, count)] over the source's units (for ``bm25``), kept with the
    chunk's analysis or on the source; None on a first use (score the counts directly)."""
    cache = _cache(source)
    postings = cache.get("postings")
    if postings is None:
        entry = _chunk_entry(source)
        if entry is not None:  # one chunk: kept with its analysis
            postings = _chunk_postings(entry)
        else:
            uses = cache["bm25_uses"] = cache.get("bm25_uses", 0) + 1
            postings = build_postings(_unit_counts(source)[0]) if uses >= POSTINGS_AFTER else None
        if postings is not None:
            cache["postings"] = postings
    return postings


def _chunk_entry(source: Source) -> ChunkAnalysis | None:
    """The analysis of a one-chunk source, kept on it from its first citation (only cited sources keep
    it: 10,000 uncited sources do not); None for a source of several segments."""
    cache = _cache(source)
    entry = cache.get("chunk")
    if entry is None:
        segments = source.segments
        if len(segments) != 1 or segments[0].start != 0:
            return None
        entry = cache["chunk"] = _chunk(segments[0].text, source.kind == "blocks")
    return entry


def _chunk_postings(entry: ChunkAnalysis) -> dict[str, list[tuple[int, int]]] | None:
    if entry.postings is None:  # two threads may both build it: the same value
        entry.uses += 1
        if entry.uses < POSTINGS_AFTER:
            return None
        entry.postings = build_postings(entry.counts)
    return entry.postings


def _fragment_flags(source: Source, units: list[Unit]) -> list[bool]:
    """``_fragments`` of the source's units, cached on it and, for one chunk, kept with its analysis."""
    cache = _cache(source)
    flags = cache.get("fragments")
    if flags is None:
        entry = _chunk_entry(source)
        if entry is None:
            flags = _fragments(source.text, units)
        else:
            flags = entry.fragments
            if flags is None:  # two threads may both build it: the same value
                flags = entry.fragments = _fragments(source.text, units)
        cache["fragments"] = flags
    return flags


def _unit_counts(source: Source) -> tuple[list[dict[str, int]], list[int]]:
    """Term counts (for BM25; their keys give document frequencies) and lengths of each unit, cached on
    the source by ``source_units``."""
    counted = _cache(source).get("unit_counts")
    if counted is None:
        source_units(source)
        counted = _cache(source)["unit_counts"]
    return counted


def source_terms(source: Source) -> set[str]:
    """Every term of the source (for support: claim names and numbers found nowhere in it), cached."""
    cache = _cache(source)
    terms = cache.get("terms")
    if terms is None:
        terms = cache["terms"] = set().union(*_unit_counts(source)[0])  # the units' keys, in C
    return terms


def _counts(terms: tuple[str, ...]) -> dict[str, int]:
    """Term -> count, in order of first occurrence (a plain dict: one per unit of every source kept)."""
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    return counts


class Corpus:
    """The sources of one answer, with term statistics over all their units (built on first use).

    With ``embeddings`` (anything ``embedding_scorer`` accepts), dense similarity is mixed into the
    choice of the cited sentence and into ``support``; a source's units are embedded the first time it
    is cited (one batch with the claim), and kept in the vector cache."""

    def __init__(
        self, sources: Sequence[Source], *, embeddings: Any = None, source_units: int = SOURCE_UNITS
    ) -> None:
        self.sources = list(sources)
        self.source_units = source_units
        self.by_number = {s.number: s for s in self.sources}
        self._stats: TermStats | None = None
        self._claims: dict[str, ClaimTerms] = {}
        """Each claim's terms, built once: a claim cited by several sources is analysed once."""
        self.dense = DenseModel(embeddings) if embeddings is not None else None
        self.asked: list[tuple[Source, str]] | None = None
        """When a list: every (source, claim) ``cite`` is asked for is added to it (a planning pass, whose
        requests ``prefetch`` then embeds in one call)."""

    def prefetch(self, requests: Iterable[tuple[Source, str]]) -> None:
        """Embed, in one call to the model, every claim of ``requests`` and every unit of the sources they
        cite that the vector cache lacks: ``cite`` then finds them all there (``parse_answer`` makes one
        call per answer instead of one per citation). Without an embedding model, nothing."""
        if self.dense is None:
            return
        texts: dict[str, None] = {}
        cited: set[int] = set()
        for source, claim in requests:
            if not claim.strip():
                continue  # cite embeds nothing for an empty claim
            texts[claim] = None
            if source.number not in cited:
                cited.add(source.number)
                texts.update(dict.fromkeys(source.text[u.start : u.end] for u in source_units(source)))
        if texts:
            self.dense.vectors(list(texts))

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
        if self.asked is not None:
            self.asked.append((source, claim))
        units = source_units(source)
        # the claim's terms and their idf, computed once for BM25, coverage and support
        claim_terms = self._claims.get(claim)
        if claim_terms is None:
            claim_terms = self._claims[claim] = ClaimTerms.from_text(claim, self.stats)
        first: int | None = None
        last: int | None = None
        scores: list[float] | None = None
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
            first, last, scores = self._best(source, claim_terms, units, dense, claim)
        cited_terms: Sequence[str]
        if first is None or last is None:  # _best gives both or neither
            seg = source.segments[0]
            start, end, seg_index = seg.start, seg.end, 0
            cited_terms = [t for u in units if u.segment == 0 for t in u.terms]
        else:
            start, end, seg_index = units[first].start, units[last].end, units[first].segment
            if first == last:
                cited_terms = units[first].terms
            else:
                cited_terms = [t for u in units[first : last + 1] for t in u.terms]
        every = source_terms(source)
        score = support(claim_terms, cited_terms, every)
        if claim_terms.terms and self.source_units > 1 and len(units) > 1 and scores is not None:
            # best first, ties in unit order (the order the support of the top units is read in)
            top = sorted(range(len(units)), key=scores.__getitem__, reverse=True)[: self.source_units]
            terms = [t for i in sorted(top) if scores[i] > 0 for t in units[i].terms]
            score = max(score, support(claim_terms, terms, every))
        if vectors:
            lo, hi = (first, last) if first is not None and last is not None else (0, len(units) - 1)
            span = [v for u, v in zip(units[lo : hi + 1], vectors[1 + lo : hi + 2]) if u.segment == seg_index]
            score = hybrid_support(score, cosine(vectors[0], mean_vector(span)))
        return citation_for_span(source, start, end, reference=reference, support=score, segment=seg_index)

    def _best(
        self,
        source: Source,
        claim: ClaimTerms,
        units: list[Unit],
        dense: list[float] | None = None,
        claim_text: str = "",
    ) -> tuple[int | None, int | None, list[float] | None]:
        if not units or not (claim.weights or dense):
            return None, None, None
        counts, lengths = _unit_counts(source)
        scores = lexical = bm25(claim, counts, lengths, self.stats.avg_len, _postings(source))
        if dense is not None:
            scores = mix_scores(lexical, dense)
        elif max(scores) <= 0:
            return None, None, scores
        text = source.text
        words: list[frozenset[str]] = []  # the claim's words, found on the first tie

        def verbatim(i: int) -> int:
            if not words:
                words.append(_words(claim_text))
            return len(words[0] & _words(text[units[i].start : units[i].end]))

        best = _pick(scores, _fragment_flags(source, units), verbatim)
        first = last = best
        # a unit's term counts hold its distinct terms as keys: membership as in a set of its terms
        base = coverage(claim, counts[best].keys())
        for neighbour in (best - 1, best + 1):
            if (
                0 <= neighbour < len(units)
                # a neighbour without a claim term (BM25 0: every term adds idf > 0) adds no coverage: its
                # gain would be 0 (or an ulp off after an extension), below EXTEND_GAIN
                and (lexical[neighbour] > 0 or EXTEND_GAIN <= 0)
                and units[neighbour].segment == units[best].segment
                and not _line_between(text, units[min(best, neighbour)], units[max(best, neighbour)])
            ):
                lo, hi = min(first, neighbour), max(last, neighbour)
                terms = (
                    counts[lo].keys() | counts[hi].keys()
                    if hi - lo == 1
                    else {t for c in counts[lo : hi + 1] for t in c}
                )
                gain = coverage(claim, terms) - base
                if gain >= EXTEND_GAIN:
                    first, last, base = lo, hi, base + gain
        return first, last, scores


FRAGMENT_WEIGHT = 0.8
"""A unit that is not a sentence (a line without end punctuation: headline, menu, list item, table row)
scores this share of its match, so a real sentence with the same words wins over it."""
TIE = 1e-9
"""Scores within this relative distance of the best are a tie."""
_ENDS = frozenset(".!?…。！？")
_CLOSERS = "\"'”’»)]}」』）*_`"


def _fragments(text: str, units: Sequence[Unit]) -> list[bool]:
    """Whether each unit is a fragment rather than a sentence: its text does not end with ``. ! ? …``
    or ``。！？`` (closing quotes, brackets and emphasis marks aside)."""
    return [text[u.start : u.end].rstrip(_CLOSERS)[-1:] not in _ENDS for u in units]


def _pick(scores: list[float], fragments: list[bool], verbatim: Callable[[int], int] | None = None) -> int:
    """The best unit: fragments weighted by ``FRAGMENT_WEIGHT``; among tied scores a sentence before a
    fragment, then the one holding more of the claim's words as written (``verbatim``), then the first."""
    weighted = [s * FRAGMENT_WEIGHT if f and s > 0 else s for s, f in zip(scores, fragments)]
    top = max(weighted)
    floor = top - abs(top) * TIE
    tied = [i for i, s in enumerate(weighted) if s >= floor]
    if len(tied) == 1:
        return tied[0]
    if verbatim is None:
        return min(tied, key=lambda i: (fragments[i], i))
    return min(tied, key=lambda i: (fragments[i], -verbatim(i), i))


def _words(text: str) -> frozenset[str]:
    """The distinct lower-cased words of a text as written (stop words aside). The stemmer gives
    "married" and "marries" one term, so two units can tie where only one says what the claim says:
    ``_pick`` then prefers the unit holding more of the claim's words verbatim (computed on a tie only)."""
    return frozenset(w for w in _TOKEN.findall(text.lower()) if w not in STOP)


def _line_between(text: str, a: Unit, b: Unit) -> bool:
    """Whether unit ``b`` starts on a later line than unit ``a`` ends (a span never takes in another line)."""
    return "\n" in text[a.end : b.start]
