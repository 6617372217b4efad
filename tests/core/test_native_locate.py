"""The compiled scorer's ``locate`` (native/src/scorer.rs through ``_native.UnitIndex``) against the
Python reference (cite_core/_locate/span.py): the same cited span and best units, to the last bit, for
claims against sources of random and hostile text (CJK, emoji, long runs, empty, huge), sources of
several segments and long sources located through their candidates. Skipped where the extension is not
built (it runs under CITE_PURE_PYTHON=1 too: the reference and the port are both called by name).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import Citation, NativeError, Source, number_sources, parse_answer
from cite_core._accel import native_module
from cite_core._locate import localize as _localize
from cite_core._locate.candidates import MAX_CANDIDATES
from cite_core._locate.localize import Corpus, _verbatim
from cite_core._locate.scorer import NativeScorer, PythonScorer
from cite_core._locate.scoring import ClaimTerms
from cite_core._sources.analysis import source_units
from cite_core._sources.unit_index import CountsIndex, index_of

NATIVE = native_module() or pytest.importorskip("cite_core._native")
RUST = NativeScorer(NATIVE)
PYTHON = PythonScorer()

WORDS = [
    *"sky blue grass green rain sun river bridge opened city 1932 Sydney council stone x y".split(),
    *("married", "marries", "running", "parties", "the", "of", "and", "el", "los"),
    *(
        "café",
        "naïve",
        "Straße",
        "ΣΟΦΙΑ",
        "中文",
        "日本語",
        "한국어",
        "\U0001f600",
        "\U0001f600\U0001f600",
        "½",
    ),
]
ENDS = [". ", "! ", "? ", "\n", "\n\n", ", ", " ", "。", "… "]
PIECE = st.tuples(st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join), st.sampled_from(ENDS)).map(
    "".join
)
TEXT = st.lists(PIECE, max_size=25).map("".join)
CLAIM = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)


def _located(source: Source, sources: list[Source], claim: str, long: int = MAX_CANDIDATES) -> None:
    corpus = Corpus(sources)
    terms = ClaimTerms.from_text(claim, corpus.stats)
    units = source_units(source)
    verbatim = _verbatim(claim, source.text, units)
    index = index_of(source)
    fresh = CountsIndex(index.text, index.units, index.counts, index.lengths, index.fragments)
    expected = PYTHON.locate(fresh, terms, corpus.stats.avg_len, verbatim, long, 5)
    got = RUST.locate(fresh, terms, corpus.stats.avg_len, verbatim, long, 5)
    assert fresh.native not in (None, False)  # the compiled index answered
    assert got == expected


@given(TEXT, CLAIM)
@example("", "sky")
@example("Sky blue. Sky blue. Grass green.", "sky blue")
@example("The couple married. The couple marries.", "married")
@example("Headline sky\nThe sky is blue.", "sky")
@example("中文日本語。中文。", "中文")
@example("\U0001f600 sky \U0001f600.", "\U0001f600 sky")
def test_rust_locates_as_python(text: str, claim: str) -> None:
    other = "Rain fell on the river. The bridge opened in 1932."
    sources = number_sources([text if text.strip() else ".", other])
    _located(sources[0], sources, claim)


@given(st.lists(TEXT, min_size=1, max_size=4), CLAIM, st.sampled_from(["pages", "blocks"]))
def test_rust_locates_in_sources_of_several_segments_as_python(
    texts: list[str], claim: str, kind: str
) -> None:
    source = number_sources([{kind: [t if t.strip() else "." for t in texts]}])[0]
    _located(source, [source], claim)


@given(TEXT, CLAIM, st.integers(0, 6))
def test_rust_locates_through_candidates_as_python(text: str, claim: str, long: int) -> None:
    sources = number_sources([text if text.strip() else "."])
    _located(sources[0], sources, claim, long)


@pytest.mark.parametrize(
    "text",
    [
        "sky " * 20_000,  # one unit of 20,000 terms
        "Sky blue. " * 5_000,  # many equal units: every one tied
        "a" * 100_000,
        "中" * 20_000,
        "\U0001f600" * 10_000 + " sky.",
        ". " * 5_000,
        "\n" * 5_000 + "sky",
    ],
)
def test_rust_locates_hostile_text_as_python(text: str) -> None:
    sources = number_sources([text])
    for claim in ["sky blue", "中中", "aaa", "\U0001f600 sky", ""]:
        _located(sources[0], sources, claim)


def test_a_long_source_takes_its_candidates_in_rust_too() -> None:
    sentences = [f"Item {i} of the catalogue weighs {i * 7} grams." for i in range(3 * MAX_CANDIDATES)]
    sources = number_sources([" ".join(sentences)])
    assert len(source_units(sources[0])) > MAX_CANDIDATES
    _located(sources[0], sources, "Item 700 of the catalogue weighs 4900 grams")
    _located(sources[0], sources, "the catalogue weighs grams")  # every unit holds these: capped


@pytest.mark.parametrize("scorer", [PYTHON, RUST], ids=["python", "rust"])
def test_whole_answers_are_the_same_through_either_scorer(
    scorer: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = [
        "The grass is green. The sky is blue. Water is essential for life.",
        {"pages": ["Paris is the capital of France.\nIt has many museums.", "The Louvre is one."]},
        "中文的句子。日本語の文。The end.",
    ]
    answer = "The grass is green [1]. Paris has museums [2]. The Louvre [2]. 中文 [3]. Nothing [1]."
    expected = parse_answer(answer, number_sources(items))
    monkeypatch.setattr(_localize, "SCORER", scorer)
    assert parse_answer(answer, number_sources(items)) == expected


def test_a_verbatim_error_reaches_the_caller_and_a_panic_is_a_native_error() -> None:
    sources = number_sources(["Sky blue. Sky blue."])
    corpus = Corpus(sources)
    terms = ClaimTerms.from_text("sky blue", corpus.stats)

    def failing(_unit: int) -> int:
        raise KeyError("verbatim")

    with pytest.raises(KeyError, match="verbatim"):
        RUST.locate(index_of(sources[0]), terms, corpus.stats.avg_len, failing, MAX_CANDIDATES, 5)

    class Panicking:
        def locate(self, *_args: object) -> None:
            NATIVE._panic()

    index = index_of(sources[0])
    index.native = Panicking()
    with pytest.raises(NativeError, match="CITE_PURE_PYTHON"):
        RUST.locate(index, terms, corpus.stats.avg_len, lambda _unit: 0, MAX_CANDIDATES, 5)
    index.native = None


SOURCE_TEXT = TEXT.map("Sky. ".__add__)
ITEMS = st.one_of(
    SOURCE_TEXT,
    st.lists(SOURCE_TEXT, min_size=1, max_size=3).map(lambda pages: {"pages": pages}),
    st.tuples(SOURCE_TEXT, st.integers(0, 50)).map(lambda t: {"text": t[0], "start_index": t[1]}),
)


@given(st.lists(ITEMS, min_size=1, max_size=3), st.lists(CLAIM, min_size=1, max_size=4), st.integers(-1, 3))
@example(["Sky blue. \U0001f600 sky blue."], ["sky blue"], 1)
@example([{"pages": ["Sky blue.", "Grass green."]}], ["grass green", "sky"], 2)
@example([{"text": "Sky blue. Grass.", "start_index": 7}], ["grass"], 1)
def test_the_compiled_path_of_cite_is_the_general_paths(
    items: list[object], claims: list[str], reference: int
) -> None:
    """``Corpus.cite``'s shortcut (``_cite_compiled``: one compiled call and, for a plain text, the
    char_location built directly) gives the citation the general path (``_cite``) gives, field for
    field, fields set included, for every source kind and claim, cited again and again."""
    sources = number_sources(items)
    fast, general = Corpus(sources), Corpus(sources)
    for claim in claims:
        for source in sources:
            assert _outcome(fast.cite, source, claim, reference=reference) == _outcome(
                general._cite, source, claim, reference, None
            )


def _outcome(cite: Callable[..., Citation], *args: object, **kwargs: object) -> tuple[object, ...]:
    """The citation's type, fields, fields set and repr; or the error's type and text (a negative
    reference is refused by validation on either path)."""
    try:
        got = cite(*args, **kwargs)
    except ValueError as exc:
        return (type(exc), str(exc))
    return (type(got), got.model_dump(), got.model_fields_set, repr(got))
