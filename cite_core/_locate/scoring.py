"""Lexical scoring of source sentences against a claim: BM25 over words and CJK character n-grams.

No model download: terms are lower-cased words with English/Spanish stop words removed and light
suffix stripping, plus character unigrams and bigrams for Chinese/Japanese runs.

``support`` says how well a cited text supports a claim, 0..1: a logistic function of ten lexical
features (``SUPPORT_FEATURES``: how much of the claim's terms, term pairs, numbers and rarest terms the
cited text holds, and whether the claim's names and numbers occur in the source at all). Its weights
and the thresholds of ``_support`` (the weak-support flag, the "supported" level) were fitted on the dev
halves of AttributionBench, WiCE and ExpertQA and checked holding one dataset out at a time
(``python -m bench.eval.calibrate``); the test halves measure them (docs/quality.md).
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import chain, islice, repeat
from operator import add, itemgetter, mul

from .._accel import NATIVE
from .._exceptions import NativeError
from .._sources.families import FAMILY_BIAS, Family, claim_family
from .._sources.term_analyser import TERM_ANALYSER
from .._sources.terms import _analyze
from .._sources.unit_index import build_postings

__all__ = [
    "BM25_B",
    "BM25_K1",
    "SUM_COMPENSATES",
    "SUPPORT_FEATURES",
    "SUPPORT_WEIGHTS",
    "ClaimTerms",
    "TermStats",
    "bm25",
    "build_postings",
    "claim_names",
    "coverage",
    "support",
    "support_bias",
    "support_features",
    "support_of",
]

BM25_K1 = 1.2
"""BM25 term-frequency saturation."""
BM25_B = 0.2
"""BM25 length normalisation (low: a sentence is not preferred for being short; chosen on WiCE dev)."""

SUPPORT_FEATURES = (
    "coverage",
    "ordered_pairs",
    "numbers_missing",
    "log_claim_terms",
    "share_found",
    "log_terms_missing",
    "rare_terms_missing",
    "names_absent_from_source",
    "numbers_absent_from_source",
    "has_names",
)
"""What ``support_features`` returns, in order: idf-weighted share of the claim's distinct terms in the
cited text; share of its adjacent term pairs found in order; share of its numbers missing from the
cited text; log(1 + distinct terms); unweighted share found; log(1 + terms missing); share of its
rarest third of terms (by idf) missing; share of its names (``claim_names``) and of its numbers found
nowhere in the source; whether it names anything."""
SUPPORT_WEIGHTS = (-0.450, 0.949, 0.732, 0.431, 0.565, 1.038, -0.132, -0.700, -1.769, -0.556, -0.700)
"""Logistic weights of (bias, *SUPPORT_FEATURES) (``python -m bench.eval.calibrate``)."""
SUM_COMPENSATES = sys.version_info >= (3, 12)
"""Whether ``sum()`` of floats compensates (Neumaier's, from CPython 3.12 on): the compiled logistic adds
the weighted features as the running ``sum()`` does (native/src/logistic.rs)."""
_LATIN_BIAS = SUPPORT_WEIGHTS[0] + FAMILY_BIAS["latin"]
"""``support_bias`` of a claim of the Latin family (every ASCII claim)."""


@dataclass
class TermStats:
    """Document frequencies over a set of text units (sentences), for idf."""

    units: int
    df: Mapping[str, int]
    """Term -> the number of units holding it, read with ``get`` (a ``Counter``; summed in Rust, a
    ``_native.DocFreq``, when the extension analysed every chunk: ``from_frequencies``)."""
    avg_len: float
    idf_table: _IdfTable = field(init=False, repr=False, compare=False)
    """Idf per term, filled on lookup."""
    idf_by_df: _IdfByDf = field(init=False, repr=False, compare=False)
    """Idf per document frequency, filled on lookup (the idf of a term is that of its frequency, and
    the few frequencies a corpus's claims meet are computed once)."""

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
        terms (a set, or the keys of its term counts) and its number of terms (the average length is
        each group's average weighted by its size), document frequencies counted in one pass."""
        df = Counter(chain.from_iterable(chain.from_iterable(distinct)))
        return cls.from_frequencies(df, lengths)

    @classmethod
    def from_frequencies(cls, df: Mapping[str, int], lengths: Sequence[Sequence[int]]) -> TermStats:
        """Statistics given the document frequencies over several groups of units (one per source) and
        each unit's number of terms (the average length is each group's average weighted by its size)."""
        count = sum(map(len, lengths))
        total: float
        if len(lengths) == 1:
            total = sum(lengths[0])
        else:
            total = sum(sum(g) / len(g) * len(g) for g in lengths if g)
        return cls(count, df, total / count if count else 1.0)

    def __post_init__(self) -> None:
        self.idf_by_df = _IdfByDf(self.units)
        self.idf_table = _IdfTable(self.df, self.idf_by_df)

    def idf(self, term: str) -> float:
        return self.idf_table[term]

    def _compute_idf(self, term: str) -> float:
        return self.idf_by_df[self.df.get(term, 0)]


class _IdfTable(dict[str, float]):
    """term -> idf, computed on first lookup: ``table[term]`` is then one dict lookup in C (the scoring
    loops look up idf about 25 times per citation)."""

    __slots__ = ("_by_df", "_df")

    def __init__(self, df: Mapping[str, int], by_df: _IdfByDf) -> None:
        # the frequencies and the per-frequency table, not the ``TermStats``: holding it made each
        # corpus's statistics a reference cycle, freed only by the garbage collector
        super().__init__()
        self._df = df
        self._by_df = by_df

    def __missing__(self, term: str) -> float:
        value = self[term] = self._by_df[self._df.get(term, 0)]
        return value


class _IdfByDf(dict[int, float]):
    """document frequency -> idf over ``units`` units, computed on first lookup: the one idf formula
    (``_IdfTable`` and ``TermStats._compute_idf`` read it)."""

    __slots__ = ("_units",)

    def __init__(self, units: int) -> None:
        super().__init__()
        self._units = units

    def __missing__(self, df: int) -> float:
        value = self[df] = math.log(1.0 + (self._units - df + 0.5) / (df + 0.5))
        return value


@dataclass(frozen=True)
class ClaimTerms:
    """A claim's terms as every scorer reads them, built once per claim: the terms in order, the
    (term, idf) pairs of its distinct terms in order of first occurrence and the sum of those idfs. Every
    sum runs in this order, so BM25, coverage and support agree to the last bit wherever computed."""

    terms: tuple[str, ...]
    """The claim's terms (``analyze``), order and duplicates kept."""
    weights: tuple[tuple[str, float], ...]
    """(term, idf) of each distinct term."""
    total: float
    """The sum of the idfs, in ``weights`` order (not ``sum()``: Python 3.12 compensates)."""
    names: frozenset[str] = frozenset()
    """The terms of the claim's names: capitalised words inside a sentence (``claim_names``)."""

    @classmethod
    def of(
        cls,
        terms: Sequence[str],
        stats: TermStats,
        names: Iterable[str] = (),
        distinct: Sequence[str] | None = None,
    ) -> ClaimTerms:
        """The claim terms of ``terms`` (already analysed; ``distinct``: its distinct terms in order of
        first occurrence, when known) with idf from ``stats``."""
        if distinct is None:
            distinct = tuple(dict.fromkeys(terms))
        # each term's frequency, then its idf, looked up in C (a Python call per new frequency only)
        idfs = list(map(stats.idf_by_df.__getitem__, map(stats.df.get, distinct, repeat(0))))
        # summed in order from 0.0 one addition at a time (not sum(): Python 3.12
        # compensates), in C
        return cls(tuple(terms), tuple(zip(distinct, idfs)), reduce(add, idfs, 0.0), frozenset(names))

    @classmethod
    def from_text(cls, text: str, stats: TermStats) -> ClaimTerms:
        """The claim terms of a claim's text (analysed in one call: ``TERM_ANALYSER.claim``), with its
        names; an ASCII claim with its idfs in the same call when the extension is built."""
        # the compiled call reads the frequencies as a plain dict does (not through an overridden get)
        if _TABLE is not None and text.isascii() and type(stats.df) in _PLAIN and type(stats.units) is int:
            claim = _weighted_claim(text, stats)
            if claim is not None:
                return claim
        terms, distinct, names = TERM_ANALYSER.claim(text)
        return cls.of(terms, stats, claim_names(text) if names is None else names, distinct)

    @property
    def family(self) -> Family:
        """The claim's language family (``claim_family``: its bias in ``support``), found once."""
        family: Family | None = self.__dict__.get("_family")
        if family is None:
            family = self.__dict__["_family"] = claim_family(self.terms)
        return family

    def support_parts(self) -> tuple[frozenset[tuple[str, str]], frozenset[str], tuple[str, ...]]:
        """What ``support_features`` reads of the claim alone, built on the first call and kept: the
        adjacent term pairs, the numbers, and the rarest third of the distinct terms (highest idf
        first, ties by term)."""
        parts = self.__dict__.get("_support_parts")
        if parts is None:
            terms = self.terms
            rare = sorted(self.weights, key=itemgetter(0))
            rare.sort(key=itemgetter(1), reverse=True)  # stable: the order of (-idf, term)
            parts = self.__dict__["_support_parts"] = (
                frozenset(zip(terms, terms[1:])),
                frozenset([t for t in terms if t[:1].isdigit()]),
                tuple([t for t, _ in rare[: max(1, len(rare) // 3)]]),
            )
        return parts


_PLAIN: tuple[type, ...] = (dict, Counter) if NATIVE is None else (dict, Counter, NATIVE.DocFreq)
"""Mappings the compiled claim analysis reads frequencies from as their own ``get`` does: ``dict.get``,
and the ``DocFreq`` summed in Rust when the extension analysed every chunk (``from_frequencies``)."""
_TABLE = getattr(TERM_ANALYSER, "table", None)
"""The extension's word table when it is in use (None under ``CITE_PURE_PYTHON=1``)."""


def _weighted_claim(text: str, stats: TermStats) -> ClaimTerms | None:
    """``ClaimTerms.of`` the terms and names of an ASCII claim (``TermTable.claim``), in one call to the
    extension (``weighted_claim``, native/src/claim_py.rs): the idfs from ``stats``' document frequencies
    by ``_IdfByDf``'s formula and summed as ``of`` sums them, and the claim's ``ClaimSupport`` (kept for
    ``NativeScorer.support``); an ASCII claim is of the Latin family. None for a text Python analyses."""
    try:
        found = NATIVE.weighted_claim(  # type: ignore[union-attr]
            _TABLE, text, stats.df, stats.units, _LATIN_BIAS, SUPPORT_WEIGHTS[1:], SUM_COMPENSATES
        )
    except NATIVE.PanicException as exc:  # type: ignore[union-attr]
        raise NativeError(
            f"the compiled claim analysis failed ({exc}); CITE_PURE_PYTHON=1 avoids it"
        ) from exc
    if found is None:
        return None
    terms, weights, total, names, native = found
    # the frozen dataclass's __init__ sets each field through object.__setattr__: its __dict__ is
    # filled at once instead, the fields in their order (so equality, hash and repr are __init__'s)
    claim = _new_claim(ClaimTerms)
    claim.__dict__.update(
        terms=terms,
        weights=weights,
        total=total,
        names=frozenset(names),
        _family="latin",
        _native_support=native,  # read by NativeScorer.support
    )
    return claim


_new_claim = object.__new__


_NAME_AFTER = frozenset(".!?:;\"“‘'(*#-\n")
"""A capitalised word right after one of these (or first in the text) starts a sentence or list item,
so its capital says nothing."""
_CAPITAL = re.compile(r"[A-Z\x80-\U0010ffff]")
"""Where a name can start: an ASCII capital or any character outside ASCII (checked with ``isupper``)."""
_WORD_REST = re.compile(r"[\w'’-]*")
_NOT_LETTERS = "_'’-"
"""With the decimal digits, the characters of a word (``[\\w'’-]``) that are not letters."""


def claim_names(text: str) -> set[str]:
    """The terms of the names in a claim: words that start with a capital letter anywhere but at the
    start of a sentence, a line or a quotation ("the Eiffel Tower in Paris" gives eiffel, tower, paris).

    A word is a run of letters, digits, ``_ ' ’ -`` from its first letter (``[^\\W\\d_][\\w'’-]*`` scanned
    along the text): only the capitals are visited, and one starts a word when no letter comes before
    it in its run."""
    names: set[str] = set()
    for m in _CAPITAL.finditer(text):
        at = m.start()
        char = text[at]
        if not (char.isupper() and char.isalnum()):
            continue
        i = at - 1
        while i >= 0 and (text[i] in _NOT_LETTERS or text[i].isdecimal()):
            i -= 1
        if i >= 0 and text[i].isalnum():
            continue  # a capital inside a word ("iPhone", "McDonald")
        i = at - 1
        while i >= 0 and text[i] in " \t":
            i -= 1
        if i >= 0 and text[i] not in _NAME_AFTER:
            names.update(_analyze(_WORD_REST.match(text, at).group()))  # type: ignore[union-attr]
    return names


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
    weights = claim.weights
    keys = frozenset([term for term, _ in weights])
    for unit, length in zip(counts, lengths):
        score = 0.0
        if not keys.isdisjoint(unit):  # most units share no claim term: 0.0 without the loop, in C
            get = unit.get
            norm = k1 * (1 - b + scale * length)  # the denominator is ``count + norm`` as before
            for term, idf in weights:
                count = get(term)
                if count is not None:
                    score += idf * count * k1_plus_1 / (count + norm)
        scores.append(score)
    return scores


def coverage(claim: ClaimTerms, have: Container[str]) -> float:
    """Idf-weighted share of the claim's distinct terms found in ``have`` (a set of terms), 0..1."""
    if not claim.total:
        return 0.0
    found = 0.0
    for term, idf in claim.weights:
        if term in have:
            found += idf
    return found / claim.total


def support_features(
    claim: ClaimTerms, cited: Sequence[str], source: Container[str] | None = None
) -> tuple[float, ...]:
    """The features ``support`` weighs (``SUPPORT_FEATURES``), for a claim, a cited text and the terms
    of the whole source (default: the cited text's)."""
    have = set(cited)
    if source is None:
        source = have
    found_idf = 0.0
    found = 0
    for term, idf in claim.weights:  # coverage's loop, also counting the terms found
        if term in have:
            found_idf += idf
            found += 1
    total = claim.total
    cov = found_idf / total if total else 0.0
    pairs, numbers, rare = claim.support_parts()
    # the claim's pairs found among the cited text's adjacent pairs (no set of those is built)
    pair_share = len(pairs.intersection(zip(cited, islice(cited, 1, None)))) / len(pairs) if pairs else cov
    missing = len(numbers - have) / len(numbers) if numbers else 0.0
    distinct = len(claim.weights)
    share = found / distinct if distinct else 0.0
    rare_missing = sum(t not in have for t in rare) / len(rare) if rare else 0.0
    names = claim.names
    names_absent = sum(t not in source for t in names) / len(names) if names else 0.0
    numbers_absent = sum(t not in source for t in numbers) / len(numbers) if numbers else 0.0
    return (
        cov,
        pair_share,
        missing,
        math.log1p(distinct),
        share,
        math.log1p(distinct - found),
        rare_missing,
        names_absent,
        numbers_absent,
        1.0 if names else 0.0,
    )


def support(claim: ClaimTerms, cited: Sequence[str], source: Container[str] | None = None) -> float:
    """How well the cited terms support the claim's terms, 0..1 (calibrated; thresholds in ``_support``);
    0 for a claim without terms. ``source``: the terms of the whole cited source (names and numbers
    of the claim found nowhere in it count against it). A claim's language family adds its bias
    (``FAMILY_BIAS``: Chinese and Japanese claims are calibrated apart)."""
    if not claim.terms:
        return 0.0
    return support_of(claim, support_features(claim, cited, source))


def support_bias(claim: ClaimTerms) -> float:
    """The logistic's bias for this claim: ``SUPPORT_WEIGHTS[0]`` plus its family's (``FAMILY_BIAS``)."""
    return SUPPORT_WEIGHTS[0] + FAMILY_BIAS[claim.family]


def support_of(claim: ClaimTerms, features: Iterable[float]) -> float:
    """``support`` from the claim's ``support_features`` (computed here or by the compiled scorer, whose
    ``ClaimSupport.support`` computes the same logistic)."""
    # the products summed by sum() in weight order, so every scorer adds them in the same order
    z = support_bias(claim) + sum(map(mul, islice(SUPPORT_WEIGHTS, 1, None), features))
    return round(1.0 / (1.0 + math.exp(-z)), 4)
