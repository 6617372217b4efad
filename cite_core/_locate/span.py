"""The span of a source that a claim cites, from the scores of its units: the Python reference of the
scorer's ``locate`` (``scorer.py``; its Rust twin is ``native/src/scorer.rs``, which returns the same
spans to the last bit: tests/core/test_native_locate.py).

BM25 scores every unit of the source (a source of more than ``long`` units: its candidates only,
``candidates.py``), ``pick`` takes the best (a fragment weighs ``FRAGMENT_WEIGHT``; ties go to a sentence,
then to the unit holding more of the claim's words as written), ``extend`` adds the neighbours that add
``EXTEND_GAIN`` of the claim's coverage, and ``top_units`` gives the best units read together for support.
"""

from __future__ import annotations

from collections.abc import Callable

from .._sources.unit_index import CountsIndex
from .candidates import MAX_CANDIDATES, bm25_of, candidates
from .hybrid import mix_scores
from .scoring import ClaimTerms, bm25, coverage

__all__ = [
    "EXTEND_GAIN",
    "FRAGMENT_WEIGHT",
    "TIE",
    "Located",
    "best_span",
    "extend",
    "locate",
    "pick",
    "top_units",
]

EXTEND_GAIN = 0.2
"""Extend the best sentence with a neighbour when that adds this much coverage of the claim (0..1)."""
FRAGMENT_WEIGHT = 0.8
"""A unit that is not a sentence (a line without end punctuation: headline, menu, list item, table row)
scores this share of its match, so a real sentence with the same words wins over it."""
TIE = 1e-9
"""Scores within this relative distance of the best are a tie."""

Scores = list[float] | dict[int, float]
Located = tuple[int | None, int | None, list[int] | None]
"""The first and last unit of the cited span (None: nothing matches), and the best units in unit order
(``top_units``; None when the claim has no term or the source no unit)."""
Verbatim = Callable[[int], int]


def locate(
    index: CountsIndex, claim: ClaimTerms, avg_len: float, verbatim: Verbatim, long: int, top: int
) -> Located:
    """The span ``claim`` cites in the units of ``index`` and its ``top`` best units (``avg_len``: the
    corpus's average unit length; ``verbatim(i)``: how many of the claim's words unit ``i`` holds as
    written, asked on ties only; ``long``: sources of more units are scored through their candidates,
    at most ``candidates.MAX_CANDIDATES``)."""
    first, last, scores = best_span(index, claim, avg_len, None, verbatim, long)
    return first, last, None if scores is None else top_units(scores, top)


def best_span(
    index: CountsIndex,
    claim: ClaimTerms,
    avg_len: float,
    dense: list[float] | None = None,
    verbatim: Verbatim | None = None,
    long: int = MAX_CANDIDATES,
) -> tuple[int | None, int | None, Scores | None]:
    """The cited span and the scores it was picked from (with ``dense``: mixed with those cosines)."""
    counts, lengths = index.counts, index.lengths
    if not counts or not (claim.weights or dense):
        return None, None, None
    if dense is None and len(counts) > long:  # a long source: its candidates only
        found = candidates(claim, index.postings(now=True) or {})
        sparse = bm25_of(claim, counts, lengths, avg_len, found)
        if not found or max(sparse.values()) <= 0:
            return None, None, sparse
        fragments = index.fragments
        at = pick(
            [sparse[i] for i in found],
            [fragments[i] for i in found],
            None if verbatim is None else lambda j: verbatim(found[j]),
        )
        keys = frozenset([term for term, _ in claim.weights])
        # a unit holds a claim term when its BM25 score is above 0 (every term adds idf > 0)
        first, last = extend(claim, index, found[at], lambda i: not keys.isdisjoint(counts[i]))
        return first, last, sparse
    scores = lexical = bm25(claim, counts, lengths, avg_len, index.postings())
    if dense is not None:
        scores = mix_scores(lexical, dense)
    elif max(scores) <= 0:
        return None, None, scores
    best = pick(scores, index.fragments, verbatim)
    first, last = extend(claim, index, best, lambda i: lexical[i] > 0)
    return first, last, scores


def top_units(scores: Scores, n: int) -> list[int]:
    """The ``n`` best units by score, ties in unit order, those scoring above 0, in unit order (a unit
    left out of the scored candidates scores 0, as every unit without a claim term)."""
    ranked = range(len(scores)) if isinstance(scores, list) else list(scores)
    top = sorted(ranked, key=scores.__getitem__, reverse=True)[:n]  # stable: ties keep unit order
    return [i for i in sorted(top) if scores[i] > 0]


def extend(
    claim: ClaimTerms, index: CountsIndex, best: int, holds_term: Callable[[int], bool]
) -> tuple[int, int]:
    """The span of ``best`` with the neighbours that add ``EXTEND_GAIN`` of the claim's coverage."""
    counts, units = index.counts, index.units
    first = last = best
    # a unit's term counts hold its distinct terms as keys: membership as in a set of its terms
    base = coverage(claim, counts[best].keys())
    for neighbour in (best - 1, best + 1):
        if (
            0 <= neighbour < len(counts)
            # a neighbour without a claim term (BM25 0: every term adds idf > 0) adds no coverage: its
            # gain would be 0 (or an ulp off after an extension), below EXTEND_GAIN
            and (EXTEND_GAIN <= 0 or holds_term(neighbour))
            and units[neighbour].segment == units[best].segment
            and not index.line_between(min(best, neighbour), max(best, neighbour))
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


def pick(scores: list[float], fragments: list[bool], verbatim: Verbatim | None = None) -> int:
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
