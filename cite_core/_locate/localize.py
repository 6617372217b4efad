"""Find the exact sentence(s) of a source that support a claim, and build the citation for them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._exceptions import ArgumentError
from .._schema.citations import citation_for_span
from .._schema.models import Citation, Source
from .._schema.source import IMAGE_KEY, ChunkAnalysis, Unit, analysis_of, layout_problem
from .._sources.analysis import chunk_of, fragment_flags, source_terms, source_units, unit_counts
from .._sources.stopwords import STOP
from .._sources.terms import _TOKEN
from .candidates import MAX_CANDIDATES, bm25_of, candidates
from .dense import DenseModel, cosine
from .hybrid import hybrid_support, mean_vector, mix_scores
from .scoring import (
    ClaimTerms,
    TermStats,
    bm25,
    build_postings,
    coverage,
    support,
)

__all__ = ["Corpus", "source_stats"]

EXTEND_GAIN = 0.2
"""Extend the best sentence with a neighbour when that adds this much coverage of the claim (0..1)."""

SOURCE_UNITS = 5
"""``support`` is the better of the cited span's support and that of the source's this many best
matching units read together: a long claim is often supported by several sentences of its source,
while the span cites one (WiCE dev: supported claims flagged 0.31 -> 0.06 at the calibrated threshold).
"""


def source_stats(source: Source) -> TermStats:
    """Term statistics over one source's units, cached on it."""
    analysis = analysis_of(source)
    stats = analysis.stats
    if not isinstance(stats, TermStats):  # None until computed
        stats = analysis.stats = TermStats.from_units(u.terms for u in source_units(source))
    return stats


POSTINGS_AFTER = 8
"""BM25 postings of a unit list are built on its eighth use; earlier uses score the units' term counts
directly: building costs several direct passes, so chunks cited a few times by one answer are never
indexed, and chunks retrieved again and again are after their first queries (the measured costs are in
docs/benchmarks.md, "Postings")."""


def _postings(source: Source, now: bool = False) -> dict[str, list[tuple[int, int]]] | None:
    """Term -> [(unit index, count)] over the source's units (for ``bm25``), kept with the
    chunk's analysis or on the source; None on a first use (score the counts directly) unless ``now``
    (a source located through its candidates: built on its first use)."""
    analysis = analysis_of(source)
    postings = analysis.postings
    if postings is None:
        entry = chunk_of(source)
        if entry is not None:  # one chunk: kept with its analysis
            postings = _chunk_postings(entry, now)
        else:
            uses = analysis.bm25_uses = analysis.bm25_uses + 1
            postings = build_postings(unit_counts(source)[0]) if now or uses >= POSTINGS_AFTER else None
        analysis.postings = postings
    return postings


def _chunk_postings(entry: ChunkAnalysis, now: bool = False) -> dict[str, list[tuple[int, int]]] | None:
    if entry.postings is None:  # two threads may both build it: the same value
        entry.uses += 1
        if entry.uses < POSTINGS_AFTER and not now:
            return None
        entry.postings = build_postings(entry.counts)
    return entry.postings


def _check_sources(sources: list[Source], by_number: dict[int, Source]) -> None:
    """Sources a citation could silently misquote: two with one number (every ``[n]`` would cite the
    last), or one whose segments are no longer its text (a copy or an assignment after validation)."""
    if len(by_number) != len(sources):
        numbers = [s.number for s in sources]
        twice = next(n for n in numbers if numbers.count(n) > 1)
        raise ArgumentError(
            f"sources: two sources are numbered {twice}; number them together (number_sources, or a "
            "CitationSession across calls) so that each [n] means one source"
        )
    for source in sources:
        problem = layout_problem(source)
        if problem:
            raise ArgumentError(f"sources: source {source.number}: {problem}")


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
        _check_sources(self.sources, self.by_number)
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
            counted = [unit_counts(s) for s in self.sources]
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
        scores: list[float] | dict[int, float] | None = None
        if IMAGE_KEY in source.metadata and units:  # an image: its caption stands for all of it
            sentences = (1, len(units))
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
            # best first, ties in unit order (the order the support of the top units is read in); a
            # unit left out of the scored candidates scores 0, as every unit without a claim term
            ranked = range(len(units)) if isinstance(scores, list) else list(scores)
            top = sorted(ranked, key=scores.__getitem__, reverse=True)[: self.source_units]
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
    ) -> tuple[int | None, int | None, list[float] | dict[int, float] | None]:
        if not units or not (claim.weights or dense):
            return None, None, None
        counts, lengths = unit_counts(source)
        text = source.text
        words: list[frozenset[str]] = []  # the claim's words, found on the first tie

        def verbatim(i: int) -> int:
            if not words:
                words.append(_words(claim_text))
            return len(words[0] & _words(text[units[i].start : units[i].end]))

        if dense is None and len(units) > MAX_CANDIDATES:  # a long source: its candidates only
            found = candidates(claim, _postings(source, now=True) or {})
            sparse = bm25_of(claim, counts, lengths, self.stats.avg_len, found)
            if not found or max(sparse.values()) <= 0:
                return None, None, sparse
            flags = fragment_flags(source, units)
            at = _pick([sparse[i] for i in found], [flags[i] for i in found], lambda j: verbatim(found[j]))
            keys = frozenset([term for term, _ in claim.weights])
            # a unit holds a claim term when its BM25 score is above 0 (every term adds idf > 0)
            first, last = self._extend(
                claim, text, units, counts, found[at], lambda i: not keys.isdisjoint(counts[i])
            )
            return first, last, sparse
        scores = lexical = bm25(claim, counts, lengths, self.stats.avg_len, _postings(source))
        if dense is not None:
            scores = mix_scores(lexical, dense)
        elif max(scores) <= 0:
            return None, None, scores
        best = _pick(scores, fragment_flags(source, units), verbatim)
        first, last = self._extend(claim, text, units, counts, best, lambda i: lexical[i] > 0)
        return first, last, scores

    @staticmethod
    def _extend(
        claim: ClaimTerms,
        text: str,
        units: list[Unit],
        counts: list[dict[str, int]],
        best: int,
        holds_term: Callable[[int], bool],
    ) -> tuple[int, int]:
        """The span of ``best`` with the neighbours that add ``EXTEND_GAIN`` of the claim's coverage."""
        first = last = best
        # a unit's term counts hold its distinct terms as keys: membership as in a set of its terms
        base = coverage(claim, counts[best].keys())
        for neighbour in (best - 1, best + 1):
            if (
                0 <= neighbour < len(units)
                # a neighbour without a claim term (BM25 0: every term adds idf > 0) adds no coverage: its
                # gain would be 0 (or an ulp off after an extension), below EXTEND_GAIN
                and (EXTEND_GAIN <= 0 or holds_term(neighbour))
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
        return first, last


FRAGMENT_WEIGHT = 0.8
"""A unit that is not a sentence (a line without end punctuation: headline, menu, list item, table row)
scores this share of its match, so a real sentence with the same words wins over it."""
TIE = 1e-9
"""Scores within this relative distance of the best are a tie."""


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
