"""The lexer's marker chunk (``LexerState._marker_chunk``): text, one plain ``[n]`` and what ends its group,
read in one pass, gives exactly the tokens, state and stream events of the general path."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import CitationStream
from cite_core._stream.lexer import Lexer
from cite_core._stream.lexer_tokens import Kind, Token
from tests.core.test_fast_paths import SOURCES  # the three sources the lexer's path tests share

PIECES = [
    "The grass is green",
    "According to",
    " the sky",
    "x",
    " ",
    "   ",
    "\t",
    ".",
    ". ",
    ",",
    ", ",
    ";",
    " and ",
    "\n",
    "\n\n",
    "- ",
    "1. ",
    "```",
    "`",
    "[1]",
    "[2]",
    "[12]",
    "[0]",
    "[1][3]",
    "[1] [3]",
    "[2], [3]",
    "[1](https://example.org/m)",
    "[1]]",
    "[[1]]",
    "[",
    "]",
    "(",
    "(Source 2)",
    "<",
    "<CIT chunk_id='2' sentences='1'>",
    "</CIT>",
    "<think>",
    "中文。",
    "\nReferences:\n[1] Nature\n",
]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)

_STATE = ("mode", "_buf", "_held", "_ws_run", "_line_start", "_written")


def _state(lexer: Lexer) -> tuple[object, ...]:
    return tuple(getattr(lexer, name) for name in _STATE)


def _stream(chunks: list[str], *, fast: bool, display: bool) -> tuple[list[Any], Any]:
    stream = CitationStream(SOURCES, display=display)
    if not fast:
        stream._path_feed = lambda chunk: None  # the general path only
    events: list[Any] = []
    for chunk in chunks:
        events += stream.feed(chunk)
    answer = stream.finish()
    events += stream.pending_events()
    return [(type(e), e.model_dump(mode="json"), e.model_fields_set) for e in events], answer


def _same_stream(chunks: list[str], display: bool) -> None:
    assert _stream(chunks, fast=True, display=display) == _stream(chunks, fast=False, display=display), chunks


@given(TEXTS, st.booleans())
@example("y [2]. The grass", False)
@example("The grass [1][3]", False)  # a second marker right after the first: the group goes on
@example("The grass [1] [3]. x", True)  # separators wait in GROUP mode for the next marker
@example("The grass [2].\n\n- x [3]`y`", False)  # a line end after the marker, a code span later
@example("According to [2], the grass is green.", False)  # a separator token: the lead-in's comma
@example("The sky [1] and [3] is blue", True)  # a joiner word
def test_every_split_in_two_and_in_ones_gives_the_general_paths_events(text: str, display: bool) -> None:
    for cut in range(1, len(text)):
        _same_stream([text[:cut], text[cut:]], display)
    _same_stream(list(text), display)


@given(TEXTS, st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=30), st.booleans())
def test_any_chunking_gives_the_general_paths_events(text: str, sizes: list[int], display: bool) -> None:
    chunks, pos = [], 0
    while pos < len(text):
        size = sizes[len(chunks) % len(sizes)]
        chunks.append(text[pos : pos + size])
        pos += size
    _same_stream(chunks, display)


def _items(tokens: list[Token]) -> list[object]:
    """The tokens as ``_marker_chunk`` hands them: texts, (marker, pre_ws) for a marker that opens its
    group and (marker, None) for one that goes on with it."""
    items: list[object] = []
    for token in tokens:
        if token.kind is Kind.MARKER:
            assert token.opens or not token.pre_ws
            items.append((token.marker, token.pre_ws if token.opens else None))
        else:
            assert token.kind is Kind.TEXT
            items.append(token.text)
    return items


@given(st.lists(TEXTS, min_size=1, max_size=3))
@example(["The grass ", "is green [2]. The"])
@example(["The grass  ", "[1", "]. x"])
@example(["The grass", " [3] "])
@example(["x", "[1]. y\n\n1. z"])
@example(["According to", " [2], the sky"])
@example(["x", " [1] [3] and [2]", " y"])
def test_a_marker_chunk_leaves_the_tokens_and_state_of_feed(chunks: list[str]) -> None:
    """Each chunk through ``plain`` and through ``feed`` of a lexer in the same state: where ``plain``
    answers with a marker chunk (a list), ``feed`` makes the same items and leaves the same state."""
    fast, slow = Lexer(), Lexer()
    for chunk in chunks:
        if not chunk:
            continue
        before = _state(slow)
        taken = fast.plain(chunk)
        tokens = slow.feed(chunk)
        if isinstance(taken, list):
            assert taken == _items(tokens), (before, chunk)
            assert _state(fast) == _state(slow), (before, chunk)
        elif taken is None:
            fast.feed(chunk)
        fast._steady = slow._steady = False
        for name in _STATE:  # go on from the general path's state
            setattr(fast, name, getattr(slow, name))


def test_the_usual_marker_chunks_take_the_marker_chunk() -> None:
    lexer = Lexer()
    assert lexer.plain("The team") == ("The team",)
    taken = lexer.plain(" is [2]. Th")
    assert isinstance(taken, list)
    assert [t if isinstance(t, str) else (t[0].raw, t[1]) for t in taken] == [" is", ("[2]", " "), ". Th"]
    assert lexer.plain(" grass [1") == (" grass",)  # an unfinished marker: buffered
    taken = lexer.plain("]. It is")
    assert isinstance(taken, list) and taken[1] == ". It is"
    assert isinstance(lexer.plain("x [3] "), list)  # separators: the group waits for the next chunk
    assert lexer.held == 1
    lexer = Lexer()
    assert lexer.plain("The team") == ("The team",)
    taken = lexer.plain("[1], [2]. ")  # a group: the second marker goes on with it
    assert isinstance(taken, list)
    assert [t if isinstance(t, str) else (t[0].raw, t[1]) for t in taken] == [("[1]", ""), ("[2]", None), "."]
    assert lexer.plain("x [1], y") is None  # a separator then text: the general path
    lexer = Lexer()
    assert lexer.plain("The team") == ("The team",)
    assert lexer.plain(" [1][") is None  # the next marker unfinished: feed waits for it in GROUP mode
