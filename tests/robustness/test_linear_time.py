"""The parser takes linear time on hostile text: 32 KB of each shape costs about twice 16 KB.

Each shape aims at one recogniser or pattern (runs of spaces where two patterns could split them, an
opener followed by what may still become a marker, tag, heading or fence, long runs of openers), and
is parsed whole and streamed. A quadratic pattern makes the ratio 4 (a line of 32,000 spaces took 52 s
before every recogniser was bounded to its window); the test asserts a ratio, not a time, and takes
the best of several runs of CPU time, measured again before failing, so a busy machine does not
fail it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import pytest

from cite_core import (
    CitationSession,
    CitationStream,
    build_messages,
    cite_structured,
    extractive_answer,
    number_sources,
    parse_answer,
    render_html,
    render_markdown,
    render_terminal,
    split_sentences,
    verify,
)
from tests.core.test_properties import SOURCES

SMALL, LARGE = 16_000, 32_000
MAX_RATIO = 3.0
"""Linear is 2; quadratic is 4. Noise on a shared machine stays well under 3 with the best of runs."""


def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: (unit * (n // len(unit) + 1))[:n]


def _after(head: str, unit: str = " ") -> Callable[[int], str]:
    return lambda n: head + unit * (n - len(head))


SHAPES: dict[str, Callable[[int], str]] = {
    "a line of spaces": _repeat(" "),
    "spaces and tabs": _repeat(" \t"),
    "[ and spaces": _after("["),
    "【 and spaces": _after("【"),
    "( and spaces": _after("("),
    "[1 and spaces": _after("[1"),
    "[^ and spaces": _after("[^"),
    "[Source and spaces": _after("[Source"),
    "[1] and spaces": _after("[1]"),
    "[1]( and a URL": _after("[1](", "a"),
    "[ and digits": _after("[", "1"),
    "<cit and spaces": _after("<cit"),
    "</cit and spaces": _after("</cit"),
    "<think and spaces": _after("<think"),
    "</think and spaces": _after("</think"),
    "<statement and spaces": _after("<statement"),
    "<cite> and spaces": _after("<cite>"),
    "Sources: and spaces": _after("Sources:"),
    "# and spaces": _after("#"),
    "**Sources and spaces": _after("**Sources"),
    "- and spaces": _after("- "),
    "1. and spaces": _after("1. "),
    "backticks": _repeat("`"),
    "tildes": _repeat("~"),
    "indented long fence lines in a fence": lambda n: "```\n" + _repeat("    " + "`" * 33 + "\n")(n - 4),
    "fence lines of spaces in a fence": lambda n: "```\n" + _repeat(" " * 40 + "\n")(n - 4),
    "underscores": _repeat("_"),
    "stars and spaces": _repeat("* "),
    "colons": _repeat(":"),
    "open brackets": _repeat("[["),
    "angle brackets": _repeat("<"),
    "parentheses": _repeat("("),
    "unclosed groups": _repeat("[1 ,"),
    "keywords": _repeat("[source "),
    "markers and commas": _repeat("[1], "),
    "markers and joiners": _repeat("[1] and "),
    "newlines": _repeat("\n"),
    "heading lines": _repeat("Sources\n"),
    "reference lines": _repeat("[1] My Document\n"),
    "sentence markers": _repeat("[1:2]"),
    "CIT tags": _repeat("<CIT chunk_id='1' sentences='1-2'>x</CIT>"),
    "thinking tags": _repeat("<think>"),
    "a long claim": lambda n: _repeat("grass green ")(n - 4) + "[1].",
}

WAITING_MARKERS: dict[str, Callable[[int], str]] = {
    "markers and newlines": _repeat("[1]\n"),
    "markers and numbers": _repeat("[1] 42 "),
    "markers and dashes": _repeat("[1] - "),
    "a claim, then markers and newlines": lambda n: "The grass is green. " + _repeat("[1]\n")(n - 20),
}
"""Markers separated by text without letters: each waits for its claim (the assembler scanned the whole
waiting text for a letter at each marker and line end: x3.5-3.9 per doubling, 80 KB in 5 s)."""


def _time(run: Callable[[Any], object], text: Any, loops: int) -> float:
    # The cyclic collector is paused while timing: its full passes traverse the whole heap of the test
    # process (a pytest-xdist worker late in the suite holds a large one; the 16,000-level object of
    # test_cite_structured_is_linear_in_the_depth too), and whether the larger input's allocations cross
    # the threshold of such a pass is a step, not a pattern of the code measured (CI at a84ecac:
    # split_sentences(" . " * n) 3.0-3.9 per doubling there, 1.95-2.3 in a fresh process; the structured
    # walk 4-6 with the collector running, 2.1 paused)
    gc.disable()
    try:
        start = time.thread_time()  # CPU time: the time the machine's other work takes is not counted
        for _ in range(loops):
            run(text)
        return time.thread_time() - start
    finally:
        gc.enable()


def _ratio(run: Callable[[Any], object], make: Callable[[int], Any]) -> float:
    small, large = make(SMALL), make(LARGE)
    loops, elapsed = 1, _time(run, small, 1)  # also a warm-up: first-use caches are not the pattern's cost
    while elapsed < 0.02:  # fast shapes: enough calls per measure that the timer's grain does not matter
        loops *= 2
        elapsed = _time(run, small, loops)
    best_small = best_large = float("inf")
    for _ in range(5 if elapsed < 0.05 else 2):  # interleaved, so a busy moment hits both sizes alike
        best_small = min(best_small, _time(run, small, loops))
        best_large = min(best_large, _time(run, large, loops))
    return best_large / best_small


def _whole(text: str) -> object:
    return parse_answer(text, SOURCES)


def _streamed(text: str) -> object:
    stream = CitationStream(SOURCES)
    for i in range(0, len(text), 7):  # an odd chunk size cuts each construct at every offset somewhere
        stream.feed(text[i : i + 7])
    return stream.finish()


def _assert_linear(run: Callable[[Any], object], make: Callable[[int], Any]) -> None:
    ratios = []
    for _ in range(3):  # measured again before failing: one busy moment is not a quadratic pattern
        ratios.append(_ratio(run, make))
        if ratios[-1] < MAX_RATIO:
            return
    pytest.fail(f"32 KB took {min(ratios):.1f} times as long as 16 KB (ratios {ratios})")


@pytest.mark.parametrize("shape", SHAPES)
def test_the_whole_parse_is_linear(shape: str) -> None:
    _assert_linear(_whole, SHAPES[shape])


@pytest.mark.parametrize("shape", SHAPES)
def test_the_stream_is_linear(shape: str) -> None:
    _assert_linear(_streamed, SHAPES[shape])


@pytest.mark.parametrize("unit", [" ", "\n", ". ", "Dr. ", "1. ", "中。", "A. B. ", " . ", "e.g. "])
def test_sentence_splitting_is_linear(unit: str) -> None:
    _assert_linear(split_sentences, _repeat(unit))


def _prompt(text: str) -> object:
    return build_messages("Why?", [text + "x"])


def _rendered(text: str) -> object:
    answer = parse_answer(text + " [1].", SOURCES)
    return render_markdown(answer), render_html(answer), render_terminal(answer)


@pytest.mark.parametrize("unit", [" ", "<", "< /", "</source ", "](", "[1]: ", "\u200b", "\\"])
def test_prompting_and_rendering_are_linear(unit: str) -> None:
    """Source text goes through the prompt neutraliser, answer text through the renderers' escapes."""
    _assert_linear(_prompt, _repeat(unit))
    _assert_linear(_rendered, _repeat(unit))


def _ingested(text: str) -> object:
    """What ``cite ingest`` does with a Markdown file's text: its title, then its chunks."""
    from pathlib import Path

    from cite_cli._documents import Document, chunk_spans, markdown_title

    return markdown_title(text), chunk_spans(Document(Path("x.md"), "x", [text], paged=False))


MARKDOWN_SHAPES: dict[str, Callable[[int], str]] = {
    "a heading line of spaces": lambda n: "# " + " " * (n - 3) + "x",
    "a heading with a run of spaces inside": lambda n: "# a" + " " * (n - 4) + "b",
    "a heading line of spaces and hashes": lambda n: "# " + " " * (n - 4) + "#x",
    "a heading of spaces and tabs": lambda n: "#" + _repeat(" \t")(n - 2) + "x",
    "heading lines of spaces": _repeat("#" + " " * 60 + "\n"),
    "hashes": _repeat("#"),
    "fences and items": _repeat("```\n- a\n> b\n| c |\n"),
    "a wrapped item": lambda n: "- Item" + _repeat("\n  word")(n - 6),
    "quote markers": _repeat("> > "),
    "a long heading over many sentences": lambda n: (
        "# " + "item " * (n // 10) + "\n\n" + _repeat("Item word. ")(n // 2)
    ),
}


@pytest.mark.parametrize("shape", MARKDOWN_SHAPES)
def test_ingesting_markdown_is_linear(shape: str) -> None:
    """Issue 33: a heading line with a long run of spaces took x8 per doubling (60 s for 4 KB)."""
    _assert_linear(_ingested, MARKDOWN_SHAPES[shape])


def _extracted(text: str) -> object:
    return extractive_answer("What is the item word?", [text + " item word."])


@pytest.mark.parametrize("shape", MARKDOWN_SHAPES)
def test_the_extractive_answer_is_linear(shape: str) -> None:
    """The offline answerer reads the sources' Markdown structure (``prose_blocks``) in one pass."""
    _assert_linear(_extracted, MARKDOWN_SHAPES[shape])


def _numbering_ratio(run: Callable[[list[object]], object], make: Callable[[int], list[object]]) -> float:
    small, large = make(1_000), make(2_000)
    run(small)  # warm-up
    best_small = best_large = float("inf")
    for _ in range(3):
        start = time.thread_time()
        run(small)
        best_small = min(best_small, time.thread_time() - start)
        start = time.thread_time()
        run(large)
        best_large = min(best_large, time.thread_time() - start)
    return best_large / best_small


def _distinct_items(n: int) -> list[object]:
    return [
        {"text": f"Chunk {i} says one thing.", "title": f"Doc {i}", "document_id": f"d{i}"} for i in range(n)
    ]


def test_numbering_is_linear() -> None:
    ratios = [_numbering_ratio(number_sources, _distinct_items) for _ in range(3)]
    assert min(ratios) < MAX_RATIO, f"2,000 items took {min(ratios):.1f} times as long as 1,000 ({ratios})"


def test_numbering_langchain_documents_is_linear() -> None:
    """The duplicate check compared each Document with every one before it: 4,000 took 6.3 s."""
    documents = pytest.importorskip("langchain_core.documents")
    from langchain_cite import documents_to_sources

    def make(n: int) -> list[object]:
        return [
            documents.Document(page_content=f"Chunk {i} says one thing.", metadata={"source": f"/d/{i}.txt"})
            for i in range(n)
        ]

    ratios = [_numbering_ratio(documents_to_sources, make) for _ in range(3)]
    assert min(ratios) < MAX_RATIO, (
        f"2,000 Documents took {min(ratios):.1f} times as long as 1,000 ({ratios})"
    )


def _nested(container: str) -> Callable[[int], object]:
    """An object nested as deep as a JSON text of ``n`` characters (``{"a":`` or ``[`` per level) with one
    string field at the bottom."""

    def make(n: int) -> object:
        value: object = "Grass is green [1]."
        for _ in range(n // (6 if container == "dict" else 2)):
            value = {"a": value} if container == "dict" else [value]
        return value

    return make


@pytest.mark.parametrize("container", ["dict", "list"])
def test_cite_structured_is_linear_in_the_depth(container: str) -> None:
    """The walk kept the containers open on the path as a set copied per level, and built every
    container's path as a string (x3.4-5 per doubling); now one set and a path built per string field."""
    _assert_linear(lambda value: cite_structured(value, SOURCES), _nested(container))


@pytest.mark.parametrize(
    "unit",
    ['<source number="1">\nabc\n', '<source number="1" title="x">\n', '\n</source>\n<source number="2">\n'],
)
def test_session_restore_is_linear(unit: str) -> None:
    """Many unclosed ``<source>`` headers: each rescanned the rest of the text for its end (x4)."""
    _assert_linear(lambda text: CitationSession().restore(text), _repeat(unit))


_CITED = parse_answer("The grass is green [1]. The sky is blue [1].", SOURCES)


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "```json\n" + "\n" * (n - 11) + "```",  # the fence pattern was cubic on this (x8)
        lambda n: "```\n{" + " \n" * (n // 2 - 4) + "}\n```",
        _repeat("{"),
        _repeat("}{"),
    ],
    ids=["a fence and newlines", "a fence around spaces and newlines", "open braces", "brace pairs"],
)
def test_judge_replies_are_read_in_linear_time(make: Callable[[int], str]) -> None:
    """Each reply is read twice (the retry gets the same reply) and ends as ``Verification.problem``."""
    _assert_linear(lambda reply: verify(_CITED, lambda prompt: reply), make)


def _paged_answer(n: int) -> object:
    """A source of ``n // 60`` pages, each cited once: every page is a segment of the rendered source."""
    pages = [f"Page sentence number {i} is here. Another fact {i} is stated." for i in range(n // 60)]
    sources = number_sources([{"pages": pages, "title": "Book"}])
    return parse_answer(
        "".join(f"Page sentence number {i} is here [1]. " for i in range(len(pages))), sources
    )


def test_rendering_a_paged_source_with_many_cited_passages_is_linear() -> None:
    """Every span was looked at for every page and every piece of the source panel (x3.8)."""
    _assert_linear(render_html, _paged_answer)


@pytest.mark.parametrize(
    ("run", "make"),
    [
        (split_sentences, lambda n: "A line.\nB" + " " * (n - 11) + "c"),  # spaces before no line break
        (split_sentences, lambda n: "A line.\nB" + " \t" * (n // 2 - 6) + "c"),
        (lambda text: extractive_answer("dots?", [text]), lambda n: "Dots here" + "." * (n - 10) + "x"),
        (_whole, lambda n: "[1]" + " ," * (n // 2 - 4) + "x [1]."),  # separators between two groups
    ],
    ids=["spaces in a line", "spaces and tabs in a line", "a run of dots", "separators between markers"],
)
def test_the_patterns_the_regex_audit_rewrote_are_linear(run: Callable[[Any], object], make: Any) -> None:
    """Each shape made one of the audited patterns of tests/robustness/test_regex_audit.py quadratic."""
    _assert_linear(run, make)


@pytest.mark.parametrize("shape", WAITING_MARKERS)
def test_markers_waiting_for_their_claim_are_linear(shape: str) -> None:
    """Whole and streamed. Every marker here is a citation object: with the cyclic collector running,
    its passes over them put the ratio near 3 on a busy machine (paused: 2.0-2.8, and 3.0-3.5 before)."""
    _assert_linear(_whole, WAITING_MARKERS[shape])
    _assert_linear(_streamed, WAITING_MARKERS[shape])


def _claims_in_similar_sentences(n: int) -> tuple[list[object], str]:
    """``n // 48`` claims, each citing one of as many similar sentences of one source."""
    sentences = [f"Item {i} of the catalogue weighs {i * 7} grams." for i in range(n // 48)]
    answer = " ".join(f"{sentence[:-1]} [1]." for sentence in sentences)
    return number_sources([" ".join(sentences)]), answer


def test_locating_n_claims_in_a_source_of_n_similar_sentences_is_linear() -> None:
    """Every unit of the source was scored for every claim (x3.7); a long source is scored through its
    candidates, at most ``MAX_CANDIDATES`` units per claim (cite_core/_locate/candidates.py)."""
    _assert_linear(lambda made: parse_answer(made[1], made[0]), _claims_in_similar_sentences)
