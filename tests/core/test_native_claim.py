"""A claim's terms in one call (``TermTable.claim``, native/src/py_scorer.rs) against the Python reference
(``terms._analyze``, its distinct terms in order of first occurrence): the same terms for ASCII claims,
None (Python analyses it) for any other text. Skipped where the extension is not built (it runs under
CITE_PURE_PYTHON=1 too: both are called by name).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core._accel import native_module
from cite_core._locate.scoring import ClaimTerms, TermStats, claim_names
from cite_core._sources.term_analyser import NativeTermAnalyser, PythonTermAnalyser
from cite_core._sources.terms import _analyze

NATIVE = native_module() or pytest.importorskip("cite_core._native")
RUST = NativeTermAnalyser(NATIVE)
PYTHON = PythonTermAnalyser()

PIECES = [
    *"The bridges were opened in 1932 by Sydney's council; parties carried relational running uses".split(),
    *(
        "THE",
        "Ñandú",
        "café",
        "naïve",
        "ΣΟΦΙΑΣ",
        "中文",
        "日本語",
        "\U0001f600",
        "—",
        "“q”",
        "_",
        "x_y",
        "a-b",
    ),
    *(" ", "  ", "\t", "\n", ".", ",", "'", "0", "123abc", "e.g.", "\x1c", "\x7f", "\x00"),
]
CLAIM = st.lists(st.sampled_from(PIECES), max_size=20).map(" ".join)


def _expected(text: str) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
    terms = _analyze(text)
    return terms, tuple(dict.fromkeys(terms)), frozenset(claim_names(text))


def _rust(found: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...] | None] | None) -> object:
    if found is None:
        return None
    terms, distinct, names = found
    assert names is not None and len(set(names)) == len(names)
    return terms, distinct, frozenset(names)


@given(CLAIM)
@example("")
@example("The the THE")
@example("Parties parties carried, carried; 1932 1932")
@example("Ñandú runs")
@example("x" * 10_000)
def test_rust_analyses_a_claim_as_python(text: str) -> None:
    terms, distinct, _ = PYTHON.claim(text)
    assert RUST.claim(text)[:2] == (terms, distinct) == _expected(text)[:2]
    found = NATIVE_TABLE.claim(text)
    if text.isascii():
        assert _rust(found) == _expected(text)
    else:
        assert found is None  # the Python reference analyses it


@given(st.text(max_size=80))
def test_rust_analyses_random_unicode_claims_as_python(text: str) -> None:
    terms, distinct, names = RUST.claim(text)
    assert (terms, distinct) == _expected(text)[:2]
    assert names is None or frozenset(names) == _expected(text)[2]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_rust_analyses_random_ascii_claims_as_python(text: str) -> None:
    assert _rust(NATIVE_TABLE.claim(text)) == _expected(text)


NAME_PIECES = st.sampled_from(
    [
        *"The Eiffel Tower in Paris iPhone McDonald O'Neil Smith-Jones 3Com X_Y A".split(),
        *". ! ? : ; \" ' ( * # - \n \t".split(" "),
    ]
)


@given(st.lists(NAME_PIECES, max_size=20).map(" ".join))
@example("the Eiffel Tower in Paris")
@example("iPhone and McDonald's O'Neil met Smith-Jones at 3Com.\n- Item One")
def test_rust_finds_a_claims_names_as_python(text: str) -> None:
    assert _rust(NATIVE_TABLE.claim(text)) == _expected(text)


@pytest.mark.parametrize(
    "text", ["a " * 50_000, "word" * 50_000, "1" * 100_000, ". " * 50_000, "running parties " * 20_000]
)
def test_rust_analyses_huge_claims_as_python(text: str) -> None:
    assert _rust(NATIVE_TABLE.claim(text)) == _expected(text)


def test_distinct_terms_come_in_order_of_first_occurrence_whatever_the_hash_seed() -> None:
    terms, distinct, _ = RUST.claim("Zebras, apples and zebras eat mangoes; apples")
    assert terms == ("zebra", "appl", "zebra", "eat", "mango", "appl")
    assert distinct == ("zebra", "appl", "eat", "mango")
    stats = TermStats.from_units([["zebra"], ["appl", "eat"]])
    claim = ClaimTerms.from_text("Zebras, apples and zebras eat mangoes; apples", stats)
    assert [t for t, _ in claim.weights] == list(distinct)  # the order every sum runs in


def test_a_full_table_starts_over_and_still_analyses_claims() -> None:
    from cite_core._sources.stopwords import STOP, SUFFIXES

    table = NATIVE.TermTable(sorted(STOP), list(SUFFIXES), 4)
    for i in range(20):
        assert _rust(table.claim(f"word{i} other{i} running")) == _expected(f"word{i} other{i} running")
    assert len(table) <= 4 + 3


NATIVE_TABLE = RUST._table


def _suffixed_words() -> st.SearchStrategy[str]:
    from cite_core._sources.stopwords import STOP, SUFFIXES

    ends = st.sampled_from([*SUFFIXES, *(s[-2:] for s in SUFFIXES), *(s[-1:] for s in SUFFIXES), "y", "ie"])
    stems = st.text(alphabet="abdeilnorstuy", max_size=5) | st.sampled_from(sorted(STOP))
    return st.tuples(stems, ends).map("".join).filter(str.isascii)


@given(st.lists(_suffixed_words(), min_size=1, max_size=12))
@example(["cats", "cat", "parties", "party", "ies", "sies", "ments", "ment", "edly", "the"])
def test_new_words_in_a_fresh_table_stem_as_the_python_stemmer(words: list[str]) -> None:
    """A fresh table meets every word for the first time (the stemmer keyed by a word's last two bytes,
    and a word whose term another word already has sharing its id): the terms of ``_stem_word``, and
    the same again once the table knows them."""
    from cite_core._sources.stopwords import STOP, SUFFIXES
    from cite_core._sources.terms import _stem_word

    table = NATIVE.TermTable(sorted(STOP), list(SUFFIXES), 1000)
    text = " ".join(words)
    expected = tuple(_stem_word(w) for w in words if w not in STOP)
    for _ in range(2):  # new words, then known ones
        terms, distinct, _ = table.claim(text)
        assert terms == expected
        assert distinct == tuple(dict.fromkeys(expected))
