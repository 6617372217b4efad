"""The compiled plain-text scan of the stream lexer (cite_core._native.PlainPath, native/src/lexer.rs)
against the Python reference (``PythonPlainPath``, cite_core/_stream/plain_path.py): the same length of
plain text for every chunk, built from every bracket of the marker table, CJK, emoji and random Unicode,
split at every position; and a stream whose lexer scans with either gives the events of the general path.
Skipped where the extension is not built (run under ``CITE_PURE_PYTHON=1`` too: the extension is loaded
here directly).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import CitationStream, NativeError, number_sources
from cite_core._accel import NATIVE as IN_USE
from cite_core._accel import native_module
from cite_core._brackets import BRACKETS, OPENERS
from cite_core._stream.lexer import Lexer
from cite_core._stream.plain_path import PLAIN_PATH, STOPS, PythonPlainPath

NATIVE = native_module() or pytest.importorskip("cite_core._native")  # also under CITE_PURE_PYTHON=1
RUST = NATIVE.PlainPath(STOPS)
PYTHON = PythonPlainPath(STOPS)

EVERY_BRACKET = [side for opener, closer, _ in BRACKETS for side in (opener, closer)]
PIECES = [
    *EVERY_BRACKET,
    *"`\n\t \r\x0b\x0c\x85\u2028\u3000",
    *"abcXYZ019.,;:!?'\"-_/\\{}",
    "[1]",
    "[1, 2]",
    "[[3]]",
    "[^1]",
    "[Source 1]",
    "(Source 2)",
    "<CIT chunk_id='1'>",
    "</CIT>",
    "<think>",
    "```",
    "中文。",
    "日本語のテキスト",
    "한국어",
    "，、；",
    "\U0001f600",
    "\U0001f1eb\U0001f1f7",  # a flag: two regional indicators
    "\U00010400",  # an astral letter
    "é",
    "e\u0301",  # a combining accent
    "\ufffd",
    " plain words ",
]
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
UNICODE = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)
"""Random Unicode with no lone surrogate (which has no UTF-8 form; the stream replaces it first)."""


def _same_at_every_split(text: str) -> None:
    expected = PYTHON.scan(text)
    assert RUST.scan(text) == expected
    assert expected == len(text) or text[expected] in STOPS
    assert not set(text[:expected]) & set(STOPS)
    for i in range(len(text) + 1):
        head, tail = text[:i], text[i:]
        assert RUST.scan(head) == PYTHON.scan(head)
        assert RUST.scan(tail) == PYTHON.scan(tail)
        # a chunk split anywhere: its plain start is the head's, or runs on into the tail
        joined = RUST.scan(head) if RUST.scan(head) < len(head) else len(head) + RUST.scan(tail)
        assert joined == expected


@given(TEXT)
@example("")
@example("plain text with no stop at all")
@example("中文【1】")
@example("\U0001f600 then [1]")
@example("e\u0301\u3000〔2〕")
@example("closers only: ]]】］〕)>")
def test_rust_scans_text_of_every_bracket_as_python(text: str) -> None:
    _same_at_every_split(text)


@given(UNICODE)
def test_rust_scans_random_unicode_as_python(text: str) -> None:
    _same_at_every_split(text)


@pytest.mark.parametrize(
    "text",
    [
        "a" * 100_000,
        "中" * 50_000 + "[",
        "\U0001f600" * 30_000 + "<",
        " " * 70_000 + "`",
        "]" * 50_000 + "\n",
    ],
)
def test_rust_scans_long_hostile_runs_as_python(text: str) -> None:
    assert RUST.scan(text) == PYTHON.scan(text) == len(text) - 1 + (text[-1] not in STOPS)


def test_the_stops_are_the_tables_openers_a_backtick_and_a_newline() -> None:
    # one table: the stop characters are derived from _brackets.py and passed to the extension
    assert STOPS == OPENERS + "`\n"
    for opener, _, _ in BRACKETS:
        assert RUST.scan("text " + opener) == PYTHON.scan("text " + opener) == 5
    assert RUST.scan("a`") == RUST.scan("a\n") == 1
    assert NATIVE.PlainPath("#").scan("a#b") == 1  # it holds no copy: any stops given are the stops


@pytest.mark.parametrize("scan", [RUST.scan, PYTHON.scan], ids=["rust", "python"])
def test_a_chunk_with_a_lone_surrogate_takes_the_general_path(scan: Any) -> None:
    lexer = Lexer()
    lexer.scan = scan
    list(lexer.feed("Grass"))
    assert lexer.plain(" is\ud800") is None  # no UTF-8 form: the stream replaces it on the general path
    assert lexer.plain("\udfff") is None
    assert lexer.plain(" is green") == (" is green",)
    assert PYTHON.scan("ab\ud800c") == 2
    with pytest.raises(UnicodeEncodeError):
        RUST.scan("ab\ud800c")


@pytest.mark.skipif(IN_USE is None, reason="the Python implementation is in use")
def test_the_scan_in_use_is_the_extensions_and_a_panic_is_a_native_error() -> None:
    assert isinstance(PLAIN_PATH, NATIVE.PlainPath)
    lexer = Lexer()
    list(lexer.feed("Grass"))

    def panics(chunk: str) -> int:
        NATIVE._panic()
        return 0

    lexer.scan = panics
    with pytest.raises(NativeError, match="CITE_PURE_PYTHON"):
        lexer.plain(" is green")


SOURCES = number_sources(
    [
        {"text": "The grass is green. The sky is blue.", "title": "Nature"},
        {"text": "The Moon orbits the Earth. 月は地球を回る。", "title": "Moon"},
        {"text": "Water boils at 100 degrees.", "title": "Water"},
    ]
)
ANSWER_PIECES = [
    "The grass is green",
    " [1]",
    "[2]",
    " 【1】",
    "［3］",
    "〔2〕",
    "[[1]]",
    " (Source 2)",
    ". ",
    "[1] The Moon orbits the Earth",
    "According to [3], water boils",
    "月は地球を回る",
    "。",
    " and ",
    "\n",
    "- ",
    "`code [1]`",
    "```\nfenced [2]\n```\n",
    "<think>[2] maybe</think>",
    "</think>",  # a lone closing tag: the text before it (fast chunks included) becomes reasoning
    "<CIT chunk_id='1'>",
    "</CIT>",
    "\U0001f600",
    "   ",
    "\ud800",  # a lone surrogate: U+FFFD in the answer, on the general path
    # line starts and openers that may open nothing: the fast path reads them (LexerState._mixed)
    "\n\n",
    "\n1. ",
    "\n- ",
    "\n## Sources\n",
    "\nSources: ",
    "\n**References:**\n",
    "\n[1] Nature, https://example.org\n",
    "\n[2]: ",
    "\n~~~\n",
    "\n```",
    "    ",
    " (see",
    " it)",
    "(",
    "<",
    "<thi",
    "`",
    "]",
    "【",
    "［",
    "〔",
    "[[",
    "Sou",
    "rce 1",
]
ANSWERS = st.lists(st.sampled_from(ANSWER_PIECES), max_size=20).map("".join)


def _events(chunks: list[str], scan: Any) -> tuple[list[Any], Any]:
    stream = CitationStream(SOURCES, display=False)
    stream._steady_feed = lambda chunk: None  # every plain chunk through the lexer's scan
    if scan is None:
        stream._path_feed = lambda chunk: None  # the general path only
    else:
        stream._lexer.scan = scan
    events: list[Any] = []
    for chunk in chunks:
        events += stream.feed(chunk)
    answer = stream.finish()
    events += stream.pending_events()
    return [(type(e), e.model_dump(mode="json")) for e in events], answer


def _sized(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@given(ANSWERS, st.integers(min_value=1, max_value=12))
@example("The grass is green [1]. [1] The Moon orbits the Earth. ", 1)
@example("According to [3], water boils. 月は地球を回る【2】。", 3)
@example("The grass is green [1]. The Moon orbits the Earth</think>Water boils [3].", 2)
def test_a_streams_events_are_the_same_with_the_fast_path_on_and_off(text: str, size: int) -> None:
    general = _events(_sized(text, size), None)
    assert _events(_sized(text, size), RUST.scan) == general
    assert _events(_sized(text, size), PYTHON.scan) == general


@pytest.mark.parametrize(
    "text",
    [
        "The grass is green [1]. [2] The Moon orbits the Earth, 月は地球を回る【2】。 Water boils ［3］.\n",
        "Intro (see below):\n\n1. Grass (Source 1) is green\n- Sources say (it\n## Sources\n[1] Nature",
        "A <b>tag</b>, <thinking> no, `code [1]` and\n```\nfence [2]\n```\nThe end [3]",
        "Sources: none\n**Bold** [[1]] 【2 ］ 〔3〕 (Source 2, 3) [1](https://e.org/x)\n\n  \t \nok",
    ],
)
def test_an_answer_split_at_every_position_gives_the_events_of_the_general_path(text: str) -> None:
    for i in range(len(text) + 1):
        for chunks in ([text[:i], text[i:]], [text[:i], "\U0001f600 ", text[i:]]):  # and a plain chunk inside
            general = _events(chunks, None)
            assert _events(chunks, RUST.scan) == general
            assert _events(chunks, PYTHON.scan) == general
    for size in range(1, 10):
        general = _events(_sized(text, size), None)
        assert _events(_sized(text, size), RUST.scan) == general
        assert _events(_sized(text, size), PYTHON.scan) == general
