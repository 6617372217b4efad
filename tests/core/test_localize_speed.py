"""The per-citation speed paths of localisation give what the code they replaced gave (issue 17).

Each test compares a fast path with the plain code it replaced (kept here as the reference), on generated
text that reaches the edge cases (capitals outside ASCII, numerals that are word characters, apostrophes
and hyphens inside words, quotes and list marks before a word).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Container, Sequence
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import clear_caches, number_sources, parse_answer
from cite_core._locate import localize as _localize
from cite_core._locate import scoring as _scoring
from cite_core._locate import span as _span
from cite_core._locate.scoring import (
    BM25_B,
    BM25_K1,
    SUPPORT_WEIGHTS,
    ClaimTerms,
    TermStats,
    bm25,
    build_postings,
    claim_names,
    support,
    support_features,
)
from cite_core._schema.events import char_location, text_block
from cite_core._schema.models import ContentBlockLocation, MarkerGroup, PageLocation, TextBlock
from cite_core._sources import analysis as _analysis
from cite_core._sources.analysis import source_units
from cite_core._sources.cache import CHUNK_CACHE_MAX_CHARS
from cite_core._sources.terms import _analyze
from cite_core._sources.unit_index import POSTINGS_AFTER
from tests.core.test_fast_paths import CLAIM_TERMS, _support_features_reference

NAME_PIECES = st.sampled_from(
    ["The", "Eiffel", "tower", "in", "Paris", ".", ",", ":", "“", "”", "‘", "'", "’", "-", "—", "(", "*", "#",
     "\n", "\t", " ", "  ", "3Com", "x_Y", "_Foo", "O’Brien", "d'Arc", "Ⅻ", "ǅ", "²B", "İstanbul", "Ölfus",
     "éFoo", "abcDef", "NASA", "中文", "Σ", "a-B", "--C", "'D", "9", "K9"]
)  # fmt: skip
NAME_TEXTS = st.lists(NAME_PIECES | st.text(max_size=4), max_size=24).map("".join)
NAME_TEXTS_SPACED = st.lists(NAME_PIECES | st.text(max_size=4), max_size=24).map(" ".join)

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_NAME_AFTER = frozenset(".!?:;\"“‘'(*#-\n")


def _reference_claim_names(text: str) -> set[str]:
    """``claim_names`` as it was: every word in turn, the text before it sliced and stripped."""
    names: set[str] = set()
    for m in _WORD.finditer(text):
        if not m.group()[0].isupper():
            continue
        before = text[: m.start()].rstrip(" \t")
        if before and before[-1] not in _NAME_AFTER:
            names.update(_analyze(m.group()))
    return names


@given(NAME_TEXTS | NAME_TEXTS_SPACED)
@example("The tower in Paris was built by Gustave Eiffel.")
@example("x 3Com and _Foo, a-B --C 'D éFoo abcDef Ⅻ ²B")
@example("said\t \tO’Brien of İstanbul (Ölfus) and ǅ")
def test_claim_names_equal_the_word_by_word_reference(text: str) -> None:
    assert claim_names(text) == _reference_claim_names(text)


def _reference_bm25(
    claim: ClaimTerms, counts: list[dict[str, int]], lengths: list[int], avg_len: float
) -> list[float]:
    """``bm25`` without postings as it was: the denominator computed whole for every shared term."""
    k1, b = BM25_K1, BM25_B
    scale = b / avg_len if avg_len else 0.0
    scores = []
    keys = frozenset([term for term, _ in claim.weights])
    for unit, length in zip(counts, lengths):
        score = 0.0
        if not keys.isdisjoint(unit):
            for term, idf in claim.weights:
                count = unit.get(term)
                if count is not None:
                    score += idf * count * (k1 + 1) / (count + k1 * (1 - b + scale * length))
        scores.append(score)
    return scores


UNIT_WORDS = st.lists(
    st.sampled_from(["sky", "blue", "grass", "green", "rain", "sun", "1932", "paris", "x", "y", "z", "w"]),
    max_size=12,
)


@given(st.lists(UNIT_WORDS, min_size=1, max_size=8), st.lists(UNIT_WORDS, max_size=4))
def test_bm25_equals_the_reference_to_the_last_bit(units: list[list[str]], claims: list[list[str]]) -> None:
    stats = TermStats.from_units(units)
    counts = [dict(Counter(u)) for u in units]
    lengths = [len(u) for u in units]
    for words in claims:
        claim = ClaimTerms.of(words, stats)
        expected = _reference_bm25(claim, counts, lengths, stats.avg_len)
        assert bm25(claim, counts, lengths, stats.avg_len) == expected
        assert bm25(claim, counts, lengths, stats.avg_len, build_postings(counts)) == expected


def _reference_support(
    claim: ClaimTerms, cited: Sequence[str], source: Container[str] | None = None
) -> float:
    """``support`` as it was: the weighted features summed by a generator (features of the reference)."""
    if not claim.terms:
        return 0.0
    bias, *weights = SUPPORT_WEIGHTS
    z = bias + sum(w * x for w, x in zip(weights, _support_features_reference(claim, cited, source)))
    return round(1.0 / (1.0 + math.exp(-z)), 4)


@given(CLAIM_TERMS, CLAIM_TERMS, CLAIM_TERMS, st.lists(CLAIM_TERMS, max_size=4), st.booleans())
def test_support_equals_the_reference(
    claim: list[str], cited: list[str], names: list[str], units: list[list[str]], with_source: bool
) -> None:
    stats = TermStats.from_units([claim, cited, *units])
    terms = ClaimTerms.of(claim, stats, names)
    source = set(cited).union(*units) if with_source else None
    for _ in range(2):  # the claim's parts built on the first call, read on the second
        assert support_features(terms, cited, source) == _support_features_reference(terms, cited, source)
        assert support(terms, cited, source) == _reference_support(terms, cited, source)


def _location(kind: str, index: int) -> Any:
    common = {"cited_text": "The sky.", "document_index": index, "reference": 1, "support": 0.5}
    if kind == "page":
        return PageLocation(**common, source_start=0, source_end=8, start_page_number=1, end_page_number=2)
    if kind == "block":
        return ContentBlockLocation(
            **common, source_start=0, source_end=8, start_block_index=0, end_block_index=1
        )
    return char_location("The sky.", index, "Nature", 1, 0.5, 3, 11, 100, 0)


@given(
    st.text(max_size=8),
    st.none()
    | st.lists(st.tuples(st.sampled_from(["char", "page", "block"]), st.integers(0, 3)), max_size=3),
    st.sampled_from(["", " [1]", " [1][2]"]),
)
def test_text_block_builder_equals_the_validated_block(
    text: str, kinds: list[tuple[str, int]] | None, marker_text: str
) -> None:
    citations = None if kinds is None else [_location(kind, index) for kind, index in kinds]
    groups = [MarkerGroup(numbers=[1], lead=" ")] if marker_text else []
    built = text_block(text, None if citations is None else list(citations), marker_text, list(groups))
    validated = TextBlock(text=text, citations=citations, marker_text=marker_text, marker_groups=groups)
    assert built == validated and type(built) is TextBlock
    assert built.__dict__ == validated.__dict__ and list(built.__dict__) == list(validated.__dict__)
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump_json() == validated.model_dump_json() and repr(built) == repr(validated)
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert built.to_anthropic() == validated.to_anthropic()


def test_a_long_document_is_analysed_once_however_often_it_is_cited(monkeypatch: pytest.MonkeyPatch) -> None:
    sentence = "The bridge over the river was opened in 1932 by the city council of Sydney. "
    filler = "Rain fell on the quiet hills during the long winter of that year. "
    text = (filler * (CHUNK_CACHE_MAX_CHARS // len(filler) + 1)) + sentence + filler * 20
    assert len(text) > CHUNK_CACHE_MAX_CHARS  # too long for the chunk cache: analysed, not kept
    answer = "The bridge was opened in 1932 [1]. " * (POSTINGS_AFTER + 2)
    clear_caches()
    expected = parse_answer(answer, number_sources([text]))  # every citation scored without postings
    analysed = []
    original = _analysis._analyse_segment
    monkeypatch.setattr(_analysis, "_analyse_segment", lambda *a: analysed.append(1) or original(*a))
    got = parse_answer(answer, number_sources([text]))
    assert len(analysed) == 1  # before: once more for every citation (its postings were looked up afresh)
    assert got == expected
    assert {c.cited_text for c in got.citations} == {sentence.strip()}


@given(st.lists(NAME_PIECES, min_size=1, max_size=20).map(" ".join).filter(str.strip), st.integers(1, 3))
def test_kept_fragment_flags_are_those_of_the_units(text: str, uses: int) -> None:
    for source in number_sources(
        [text, {"text": text, "document_id": "d"}, {"text": "x.", "document_id": "d"}]
    ):
        units = source_units(source)
        for _ in range(uses):
            assert _analysis.fragment_flags(source, units) == _analysis._fragments(source.text, units)


def _reference_claim_terms(terms: list[str], stats: TermStats) -> tuple[tuple[tuple[str, float], ...], float]:
    """``ClaimTerms.of``'s weights and total as they were: each term's idf computed, summed in a loop (the
    distinct terms in order of first occurrence, as ``TermTable.claim`` gives them)."""
    distinct = dict.fromkeys(terms)
    weights = tuple(zip(distinct, [stats._compute_idf(t) for t in distinct]))
    total = 0.0
    for _, value in weights:
        total += value
    return weights, total


CLAIM_WORDS = st.lists(
    st.sampled_from(["sky", "blue", "grass", "green", "rain", "sun", "1932", "x", "y", "z"])
)


@given(st.lists(CLAIM_WORDS, min_size=1, max_size=6), st.lists(CLAIM_WORDS, max_size=5), st.integers(1, 3))
def test_claim_terms_weights_and_total_equal_the_term_by_term_reference(
    units: list[list[str]], claims: list[list[str]], groups: int
) -> None:
    stats = TermStats.from_units(units)
    parts = [units[i::groups] for i in range(groups)]
    merged = TermStats.from_groups([[set(u) for u in p] for p in parts], [[len(u) for u in p] for p in parts])
    for table in (stats, merged):
        for claim in claims:  # later claims find some idfs (and frequencies) looked up already
            built = ClaimTerms.of(claim, table)
            weights, total = _reference_claim_terms(claim, table)
            assert built.weights == weights
            assert built.total == total  # to the last bit
            assert all(idf == table.idf(t) for t, idf in built.weights)


def _reference_span(
    text: str, claim: ClaimTerms, units: list[Any], counts: list[dict[str, int]], best: int
) -> tuple[int, int]:
    """The neighbours' extension as it was: every neighbour's coverage computed."""
    first = last = best
    base = _scoring.coverage(claim, counts[best].keys())
    for neighbour in (best - 1, best + 1):
        if (
            0 <= neighbour < len(units)
            and units[neighbour].segment == units[best].segment
            and "\n" not in text[units[min(best, neighbour)].end : units[max(best, neighbour)].start]
        ):
            lo, hi = min(first, neighbour), max(last, neighbour)
            gain = _scoring.coverage(claim, {t for c in counts[lo : hi + 1] for t in c}) - base
            if gain >= _span.EXTEND_GAIN:
                first, last, base = lo, hi, base + gain
    return first, last


SPAN_WORDS = st.lists(
    st.sampled_from(["sky", "blue", "grass", "green", "rain", "sun", "1932", "x", "y"]), max_size=6
)


@given(st.lists(SPAN_WORDS.map(lambda w: " ".join(w) + "."), min_size=1, max_size=7), SPAN_WORDS)
def test_the_cited_span_equals_the_one_every_neighbour_was_measured_for(
    sentences: list[str], claim: list[str]
) -> None:
    text = " ".join(s[0].upper() + s[1:] if s != "." else "Dot." for s in sentences)
    source = number_sources([text])[0]
    corpus = _localize.Corpus([source])
    terms = ClaimTerms.of(_analyze(" ".join(claim)), corpus.stats)
    units = source_units(source)
    first, last, scores = corpus._best(source, terms, units)
    if first is None or last is None or scores is None:
        return
    best = _span.pick(scores, _analysis._fragments(source.text, units))
    assert (first, last) == _reference_span(source.text, terms, units, _analysis.unit_counts(source)[0], best)
