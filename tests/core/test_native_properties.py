"""The compiled segmenter (cite_core._native, native/src/segment.rs) against the Python reference
(cite_core/_sources/segment.py): the same spans for generated text built from every character the rules
look at, random Unicode, hostile runs and the shared corpora. Skipped where the extension is not built.

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import NativeError
from cite_core._accel import native_module
from cite_core._sources import segment
from cite_core._sources.segmenter import NativeSegmenter, PythonSegmenter
from cite_core._sources.stopwords import STOP, SUFFIXES
from cite_core._sources.term_analyser import NativeTermAnalyser, PythonTermAnalyser
from cite_core._sources.terms import ascii_separated

NATIVE = native_module() or pytest.importorskip("cite_core._native")  # also under CITE_PURE_PYTHON=1
RUST = NativeSegmenter(NATIVE)
PYTHON = PythonSegmenter()
RUST_TERMS = NativeTermAnalyser(NATIVE)
PYTHON_TERMS = PythonTermAnalyser()

# every character a rule of segment.py tests for, and a few of each class it asks about
PIECES = [
    *"abcxyzABCXYZ019 \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000",
    *".!?…。！？",
    *"\"'”’»」』）)]}》〉】\\",
    *"“‘«([{¿¡—–-",
    *"「『（《〈【",
    *"#*+•◦▪‣●○■",
    *",;/&:：_",
    *"ñáúºßİıſKΣσςǅ²٣१Ⅳ½",
    *"中文日本語한국어",
    "\U0001f600",
    "\U00010400",  # DESERET CAPITAL LONG I: an astral uppercase letter
    "\U0001d7ce",  # MATHEMATICAL BOLD DIGIT ZERO: an astral decimal
    "\ud800",
    "\udfff",
    *(" Dr.", " dr.", "Fig.", " No.", " e.g.", " Sra.", "Dña.", "nº.", "núm.", "pág.", " J.", " I."),
    *(" 1.", "\n1. ", "\n- ", "\n# ", "\n## ", "\na) ", "\nIV.", " iv.", "\n\n", " \n \n"),
    *("[1]", "[1, 2]", "[1,2]", ".[3]", "...", "..", "?!", "。」", ".'", ".’", " '", "'s", "O'N"),
    *("http://x/", "HTTPS://a.b/", "www.", "WWW.", "httpſ://", " word", " Word", " WORD"),
]

TEXT = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


def _same(text: str) -> None:
    expected = PYTHON.sentences(text)
    assert RUST.sentences(text) == expected
    for a, b in expected:
        assert RUST.lines(text, a, b) == PYTHON.lines(text, a, b)
    assert RUST.units(text) == PYTHON.units(text)


@given(TEXT)
@example("Dr. Smith arrived. He sat.\nA title\nnext line here. 1. one\n2. two")
@example("Warner Bros.' 2020 film. 'Quoted.' Next")
@example("他说「你好。」然后走了。《标题。内容》结束。")
@example("¿Qué pasa? ¡Nada! Sr. Pérez llegó. Fig. 3 muestra")
@example("a line that is long enough to wrap around the width of the page here,\nnext")
@example("see https://example.org/\nNext line")
@example("x.\n1. ")
@example(". ")
@example("a\n\ud800 b. \udfff")
def test_rust_segments_as_python(text: str) -> None:
    _same(text)


@given(st.text(max_size=200))
def test_rust_segments_random_unicode_as_python(text: str) -> None:
    _same(text)


@given(st.text(alphabet=st.sampled_from(".!?…。！？\n \"')]『」[1,2]《》'#-aA1"), max_size=300))
def test_rust_segments_punctuation_runs_as_python(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    [
        "." * 5000,
        ". " * 5000,
        "\n" * 5000,
        " \n" * 5000,
        "[1" * 3000,
        "[1, " * 3000,
        "'" * 5000,
        " '.'" * 2000,
        "《" * 3000 + "。" * 3000,
        "a" * 70 + "\n" + "b" * 70 + ",\n" * 2000,
        "Dr." * 3000,
    ],
)
def test_rust_segments_hostile_runs_as_python(text: str) -> None:
    _same(text)


def test_rust_segments_the_shared_corpora_as_python() -> None:
    root = Path(__file__).resolve().parents[2]
    texts = [p.read_text(encoding="utf-8") for p in sorted((root / "docs").glob("*.md"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted((root / "tests").rglob("*.txt"))[:50]]
    assert texts
    for text in texts:
        _same(text)


def test_a_panic_in_the_extension_is_a_native_error_not_an_abort() -> None:
    # every call of the native segmenter goes through NativeSegmenter.call, which maps the panic
    with pytest.raises(NativeError, match="CITE_PURE_PYTHON"):
        RUST.call(lambda _text: NATIVE._panic(), "text")


def test_the_reference_is_the_python_module() -> None:
    assert PYTHON.sentences("One. Two.") == segment.split_sentences("One. Two.") == [(0, 4), (5, 9)]


def test_cite_pure_python_chooses_the_python_segmenter() -> None:
    import subprocess
    import sys

    code = "from cite_core._sources.segmenter import SEGMENTER; print(type(SEGMENTER).__name__)"
    root = str(Path(__file__).resolve().parents[2])

    def chosen(value: str) -> str:
        env = {**os.environ, "CITE_PURE_PYTHON": value, "PYTHONPATH": root}
        return subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout

    assert chosen("1") == "PythonSegmenter\n"
    assert chosen("0") == chosen("") == "NativeSegmenter\n"


# words the stemmer treats each its own way: stop words, every suffix, short words, digits
WORDS = sorted(STOP)[:40] + [f"{stem}{suffix}" for stem in ("x", "ab", "abc", "abcd") for suffix in SUFFIXES]
WORDS = [w for w in WORDS if w.isascii()]  # a separated text is ASCII
WORDS += ["ies", "pies", "ponies", "tied", "studied", "s", "ss", "bus", "is", "3d", "2024", "covid19", "a1b2"]


def _same_terms(separated: str, spans: list[tuple[int, int]]) -> None:
    assert RUST_TERMS.unit_terms(separated, spans) == PYTHON_TERMS.unit_terms(separated, spans)


@given(
    st.lists(st.sampled_from(WORDS) | st.from_regex(r"[a-z0-9]{1,12}", fullmatch=True), max_size=80),
    st.data(),
)
def test_rust_terms_as_python(words: list[str], data: st.DataObject) -> None:
    separated = " ".join(words)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(separated)), max_size=8)))
    spans = list(zip([0, *cuts], [*cuts, len(separated)]))
    _same_terms(separated, spans)


@given(st.text(alphabet=st.characters(codec="ascii") | st.sampled_from("—“”’é"), max_size=300))
def test_rust_terms_of_separated_text_as_python(text: str) -> None:
    lowered = text.lower()
    separated = ascii_separated(lowered)
    if separated is not None:
        _same_terms(separated, PYTHON.units(text) if text.strip() else [(0, len(text))])


def test_rust_terms_share_one_object_per_term_and_reject_bad_input() -> None:
    terms, _, _ = RUST_TERMS.unit_terms("cats run cats", [(0, 8), (9, 13)])
    assert terms == [("cat", "run"), ("cat",)] and terms[0][0] is terms[1][0]
    with pytest.raises(ValueError, match="ASCII"):
        RUST_TERMS.unit_terms("caf\xe9", [(0, 4)])
    with pytest.raises(ValueError, match="outside"):
        RUST_TERMS.unit_terms("cats", [(2, 9)])


def test_long_texts_segment_alike_from_several_threads() -> None:
    """Past 64 K characters the extension segments with the GIL released: threads at once still get
    the reference's spans (astral characters and a lone surrogate included)."""
    from concurrent.futures import ThreadPoolExecutor

    text = "Dr. Smith arrived. \U0001f600 He sat.\nA title\n1. one\n\ud800 ¿Qué? 他来了。" * 2000
    assert len(text) > 1 << 16
    expected = PYTHON.sentences(text), PYTHON.units(text)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: (RUST.sentences(text), RUST.units(text)), range(4)))
    assert all(result == expected for result in results)
