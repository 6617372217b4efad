"""The compiled index of a source's units (``_native.UnitIndex``, native/src/scorer.rs) against the Python
reference: BM25 to the last bit (``scoring.bm25``) on random units and claims, what it refuses, pickling
of an analysed source, and a large index scored with the GIL released (``DETACH_MIN_TERMS``) from several
threads at once. Skipped where the extension is not built (it runs under CITE_PURE_PYTHON=1 too).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import pickle
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cite_core import number_sources, parse_answer
from cite_core._accel import native_module
from cite_core._locate.candidates import MAX_CANDIDATES
from cite_core._locate.localize import Corpus, _verbatim
from cite_core._locate.scorer import NativeScorer, PythonScorer
from cite_core._locate.scoring import BM25_B, BM25_K1, ClaimTerms, TermStats, bm25
from cite_core._sources.analysis import source_units
from cite_core._sources.term_analyser import counts_of
from cite_core._sources.unit_index import CountsIndex, index_of

NATIVE = native_module() or pytest.importorskip("cite_core._native")

TERMS = st.sampled_from(["grass", "green", "sky", "blue", "1932", "草", "绿色", "\U0001f600", "", "x" * 300])


def _index(units: list[list[str]]) -> object:
    n = len(units)
    counts = [counts_of(tuple(u)) for u in units]
    return NATIVE.UnitIndex(counts, [len(u) for u in units], [0] * n, [False] * max(0, n - 1), [False] * n)


@given(
    st.lists(st.lists(TERMS, max_size=12), min_size=1, max_size=15), st.lists(TERMS, min_size=1, max_size=8)
)
def test_rust_bm25_equals_python_bm25_to_the_last_bit(units: list[list[str]], claim: list[str]) -> None:
    stats = TermStats.from_units(units)
    terms = ClaimTerms.of(claim, stats)
    counts = [counts_of(tuple(u)) for u in units]
    expected = bm25(terms, counts, [len(u) for u in units], stats.avg_len)
    got = _index(units).bm25(terms.weights, stats.avg_len, BM25_K1, BM25_B)  # type: ignore[attr-defined]
    assert got == expected


def test_an_index_counts_its_units_and_terms_and_refuses_mismatched_lists() -> None:
    index = _index([["sky", "sky", "blue"], [], ["grass"]])
    assert len(index) == 3 and index.terms() == 4  # type: ignore[arg-type,attr-defined]
    with pytest.raises(ValueError, match="one count, length, segment and flag per unit"):
        NATIVE.UnitIndex([{"a": 1}], [1, 2], [0, 0], [False], [False, False])
    with pytest.raises(ValueError, match="one count, length, segment and flag per unit"):
        NATIVE.UnitIndex([{"a": 1}], [1], [], [], [False])
    with pytest.raises(TypeError):
        NATIVE.UnitIndex([{1: 1}], [1], [0], [], [False])
    with pytest.raises(OverflowError):
        NATIVE.UnitIndex([{"a": -1}], [1], [0], [], [False])


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
    assert index.native is not None and index.native.terms() >= NATIVE.DETACH_MIN_TERMS  # type: ignore[attr-defined]
    assert results == [expected] * 12
