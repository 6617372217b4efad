"""Lexical scoring of source sentences against a claim: BM25 over words and CJK character n-grams.

No model download: terms are lower-cased words with English/Spanish stop words removed and light
suffix stripping, plus character unigrams and bigrams for Chinese/Japanese runs. ``support`` is the
idf-weighted share of the claim's terms found in the cited text (0..1).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["TermStats", "analyze", "bm25_scores", "support"]

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

_STOP = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have he her his how i
    if in into is it its itself me my of on or our she so such than that the their them then there these
    they this those to was we were what when where which while who whom why will with would you your
    also about after again all any because before both each few further more most other over own same
    some just only not no nor very s t don should now may might must shall upon per via yes
    el la los las lo un una unos unas y o u e de del al a en con por para que se su sus es son fue fueron
    como más mas pero sin sobre entre ya le les me mi mis te tu tus nos este esta estos estas ese esa esos
    esas aquel aquella ha han he hay ser era eran sido muy también tambien cuando donde quien quienes cual
    cuales porque si no ni desde hasta""".split()
)
_CJK_STOP = frozenset("的了是在和也就都而及与着或之于")
_SUFFIXES = ("ational", "ization", "fulness", "ousness", "iveness", "mente", "ciones", "amiento", "imiento",
             "ation", "ition", "ción", "sión", "ments", "ment", "ness", "ings", "ing", "edly", "ies", "ied",
             "ed", "es", "ly", "s")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if word.isdigit() or len(word) <= 3:
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


def analyze(text: str) -> list[str]:
    """The terms of ``text`` used for matching (order kept, duplicates kept)."""
    terms: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if _CJK.match(token):
            chars = [c for c in token if c not in _CJK_STOP]
            terms.extend(chars)
            terms.extend(a + b for a, b in zip(token, token[1:]))
        elif token not in _STOP:
            terms.append(_stem(token))
    return terms


@dataclass
class TermStats:
    """Document frequencies over a set of text units (sentences), for idf."""

    units: int
    df: Counter[str]
    avg_len: float

    @classmethod
    def from_units(cls, units: Iterable[Sequence[str]]) -> TermStats:
        df: Counter[str] = Counter()
        count = total = 0
        for terms in units:
            count += 1
            total += len(terms)
            df.update(set(terms))
        return cls(count, df, total / count if count else 1.0)

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        return math.log(1.0 + (self.units - df + 0.5) / (df + 0.5))


def bm25_scores(
    claim: Sequence[str], units: Sequence[Sequence[str]], stats: TermStats, *, k1: float = 1.2, b: float = 0.75
) -> list[float]:
    """BM25 score of each unit for the claim's terms."""
    query = {t: stats.idf(t) for t in set(claim)}
    scores = []
    for terms in units:
        if not terms:
            scores.append(0.0)
            continue
        tf = Counter(t for t in terms if t in query)
        norm = k1 * (1 - b + b * len(terms) / stats.avg_len)
        scores.append(sum(query[t] * f * (k1 + 1) / (f + norm) for t, f in tf.items()))
    return scores


def support(claim: Sequence[str], cited: Sequence[str], stats: TermStats) -> float:
    """Idf-weighted share of the claim's distinct terms that occur in the cited text (0..1)."""
    wanted = set(claim)
    if not wanted:
        return 0.0
    have = set(cited)
    total = sum(stats.idf(t) for t in wanted)
    found = sum(stats.idf(t) for t in wanted if t in have)
    return round(found / total, 4) if total else 0.0
