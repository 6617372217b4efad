"""A claim's support in one call (``_native.ClaimSupport``, native/src/claim_py.rs and logistic.rs) against
the Python reference (``scoring.support``, ``support_of``): the same float before rounding, to the last bit,
on random units and claims of either family; the logistic's sum against the running Python's ``sum()``
and against both of CPython's algorithms (one addition at a time before 3.12, Neumaier's from 3.12 on);
an ASCII claim's terms with their idfs in one call (``weighted_claim``) against ``ClaimTerms.of``; and a
claim located and supported in one call (``ClaimSupport.cite``) against ``scorer.located_support``.
Skipped where the extension is not built (it runs under CITE_PURE_PYTHON=1 too: both are called by name).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import math
import struct
from operator import mul
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import number_sources
from cite_core._accel import native_module
from cite_core._locate.candidates import MAX_CANDIDATES
from cite_core._locate.localize import Corpus, _verbatim
from cite_core._locate.scorer import NativeScorer, PythonScorer, located_support
from cite_core._locate.scoring import (
    _TABLE,
    SUM_COMPENSATES,
    SUPPORT_WEIGHTS,
    ClaimTerms,
    TermStats,
    _weighted_claim,
    claim_names,
    support,
    support_bias,
    support_features,
)
from cite_core._sources.analysis import source_terms, source_units
from cite_core._sources.term_analyser import NativeTermAnalyser
from cite_core._sources.terms import _analyze
from cite_core._sources.unit_index import index_of

NATIVE = native_module() or pytest.importorskip("cite_core._native")
SCORER = NativeScorer(NATIVE)

TERMS = st.sampled_from(
    ["grass", "green", "sky", "blue", "1932", "2", "²x", "٣", "草", "绿色", "日本", "\U0001f600", "x" * 300]
)
FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1e16, -1e16, 0.1, 1e-300]
)


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


def _index(units: list[list[str]]) -> Any:
    n = len(units)
    return NATIVE.UnitIndex([tuple(u) for u in units], [0] * n, [False] * max(0, n - 1), [False] * n)


def _logistic(claim: ClaimTerms, features: tuple[float, ...]) -> float:
    """``support_of`` before its rounding."""
    z = support_bias(claim) + sum(map(mul, SUPPORT_WEIGHTS[1:], features))
    return 1.0 / (1.0 + math.exp(-z))


@given(
    st.lists(st.lists(TERMS, max_size=12), min_size=1, max_size=8),
    st.lists(TERMS, min_size=1, max_size=10),
    st.lists(TERMS, max_size=3),
    st.data(),
)
def test_a_claims_support_in_one_call_is_the_references_to_the_last_bit(
    units: list[list[str]], claim: list[str], names: list[str], data: st.DataObject
) -> None:
    stats = TermStats.from_units(units)
    terms = ClaimTerms.of(claim, stats, names)
    cited = data.draw(st.lists(st.integers(0, len(units) - 1), max_size=6))
    every = {t for u in units for t in u}
    cited_terms = [t for i in cited for t in units[i]]
    native = SCORER._claim_support(terms)
    got = native.support(_index(units), cited)
    assert _bits(got) == _bits(_logistic(terms, support_features(terms, cited_terms, every)))
    assert round(got, 4) == support(terms, cited_terms, every)


def test_a_cjk_claim_reads_its_familys_bias() -> None:
    units = [["草", "绿色"], ["sky"]]
    terms = ClaimTerms.of(["草", "绿色", "日本"], TermStats.from_units(units))
    assert terms.family == "cjk" and support_bias(terms) != SUPPORT_WEIGHTS[0]
    got = SCORER._claim_support(terms).support(_index(units), [0])
    assert _bits(got) == _bits(_logistic(terms, support_features(terms, units[0], {"草", "绿色", "sky"})))


def _plain_sum(values: list[float]) -> float:
    total: Any = 0
    for x in values:
        total = total + x
    return float(total)


def _neumaier_sum(values: list[float]) -> float:
    """CPython 3.12's ``sum()`` of floats from the start value 0 (Python/bltinmodule.c), written out."""
    if not values:
        return 0.0
    total, c = 0 + values[0], 0.0
    for x in values[1:]:
        t = total + x
        if abs(total) >= abs(x):
            c += (total - t) + x
        else:
            c += (x - t) + total
        total = t
    if c and math.isfinite(c):
        total += c
    return total


def _same(a: float, b: float) -> bool:
    return _bits(a) == _bits(b) or (math.isnan(a) and math.isnan(b))


@given(st.lists(FLOATS, max_size=12))
@example([1e16, 1.0, -1e16])
@example([0.1] * 10)
@example([-0.0])
@example([1e308, 1e308, -1e308])
def test_the_compiled_sum_is_the_running_pythons_and_each_of_cpythons(values: list[float]) -> None:
    assert _same(NATIVE.python_float_sum(values, SUM_COMPENSATES), sum(values))
    assert _same(NATIVE.python_float_sum(values, False), _plain_sum(values))
    assert _same(NATIVE.python_float_sum(values, True), _neumaier_sum(values))


@given(st.floats(-50, 50), st.lists(st.floats(-10, 10), min_size=10, max_size=10))
def test_the_compiled_logistic_is_support_ofs(bias: float, features: list[float]) -> None:
    z = bias + sum(map(mul, SUPPORT_WEIGHTS[1:], features))
    expected = 1.0 / (1.0 + math.exp(-z))
    assert _bits(NATIVE.support_logistic(bias, SUPPORT_WEIGHTS[1:], features, SUM_COMPENSATES)) == _bits(
        expected
    )


def test_the_compiled_logistic_overflows_where_math_exp_does() -> None:
    with pytest.raises(OverflowError):
        math.exp(1000.0)
    with pytest.raises(OverflowError):
        NATIVE.support_logistic(-1000.0, [], [], SUM_COMPENSATES)
    assert NATIVE.support_logistic(1000.0, [], [], SUM_COMPENSATES) == 1.0


WORDS = st.sampled_from(
    [
        *"The bridges were opened in 1932 by Sydney's council; parties carried Relational uses".split(),
        *("bridge", "party", "carry", "use", "1932s", "Party"),  # words of one stem: one term, two objects
        ".",
        ",",
        "\n",
    ]
)
TABLE = _TABLE if _TABLE is not None else NativeTermAnalyser(NATIVE).table  # pure mode: a table of its own


@given(st.lists(WORDS, max_size=25).map(" ".join), st.lists(st.lists(WORDS, max_size=8), max_size=12))
@example("Parties parties carried, carried; 1932 1932 Sydney", [["parti", "1932"], ["sydney"]])
@example("", [])
def test_a_weighted_claim_in_one_call_is_claim_terms_of_its_analysis(
    text: str, units: list[list[str]]
) -> None:
    stats = TermStats.from_units([list(_analyze(" ".join(u))) for u in units])
    expected = ClaimTerms.of(_analyze(text), stats, claim_names(text))
    terms, weights, total, names, native = NATIVE.weighted_claim(
        TABLE, text, stats.df, stats.units, support_bias(expected), SUPPORT_WEIGHTS[1:], SUM_COMPENSATES
    )
    assert terms == expected.terms and frozenset(names) == expected.names
    assert [(t, _bits(i)) for t, i in weights] == [(t, _bits(i)) for t, i in expected.weights]
    assert _bits(total) == _bits(expected.total)
    assert expected.family == "latin"
    if _TABLE is not None:
        built = _weighted_claim(text, stats)
        assert built == expected and built.family == "latin"
        assert hash(built) == hash(expected) and repr(built) == repr(expected)
    index = _index(units or [[]])
    every = list(range(len(units or [[]])))
    assert _bits(native.support(index, every)) == _bits(SCORER._claim_support(expected).support(index, every))


@given(
    st.lists(st.lists(WORDS, max_size=8).map(" ".join), min_size=1, max_size=4), st.lists(WORDS, max_size=25)
)
@example(["Parties carried 1932.", "Sydney bridge"], ["parties", "Sydney", "bridges", "new", "1932"])
def test_a_weighted_claim_reads_the_summed_frequencies_by_id_as_by_text(
    texts: list[str], words: list[str]
) -> None:
    """Over sources the extension analysed, ``TermStats.df`` is the ``DocFreq`` summed in Rust: the
    compiled claim finds each term's frequency by its word-table id, ``ClaimTerms.of`` by its text."""
    stats = Corpus(number_sources([f"Start {t} end." for t in texts])).stats
    text = " ".join(words)
    expected = ClaimTerms.of(_analyze(text), stats, claim_names(text))
    got = ClaimTerms.from_text(text, stats)
    assert got == expected
    assert [_bits(i) for _, i in got.weights] == [_bits(i) for _, i in expected.weights]


def test_a_weighted_claim_leaves_other_text_to_python() -> None:
    stats = TermStats.from_units([["caf"]])
    assert NATIVE.weighted_claim(TABLE, "café", stats.df, 1, 0.0, SUPPORT_WEIGHTS[1:], False) is None
    assert ClaimTerms.from_text("café au lait", stats) == ClaimTerms.of(_analyze("café au lait"), stats)


LOCATE_WORDS = [
    *"sky blue grass green rain sun river bridge opened city 1932 Sydney council stone x y".split(),
    *("married", "marries", "parties", "party", "the", "of", "and", "café", "中文", "\U0001f600"),
]
PIECE = st.tuples(
    st.lists(st.sampled_from(LOCATE_WORDS), max_size=7).map(" ".join),
    st.sampled_from([". ", "\n", ", ", "。"]),
).map("".join)
TEXT = st.lists(PIECE, max_size=20).map("".join)
ASCII_CLAIM = st.lists(st.sampled_from([w for w in LOCATE_WORDS if w.isascii()]), max_size=8).map(" ".join)


@given(
    st.lists(TEXT, min_size=1, max_size=3),
    ASCII_CLAIM | st.lists(st.sampled_from(LOCATE_WORDS), max_size=8).map(" ".join),
    st.sampled_from(["text", "pages"]),
    st.sampled_from([1, 5]),
    st.sampled_from([MAX_CANDIDATES, 2]),
)
@example(["Sky blue. Grass green."], "sky blue grass", "text", 5, MAX_CANDIDATES)
@example(["Rain fell.", "The river rose."], "bridge opened", "pages", 5, MAX_CANDIDATES)  # nothing located
@example(["Sky."], "", "text", 5, MAX_CANDIDATES)  # a claim without terms
def test_located_and_supported_in_one_call_as_in_two(
    texts: list[str], claim: str, kind: str, top: int, long: int
) -> None:
    texts = [t if t.strip() else "." for t in texts]
    source = number_sources([{kind: texts} if kind == "pages" else " ".join(texts)])[0]
    corpus = Corpus([source])
    terms = corpus._claim(claim)
    assert "_native_support" in terms.__dict__ or _TABLE is None or not claim.isascii()
    index = index_of(source)
    verbatim = _verbatim(claim, source.text, source_units(source))
    args = (terms, corpus.stats.avg_len, verbatim, long, top, lambda: source_terms(source))
    expected = located_support(PythonScorer(), index, *args)
    assert SCORER.cite(index, *args) == expected
    assert "_native_support" in terms.__dict__  # the compiled call answered, whoever analysed the claim
    assert located_support(SCORER, index, *args) == expected  # the compiled scorer's two calls
