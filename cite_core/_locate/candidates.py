"""The units of a long source that a claim's BM25 scores are computed for: bounded per claim.

Scoring every unit of a source for every claim makes n claims against a source of n similar
sentences quadratic (3.7 times the time per doubling). A source of more than ``MAX_CANDIDATES`` units
is scored through its postings (term -> units, built once per source analysis and kept with it): the
claim's terms are taken rarest first (shortest posting), each adding the units that hold it, until
``MAX_CANDIDATES`` units are collected; only those are scored. Every unit sharing a term with the
claim is a candidate unless the cap is reached, and a unit sharing none scores 0 either way, so below
the cap the scores, the cited span and the support are those of scoring every unit; sources of at most
``MAX_CANDIDATES`` units are scored whole as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .scoring import BM25_B, BM25_K1, ClaimTerms

__all__ = ["MAX_CANDIDATES", "bm25_of", "candidates"]

MAX_CANDIDATES = 256
"""At most this many units of one source are scored per claim (sources of more units than this are
located through their postings)."""


def candidates(
    claim: ClaimTerms, postings: Mapping[str, Sequence[tuple[int, int]]], cap: int = MAX_CANDIDATES
) -> list[int]:
    """The indices, in unit order, of at most ``cap`` units holding a claim term, from the claim's
    rarest terms first (a term's units in unit order; the term that reaches the cap gives its first)."""
    found: dict[int, None] = {}
    postings_of = [p for p in map(postings.get, [t for t, _ in claim.weights]) if p]
    postings_of.sort(key=len)  # stable: terms of one frequency in the claim's weights order
    for posting in postings_of:
        for index, _ in posting:
            found[index] = None
            if len(found) >= cap:
                return sorted(found)
    return sorted(found)


def bm25_of(
    claim: ClaimTerms,
    counts: Sequence[Mapping[str, int]],
    lengths: Sequence[int],
    avg_len: float,
    indices: Sequence[int],
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> dict[int, float]:
    """``bm25``'s score of each unit of ``indices`` (in that order), the same to the last bit: each
    sum runs over the claim's terms in their order, with ``bm25``'s expression."""
    scale = b / avg_len if avg_len else 0.0
    k1_plus_1 = k1 + 1
    weights = claim.weights
    scores: dict[int, float] = {}
    for index in indices:
        get = counts[index].get
        norm = k1 * (1 - b + scale * lengths[index])
        score = 0.0
        for term, idf in weights:
            count = get(term)
            if count is not None:
                score += idf * count * k1_plus_1 / (count + norm)
        scores[index] = score
    return scores
