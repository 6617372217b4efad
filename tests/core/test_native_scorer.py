"""The compiled index of a source's units (``_native.UnitIndex``, native/src/scorer.rs) against the Python
reference: BM25 and the support features to the last bit (``scoring.bm25``, ``scoring.support_features``)
on random units and claims, what it refuses, pickling
of an analysed source, and a large index scored with the GIL released (``DETACH_MIN_TERMS``) from several
threads at once. Skipped where the extension is not built (it runs under CITE_PURE_PYTHON=1 too).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import pickle
import threading
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cite_core import number_sources, parse_answer
from cite_core._accel import native_module
from cite_core._locate.candidates import MAX_CANDIDATES
from cite_core._locate.localize import Corpus, _verbatim
from cite_core._locate.scorer import NativeScorer, PythonScorer
from cite_core._locate.scoring import (
    BM25_B,
    BM25_K1,
    ClaimTerms,
    TermStats,
    bm25,
    support,
    support_features,
    support_of,
)
from cite_core._sources.analysis import source_units
from cite_core._sources.term_analyser import counts_of
from cite_core._sources.unit_index import CountsIndex, index_of

NATIVE = native_module() or pytest.importorskip("cite_core._native")

TERMS = st.sampled_from(
    ["grass", "green", "sky", "blue", "1932", "2", "²x", "٣", "Ⅳ", "草", "绿色", "\U0001f600", "x" * 300]
)


def _index(units: list[list[str]]) -> Any:
    n = len(units)
    return NATIVE.UnitIndex([tuple(u) for u in units], [0] * n, [False] * max(0, n - 1), [False] * n)


@given(
    st.lists(st.lists(TERMS, max_size=12), min_size=1, max_size=15), st.lists(TERMS, min_size=1, max_size=8)
)
def test_rust_bm25_equals_python_bm25_to_the_last_bit(units: list[list[str]], claim: list[str]) -> None:
    stats = TermStats.from_units(units)
    terms = ClaimTerms.of(claim, stats)
    counts = [counts_of(tuple(u)) for u in units]
    expected = bm25(terms, counts, [len(u) for u in units], stats.avg_len)
    got = _index(units).bm25(terms.weights, stats.avg_len, BM25_K1, BM25_B)
    assert got == expected


@given(
    st.lists(st.lists(TERMS, max_size=12), min_size=1, max_size=8),
    st.lists(TERMS, min_size=1, max_size=8),
    st.lists(TERMS, max_size=3),
    st.data(),
)
def test_rust_support_features_equal_python_ones_to_the_last_bit(
    units: list[list[str]], claim: list[str], names: list[str], data: st.DataObject
) -> None:
    stats = TermStats.from_units(units)
    terms = ClaimTerms.of(claim, stats, names)
    cited = data.draw(st.lists(st.integers(0, len(units) - 1), max_size=6))
    every = {t for u in units for t in u}
    expected = support_features(terms, [t for i in cited for t in units[i]], every)
    parts = NATIVE.ClaimParts(terms.weights, terms.terms)
    got = _index(units).features(parts, terms.weights, terms.total, terms.names, cited)
    assert tuple(got) == expected
    assert support_of(terms, got) == support(terms, [t for i in cited for t in units[i]], every)


def test_an_index_counts_its_units_and_terms_and_refuses_mismatched_lists() -> None:
    index = _index([["sky", "sky", "blue"], [], ["grass"]])
    assert len(index) == 3 and index.terms() == 4
    with pytest.raises(ValueError, match="one term tuple, segment and flag per unit"):
        NATIVE.UnitIndex([("a",)], [0, 0], [False], [False, False])
    with pytest.raises(ValueError, match="one term tuple, segment and flag per unit"):
        NATIVE.UnitIndex([("a",)], [0], [], [])
    with pytest.raises(TypeError):
        NATIVE.UnitIndex([(1,)], [0], [], [False])
    with pytest.raises(ValueError, match="a unit out of range"):
        index.features(NATIVE.ClaimParts((("sky", 1.0),), ("sky",)), (("sky", 1.0),), 1.0, (), [3])
    with pytest.raises(ValueError, match="a term without a weight"):
        NATIVE.ClaimParts((("sky", 1.0),), ("blue",))


def test_a_cited_source_pickles_without_its_compiled_index_and_cites_the_same_again() -> None:
    items = ["The grass is green. The sky is blue.", "Paris is the capital of France."]
    answer = "The sky is blue [1]. Paris [2]."
    sources = number_sources(items)
    first = parse_answer(answer, sources)
    copies = pickle.loads(pickle.dumps(sources))
    index = index_of(copies[0])
    assert isinstance(index, CountsIndex) and index.native is None  # built again on the next citation
    assert parse_answer(answer, copies) == first


def test_a_large_index_is_scored_with_the_gil_released_and_the_same_from_many_threads() -> None:
    # every unit holds the claim's terms: above DETACH_MIN_TERMS terms, scoring runs detached
    text = " ".join(
        f"The river bridge {i} opened in {1900 + i % 90} over stone hills." for i in range(12_000)
    )
    sources = number_sources([text])
    rust, python = NativeScorer(NATIVE), PythonScorer()
    corpus = Corpus(sources)
    claim = "The river bridge opened in 1932"
    terms = ClaimTerms.from_text(claim, corpus.stats)
    verbatim = _verbatim(claim, text, source_units(sources[0]))
    index = index_of(sources[0])
    assert sum(index.lengths) >= NATIVE.DETACH_MIN_TERMS
    expected = python.locate(index, terms, corpus.stats.avg_len, verbatim, MAX_CANDIDATES, 5)
    results: list[object] = []

    def work() -> None:
        for _ in range(3):
            results.append(rust.locate(index, terms, corpus.stats.avg_len, verbatim, MAX_CANDIDATES, 5))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert index.native is not None and index.native.terms() >= NATIVE.DETACH_MIN_TERMS
    assert results == [expected] * 12
