"""The compiled chunk analysis (``ChunkAnalyser.analyse``: native/src/py_chunk.rs, chunk.rs) against the
Python reference: each unit's span (``segment.py``) and terms (``terms._analyze`` of the unit's text),
their counts and lengths, the fragment flags, the line breaks, the chunk's terms, the compiled index and
the corpus's document frequencies, on generated, random and hostile text (accents, CJK, letters whose
lower case is longer or ASCII). A text the compiled analyser leaves to Python (a lone surrogate, a capital
sigma) gets the reference's analysis. Skipped where
the extension is not built.
"""

from __future__ import annotations

import pickle
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import NativeError
from cite_core._accel import native_module
from cite_core._schema.source import ChunkAnalysis, Unit
from cite_core._sources.chunk_analyser import NativeChunkAnalyser, NativeUnits, ascii_separator, fragments_of
from cite_core._sources.segmenter import PythonSegmenter
from cite_core._sources.stopwords import STOP, SUFFIXES
from cite_core._sources.term_analyser import NativeTermAnalyser, counts_of
from cite_core._sources.terms import _analyze

NATIVE = native_module() or pytest.importorskip("cite_core._native")  # also under CITE_PURE_PYTHON=1
TERMS = NativeTermAnalyser(NATIVE)
RUST = NativeChunkAnalyser(NATIVE, TERMS)
SEGMENTER = PythonSegmenter()

WORDS = sorted(STOP)[:30] + [f"{stem}{suffix}" for stem in ("x", "ab", "abcd") for suffix in SUFFIXES]
WORDS += ["Cats", "RUNNING", "studies", "bus", "3d", "2024", "covid19", "x_y", "it's", "x-ray"]
PIECES = [
    *WORDS,
    *(" ", "  ", ". ", "! ", "? ", "…", "\n", "\n\n", " \n", "\t", "\x1c", "\x85", "\u2028", "\xa0"),
    *("—", "–", "“", "”", "’", "«", "»", "•", "、", "。", "」", "（", "）", "*", "_", "`", ")", '"', "'"),
    *(" Dr.", " e.g.", "\n1. ", "\n- ", "\n# ", "[1]", "...", "?!"),
    *("é", "café", "Ñandú", "über", "İ", "K", "Σ", "ΟΔΟΣ", "ß", "²", "½", "Ⅳ", "中文", "日本語", "한국어"),
    *("\U0001f600", "\U0001d7ce", "\ud800"),
]
TEXT = st.lists(st.sampled_from(PIECES), max_size=60).map(" ".join)


def reference(text: str, blocks: bool) -> dict[str, object]:
    """What the compiled analysis must give, from the Python modules alone."""
    spans = [(0, len(text))] if blocks else SEGMENTER.units(text)
    terms = [_analyze(text[a:b]) for a, b in spans]
    return {
        "spans": spans,
        "terms": terms,
        "counts": [counts_of(t) for t in terms],
        "lengths": [len(t) for t in terms],
        "breaks": [text.find("\n", a[1], b[0]) >= 0 for a, b in zip(spans, spans[1:])],
        "df": Counter(t for unit in terms for t in set(unit)),
    }


def _same(text: str, blocks: bool = False) -> ChunkAnalysis:
    expected = reference(text, blocks)
    entry = RUST.analyse(text, blocks)
    _units_read_one_by_one(entry, expected)
    assert [(u.start, u.end) for u in entry.units] == expected["spans"]
    assert [u.terms for u in entry.units] == expected["terms"]
    assert all(u.segment == 0 for u in entry.units)
    assert entry.lengths == expected["lengths"]
    assert entry.counts == expected["counts"]
    assert [list(c) for c in entry.counts] == [list(c) for c in expected["counts"]]  # first occurrence
    native = entry.native
    if native is not None:
        assert native.fragments() == fragments_of(text, entry.units)
        assert native.breaks() == expected["breaks"]
        assert native.terms() == set().union(*expected["terms"])
        assert len(native) == len(entry.units)
        df = RUST.frequencies([native])
        assert df is not None and dict(df.items()) == expected["df"]
        for term, count in expected["df"].items():
            assert df.get(term) == df[term] == count and term in df
        assert df.get("no such term", 0) == 0 and df["no such term"] == 0 and "no such term" not in df
        _same_index(native.index(), entry)
    elif "\ud800" not in text and "Σ" not in text:
        pytest.fail("only a lone surrogate or a capital sigma leaves a text to the reference")
    return entry


def _units_read_one_by_one(entry: ChunkAnalysis, expected: dict[str, Any]) -> None:
    """Each unit read alone (made when read: ``NativeUnits``) is the reference's, by any index, and a
    source's view of them reads the same; then the units made at once."""
    units = entry.units
    spans, terms = expected["spans"], expected["terms"]
    n = len(spans)
    assert len(units) == n
    views = [units, units.view()] if isinstance(units, NativeUnits) else [units]
    for view in views:
        for i in range(-n, n):
            unit = view[i]
            assert type(unit) is Unit and unit == Unit(*spans[i], 0, terms[i])
        for i in (n, -n - 1):
            with pytest.raises(IndexError):
                view[i]
        assert list(view[1:3]) == [Unit(*spans[i], 0, terms[i]) for i in range(n)][1:3]
    expect = [Unit(*span, 0, t) for span, t in zip(spans, terms)]
    assert list(units) == expect
    if isinstance(units, NativeUnits):  # equal to the reference's list and tuple
        assert units == expect and units == tuple(expect) and expect == units and units.view() == units
        assert units != expect + [Unit(0, 0, 0, ())] and units != "units" and units.view() is not units
        assert repr(units) == f"NativeUnits({expect!r})" and pickle.loads(pickle.dumps(units)) == expect


def _same_index(compiled: object, entry: ChunkAnalysis) -> None:
    """The compiled index built in Rust from the chunk scores as the one built from the term tuples."""
    units = entry.units
    breaks = entry.native.breaks()
    flags = entry.native.fragments()
    other = NATIVE.UnitIndex([u.terms for u in units], [0] * len(units), breaks, flags)
    assert len(compiled) == len(other) and compiled.terms() == other.terms()  # type: ignore[arg-type, attr-defined]
    seen = list(dict.fromkeys(t for u in units for t in u.terms))[:6] + ["absent"]
    weights = tuple((t, 1.0 + i / 7) for i, t in enumerate(seen))
    assert compiled.bm25(weights, 3.5, 1.2, 0.2) == other.bm25(weights, 3.5, 1.2, 0.2)  # type: ignore[attr-defined]


@given(TEXT, st.booleans())
@example("The grass is green. The sky is blue.\nMenu entry", False)
@example("Dr. Smith arrived — “quoted.” He sat.\nA title\n1. one\n2. two", False)
@example("Cats (running) *studies*_ ok", True)
@example("İİİİ is big. The grass — is greener.", False)  # lower() adds characters: the reference's
@example("The ΟΔΟΣ. Σ is a letter. KELVIN", False)  # final sigma, a letter lower-casing to ASCII
@example("a\n\ud800 b. c", False)  # a lone surrogate: the reference's
@example("", False)
@example("   ", True)
def test_the_compiled_chunk_analysis_is_the_reference(text: str, blocks: bool) -> None:
    _same(text, blocks)


@given(st.text(max_size=200), st.booleans())
def test_random_unicode_is_analysed_as_the_reference(text: str, blocks: bool) -> None:
    _same(text, blocks)


@given(st.lists(st.tuples(TEXT | st.text(max_size=60), st.booleans()), max_size=6))
@example([("Cats run. Dogs.", False), ("a\n\ud800 b. c", False), ("The ΟΔΟΣ.", False), ("Cats run.", True)])
def test_chunks_analysed_in_one_call_are_those_analysed_one_by_one(keys: list[tuple[str, bool]]) -> None:
    many = RUST.analyse_many(keys)
    assert len(many) == len(keys)
    for (text, blocks), entry in zip(keys, many):
        one = RUST.analyse(text, blocks)
        assert (entry.native is None) == (one.native is None)  # the reference's for the same texts
        assert entry.units == one.units and entry.lengths == one.lengths and entry.counts == one.counts
        if one.native is not None:
            assert entry.native.fragments() == one.native.fragments()
            assert entry.native.breaks() == one.native.breaks()


@given(st.text(alphabet=st.characters(codec="ascii") | st.sampled_from("—“”’•…"), max_size=400))
def test_ascii_words_with_any_punctuation_stay_compiled(text: str) -> None:
    assert _same(text).native is not None


@pytest.mark.parametrize(
    "text",
    [
        "." * 5000,
        "\n" * 5000,
        "word " * 20000,  # past 64 K characters: segmented with the GIL released
        "a" * 70000,
        "ab. " * 3000 + "\n" * 100,
        "“”" * 3000,
        " \n" * 5000,
        "Dr." * 3000,
    ],
)
def test_hostile_runs_are_analysed_as_the_reference(text: str) -> None:
    _same(text)
    _same(text, True)


def test_the_cjk_ranges_are_those_of_the_token_pattern() -> None:
    from cite_core._sources.chunk_analyser import CJK_RANGES
    from cite_core._text import CJK

    assert "".join(f"{a}-{b}" for a, b in CJK_RANGES) == CJK


def test_a_non_ascii_separator_is_asked_of_python_as_ascii_separated_treats_it() -> None:
    assert ascii_separator("—") and ascii_separator("“") and ascii_separator("•")
    assert not ascii_separator("é") and not ascii_separator("中") and not ascii_separator("İ")
    assert not ascii_separator("K")  # KELVIN SIGN lower-cases to an ASCII letter


def test_frequencies_sum_over_chunks_and_sources_and_survive_the_table_starting_over() -> None:
    a = RUST.analyse("Cats run. Dogs run fast.", False)
    b = RUST.analyse("Cats sleep. Cats purr.", False)
    df = RUST.frequencies([a.native, b.native, b.native])  # b twice: two sources of one text
    assert df is not None
    assert dict(df.items()) == {"cat": 5, "run": 2, "dog": 1, "fast": 1, "sleep": 2, "purr": 2}
    assert len(df) == 6 and sorted(df) == sorted(dict(df.items()))
    TERMS.clear()  # the word table starts over: ids of another epoch, looked up by text then
    assert df.get("cat") == 5 and df.get("dog", 0) == 1 and df.get("zebra", 0) == 0 and df.get(3, -1) == -1
    c = RUST.analyse("Cats run.", False)
    assert RUST.frequencies([a.native, c.native]) is None  # not comparable: the caller counts in Python
    assert RUST.frequencies([c.native]) is not None


def test_threads_analyse_and_count_alike() -> None:
    texts = [f"Sentence number {k} runs here. Another one, {k % 7} cats!\nLine {k}" for k in range(60)]
    expected = [reference(t, False)["terms"] for t in texts]

    def run(text: str) -> list[tuple[str, ...]]:
        entry = RUST.analyse(text, False)
        df = RUST.frequencies([entry.native])
        assert df is not None and df.get("sentence") == 1
        return [u.terms for u in entry.units]

    with ThreadPoolExecutor(6) as pool:
        got = list(pool.map(run, texts * 4))
    assert got == expected * 4


def test_several_chunks_compose_one_index_with_their_segments() -> None:
    one = RUST.analyse("Cats run. Dogs bark.", False)
    two = RUST.analyse("Cats sleep.\nBirds sing.", False)
    composed = NATIVE.compose_index([one.native, two.native], [False, True, True])
    units = [*one.units, *two.units]
    other = NATIVE.UnitIndex([u.terms for u in units], [0, 0, 1, 1], [False, True, True], [False] * 4)
    weights = (("cat", 1.5), ("sing", 2.0), ("bark", 0.5))
    assert composed.bm25(weights, 2.0, 1.2, 0.2) == other.bm25(weights, 2.0, 1.2, 0.2)
    params = (1.2, 0.2, 0.2, 0.8, 1e-9, 256, 256, 5)
    assert composed.locate(weights, 4.0, 2.0, params, lambda _: 0) == other.locate(
        weights, 4.0, 2.0, params, lambda _: 0
    )
    with pytest.raises(ValueError, match="line break"):
        NATIVE.compose_index([one.native, two.native], [False])


def test_a_chunk_analysis_pickles_without_its_compiled_part() -> None:
    entry = RUST.analyse("Cats run. Dogs (bark", False)
    again = pickle.loads(pickle.dumps(entry))
    assert again.native is None and again.units == entry.units and again.lengths == entry.lengths
    assert again.counts == entry.counts and again.fragments == [False, True]


def test_a_panic_in_the_chunk_analyser_is_a_native_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Panics:
        def analyse(self, text: str, blocks: bool) -> None:
            NATIVE._panic()

        def analyse_many(self, keys: list[tuple[str, bool]]) -> None:
            NATIVE._panic()

    monkeypatch.setattr(RUST, "_analyser", Panics())
    with pytest.raises(NativeError, match="CITE_PURE_PYTHON"):
        RUST.analyse("text", False)
    with pytest.raises(NativeError, match="CITE_PURE_PYTHON"):
        RUST.analyse_many([("text", False)])
