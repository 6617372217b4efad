"""Lexical scoring of source sentences against a claim: BM25 over words and CJK character n-grams.

No model download: terms are lower-cased words with English/Spanish stop words removed and light
suffix stripping, plus character unigrams and bigrams for Chinese/Japanese runs.

``support`` says how well a cited text supports a claim, 0..1: a logistic function of six lexical
features (idf-weighted share of the claim's terms found, share of the claim's adjacent term pairs
found in order, share of the claim's numbers missing, claim length, unweighted share of the claim's
terms found, number of terms missing). Its weights were fitted on the dev half of AttributionBench only
(``python -m bench.eval.calibrate``). ``SUPPORT_THRESHOLD`` (the weak-support flag) and
``SUPPORTED_LEVEL`` were chosen across the dev halves of three datasets (``python -m bench.eval.flag
--calibrate``); the test halves measure them (docs/quality.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Literal

from ._stopwords import CJK_STOP, STOP, SUFFIXES
from ._text import CJK, CJK_RE

__all__ = [
    "ATTRIBUTION_THRESHOLD",
    "BM25_B",
    "BM25_K1",
    "SUPPORTED_LEVEL",
    "SUPPORT_THRESHOLD",
    "SUPPORT_WEIGHTS",
    "ClaimTerms",
    "SupportLevel",
    "TermStats",
    "analyze",
    "bm25",
    "build_postings",
    "coverage",
    "support",
    "support_features",
    "support_level",
]

BM25_K1 = 1.2
"""BM25 term-frequency saturation."""
BM25_B = 0.2
"""BM25 length normalisation (low: a sentence is not preferred for being short; chosen on WiCE dev)."""

SUPPORT_WEIGHTS = (-3.191, 0.677, 0.056, -0.895, 1.577, 2.241, -0.998)
"""Logistic weights of (bias, coverage, ordered pairs, missing numbers, log claim length, share of terms
found, log terms missing): ``support_features`` in order (``python -m bench.eval.calibrate``)."""
SUPPORT_THRESHOLD = 0.3156
"""A citation whose ``support`` is below this is flagged as weak support: the highest threshold that
flags at most 10% of the claims judged supported in every dev half (AttributionBench attributable,
WiCE supported, ExpertQA Complete), chosen holding one dataset out at a time
(``python -m bench.eval.flag --calibrate``)."""
SUPPORTED_LEVEL = 0.7241
"""At or above this, a citation's support level is "supported": at most 10% of the dev claims judged
not supported (AttributionBench, WiCE) score this high. Between the two thresholds it is "uncertain"."""
ATTRIBUTION_THRESHOLD = 0.493
"""The sentence-level support at which ``attribute()`` cites a source (balanced accuracy 0.795 on
AttributionBench dev, AUROC 0.853; the flag threshold was this before it was recalibrated)."""

SupportLevel = Literal["supported", "uncertain", "weak"]


def support_level(
    support: float, threshold: float = SUPPORT_THRESHOLD, confident: float | None = None
) -> SupportLevel:
    """The graded signal of a support score: "weak" below ``threshold`` (the flag), "supported" from
    ``confident`` up (default: ``SUPPORTED_LEVEL``, moved with ``threshold``), else "uncertain"."""
    if confident is None:
        confident = SUPPORTED_LEVEL + (threshold - SUPPORT_THRESHOLD)
    if support < threshold:
        return "weak"
    return "supported" if support >= confident else "uncertain"


_TOKEN = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+", re.UNICODE)  # "阿Q正传": 阿 | q | 正传
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")  # _TOKEN on lower-cased ASCII text
_CJK = CJK_RE

_STOP = STOP
_CJK_STOP = CJK_STOP
_SUFFIXES = SUFFIXES


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if len(word) <= 3 or not word.endswith(_SUFFIXES) or word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


def analyze(text: str) -> list[str]:
    """The terms of ``text`` used for matching (order kept, duplicates kept)."""
    return list(_analyze(text))


@lru_cache(maxsize=4096)
def _analyze(text: str) -> tuple[str, ...]:
    text = text.lower()
    terms: list[str] = []
    # ASCII text (most of it) has only [a-z0-9] words: a plain range class runs 1.7x faster than the
    # Unicode one and finds the same tokens
    for token in (_ASCII_TOKEN if text.isascii() else _TOKEN).findall(text):
        # every CJK range starts at U+3040: other words skip the regex call
        if token[0] >= "\u3040" and _CJK.match(token):
            chars = [c for c in token if c not in _CJK_STOP]
            terms.extend(chars)
            terms.extend(a + b for a, b in zip(token, token[1:]))
        elif token not in _STOP:
            terms.append(_stem(token))
    return tuple(terms)


@dataclass
class TermStats:
    """Document frequencies over a set of text units (sentences), for idf."""

    units: int
    df: Counter[str]
    avg_len: float
    parts: tuple[TermStats, ...] = ()
    """Statistics this one sums (document frequencies are looked up in each, on demand)."""
    idf_table: _IdfTable = field(init=False, repr=False, compare=False)
    """Idf per term, filled on lookup."""

    @classmethod
    def from_units(cls, units: Iterable[Sequence[str]]) -> TermStats:
        units = list(units)
        df = Counter(chain.from_iterable(map(set, units)))  # one counting pass in C
        total = sum(map(len, units))
        return cls(len(units), df, total / len(units) if units else 1.0)

    @classmethod
    def from_groups(
        cls, distinct: Sequence[Sequence[Iterable[str]]], lengths: Sequence[Sequence[int]]
    ) -> TermStats:
        """Statistics over several groups of units (one per source) at once, given each unit's distinct
        terms (a set, or the keys of its term counts) and its number of terms: the figures ``merge``
        gives over each group's ``from_units`` (the average length combined the same way, to the last
        bit), with document frequencies counted in one pass in C instead of summed per term on lookup."""
        count = sum(map(len, lengths))
        total: float
        if len(lengths) == 1:
            total = sum(lengths[0])
        else:
            total = sum(sum(g) / len(g) * len(g) for g in lengths if g)
        df = Counter(chain.from_iterable(chain.from_iterable(distinct)))
        return cls(count, df, total / count if count else 1.0)

    @classmethod
    def merge(cls, parts: Iterable[TermStats]) -> TermStats:
        """Statistics over the union of several sets of units (per-source statistics, summed lazily)."""
        parts = tuple(parts)
        if len(parts) == 1:
            return parts[0]
        count = sum(p.units for p in parts)
        total = sum(p.avg_len * p.units for p in parts)
        return cls(count, Counter(), total / count if count else 1.0, parts)

    def __post_init__(self) -> None:
        self.idf_table = _IdfTable(self)

    def idf(self, term: str) -> float:
        return self.idf_table[term]

    def _compute_idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        for part in self.parts:
            df += part.df.get(term, 0)
        return math.log(1.0 + (self.units - df + 0.5) / (df + 0.5))


class _IdfTable(dict[str, float]):
    """term -> idf, computed on first lookup: ``table[term]`` is then one dict lookup in C (the scoring
    loops look up idf about 25 times per citation)."""

    __slots__ = ("_stats",)

    def __init__(self, stats: TermStats) -> None:
        super().__init__()
        self._stats = stats

    def __missing__(self, term: str) -> float:
        value = self[term] = self._stats._compute_idf(term)
        return value


@dataclass(frozen=True)
class ClaimTerms:
    """A claim's terms as every scorer reads them, built once per claim: the terms in order, the
    (term, idf) pairs of its distinct terms in ``set(terms)`` order and the sum of those idfs. Every
    sum runs in this order, so BM25, coverage and support agree to the last bit wherever computed."""

    terms: tuple[str, ...]
    """The claim's terms (``analyze``), order and duplicates kept."""
    weights: tuple[tuple[str, float], ...]
    """(term, idf) of each distinct term."""
    total: float
    """The sum of the idfs, in ``weights`` order (not ``sum()``: Python 3.12 compensates)."""

    @classmethod
    def of(cls, terms: Sequence[str], stats: TermStats) -> ClaimTerms:
        """The claim terms of ``terms`` (already analysed) with idf from ``stats``."""
        idf = stats.idf_table
        weights = tuple((t, idf[t]) for t in set(terms))
        total = 0.0
        for _, value in weights:
            total += value
        return cls(tuple(terms), weights, total)


def bm25(
    claim: ClaimTerms,
    counts: Sequence[Mapping[str, int]],
    lengths: Sequence[int],
    avg_len: float,
    postings: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[float]:
    """BM25 score of each unit (its term counts and length) for the claim. With ``postings``
    (``build_postings`` of the counts) only the units holding a claim term are visited; without, each
    unit's counts are looked up (cheaper for units scored once). Each unit's sum runs over the claim's
    terms in their order either way, so both give the same scores to the last bit."""
    scale = b / avg_len if avg_len else 0.0
    k1_plus_1 = k1 + 1
    if postings is not None:
        scores = [0.0] * len(lengths)
        get_posting = postings.get
        for term, idf in claim.weights:
            posting = get_posting(term)
            if posting is not None:
                for index, f in posting:
                    scores[index] += idf * f * k1_plus_1 / (f + k1 * (1 - b + scale * lengths[index]))
        return scores
    scores = []
    for unit, length in zip(counts, lengths):
        score = 0.0
        get = unit.get
        for term, idf in claim.weights:
            count = get(term)
            if count is not None:
                score += idf * count * k1_plus_1 / (count + k1 * (1 - b + scale * length))
        scores.append(score)
    return scores


def build_postings(counts: Sequence[Mapping[str, int]]) -> dict[str, list[tuple[int, int]]]:
    """Term -> [(unit index, count)] over the units' term counts, in unit order."""
    postings: dict[str, list[tuple[int, int]]] = {}
    for index, unit in enumerate(counts):
        for term, count in unit.items():
            entry = postings.get(term)
            if entry is None:
                postings[term] = [(index, count)]
            else:
                entry.append((index, count))
    return postings


def coverage(claim: ClaimTerms, have: Container[str]) -> float:
    """Idf-weighted share of the claim's distinct terms found in ``have`` (a set of terms), 0..1."""
    if not claim.total:
        return 0.0
    found = 0.0
    for term, idf in claim.weights:
        if term in have:
            found += idf
    return found / claim.total


def support_features(claim: ClaimTerms, cited: Sequence[str]) -> tuple[float, ...]:
    """The features ``support`` weighs, for a claim and a cited text: (idf-weighted coverage, share of
    the claim's ordered term pairs found, share of its numbers missing, log of its number of distinct
    terms, unweighted share of its distinct terms found, log of one plus the number missing)."""
    have = set(cited)
    found_idf = 0.0
    found = 0
    for term, idf in claim.weights:  # coverage's loop, also counting the terms found
        if term in have:
            found_idf += idf
            found += 1
    total = claim.total
    cov = found_idf / total if total else 0.0
    terms = claim.terms
    pairs = set(zip(terms, terms[1:]))
    pair_share = len(pairs & set(zip(cited, cited[1:]))) / len(pairs) if pairs else cov
    numbers = {t for t in terms if t[:1].isdigit()}
    missing = len(numbers - have) / len(numbers) if numbers else 0.0
    distinct = len(claim.weights)
    share = found / distinct if distinct else 0.0
    return cov, pair_share, missing, math.log1p(distinct), share, math.log1p(distinct - found)


def support(claim: ClaimTerms, cited: Sequence[str]) -> float:
    """How well the cited terms support the claim's terms, 0..1 (calibrated; see ``SUPPORT_THRESHOLD``);
    0 for a claim without terms."""
    if not claim.terms:
        return 0.0
    bias, *weights = SUPPORT_WEIGHTS
    z = bias + sum(w * x for w, x in zip(weights, support_features(claim, cited)))
    return round(1.0 / (1.0 + math.exp(-z)), 4)
