"""The stream's steady path (``SteadyPath``, cite_core/_stream/plain_path.py; the compiled one in
native/src/lexer_py.rs): the compiled one answers what the Python reference answers for any sequence of
arming, chunks and disarming, hostile text included (spaces and tabs past the hold limit, stop characters,
lone surrogates, chunks that are not ``str``); and a stream with either gives the events and answer of a
stream without it, whatever else is asked of it between chunks. Skipped where the extension is not built
(run under ``CITE_PURE_PYTHON=1`` too: the extension is loaded here directly).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import CitationStream, number_sources
from cite_core._accel import native_module
from cite_core._brackets import BRACKETS
from cite_core._stream.lexer_state import MAX_WS
from cite_core._stream.plain_path import STEADY_EVENT, STOPS, PythonSteadyPath

NATIVE = native_module() or pytest.importorskip("cite_core._native")  # also under CITE_PURE_PYTHON=1

SOURCES = number_sources(["The grass is green.", "The sky is blue.", "Water boils at 100 degrees."])
PIECES = [
    *(side for opener, closer, _ in BRACKETS for side in (opener, closer)),
    *" \t\n`",
    " " * (MAX_WS - 1),
    " " * MAX_WS,
    "\t" * (MAX_WS + 1),
    "x" + " " * (MAX_WS + 1),
    "grass",
    " is ",
    "green",
    "  ",
    "[1]",
    " [2]. ",
    ".",
    "\n1. ",
    "中文。",
    "月は",
    "\U0001f600",
    "\ud800",
    "<think>",
    "</think>",
    "(Source 3)",
    "According to ",
]
CHUNKS = st.lists(st.sampled_from(PIECES) | st.text(max_size=12), max_size=30)


def _steady(kind: str) -> Any:
    if kind == "rust":
        return NATIVE.SteadyPath(STOPS, MAX_WS, STEADY_EVENT)
    return PythonSteadyPath(STOPS, MAX_WS, STEADY_EVENT)


def _dump(events: list[Any] | None) -> Any:
    if events is None:
        return None
    return [(type(e), e.model_dump(mode="json"), e.model_fields_set, e.__pydantic_extra__) for e in events]


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("arm"), st.tuples(st.booleans(), st.sampled_from(["", " ", "\t ", " " * MAX_WS]))),
        st.tuples(st.just("disarm"), st.none()),
        st.tuples(st.just("feed"), st.sampled_from(PIECES) | st.text(max_size=12)),
        st.tuples(st.just("feed"), st.sampled_from([None, b"ab", 3])),
    ),
    max_size=40,
)


@given(OPS)
@example([("arm", (True, "")), ("feed", "a "), ("feed", "  "), ("feed", "b\t"), ("disarm", None)])
@example([("arm", (False, " ")), ("feed", " " * 40), ("feed", " " * 30), ("feed", "x" + " " * 70)])
def test_the_compiled_steady_path_answers_as_the_reference(ops: list[tuple[str, Any]]) -> None:
    results = []
    for kind in ("rust", "python"):
        path, fast, raw, seen = _steady(kind), [], [], []
        for op, value in ops:
            if op == "arm":
                fast.clear()
                raw.clear()
                path.arm(fast, raw if value[0] else None, value[1])
            elif op == "disarm":
                seen.append(path.disarm())
            else:
                seen.append(_dump(path.feed(value)))
            seen.append((list(fast), list(raw)))
        seen.append(path.disarm())
        results.append(seen)
    assert results[0] == results[1]


def _stream_events(chunks: list[str], steady: str | None, asks: list[int], display: bool) -> Any:
    stream = CitationStream(SOURCES, display=display)
    if steady is None:
        stream._steady_feed = lambda chunk: None
    else:
        stream._steady = _steady(steady)
        stream._steady_feed = stream._steady.feed
    out: list[Any] = []
    for i, chunk in enumerate(chunks):
        out.append(_dump(stream.feed(chunk)))
        ask = asks[i % len(asks)] if asks else 0
        if ask == 1:
            out.append(stream.held)
        elif ask == 2:
            out.append(_dump(stream.pending_events()))
        elif ask == 3:
            out.append(_dump(stream.feed_reasoning("a thought ")))
    answer = stream.finish()
    out.append(_dump(stream.pending_events()))
    return out, answer


@given(CHUNKS, st.lists(st.integers(0, 3), max_size=6), st.booleans())
@example(["The grass ", "is  ", "   ", "green", " [1]", ". "], [1, 0], False)
@example(["a", " " * 40, " " * 30, "b"], [0], False)
def test_a_stream_gives_the_same_events_with_either_steady_path_or_none(
    chunks: list[str], asks: list[int], display: bool
) -> None:
    without = _stream_events(chunks, None, asks, display)
    assert _stream_events(chunks, "rust", asks, display) == without
    assert _stream_events(chunks, "python", asks, display) == without


@pytest.mark.parametrize("kind", ["rust", "python"])
def test_plain_chunks_of_a_steady_stream_take_the_steady_path(kind: str) -> None:
    stream = CitationStream(SOURCES)
    stream._steady = _steady(kind)
    taken = []
    stream._steady_feed = lambda chunk: taken.append(stream._steady.feed(chunk)) or taken[-1]
    text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit " * 20
    for i in range(0, len(text), 8):
        stream.feed(text[i : i + 8])
    assert sum(t is not None for t in taken) > len(taken) * 3 // 4
    assert stream.finish().text == text
