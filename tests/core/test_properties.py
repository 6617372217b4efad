"""Properties of the parser over generated text and real answers, for any chunking.

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import Source, number_sources, parse_answer
from tests.invariants import check_answer, check_stream_equals_whole, streamed

SOURCES = number_sources(
    [
        {
            "text": "The grass is green. The sky is blue.",
            "title": "My Document",
            "url": "https://example.org/d",
        },
        "Water is essential for life.",
        {"text": "Paris is the capital of France. It has many museums.", "title": "France"},
        {"pages": ["Cats purr. Cats sleep.", "Dogs bark."], "title": "Pets"},
        {"blocks": ["Tea is hot.", "Ice is cold."]},
    ]
)

PIECES = [
    "a",
    "b",
    " ",
    ".",
    "\n",
    "[",
    "]",
    "1",
    "2",
    "7",
    ",",
    "-",
    "–",
    "^",
    "(",
    ")",
    "`",
    "<",
    ">",
    "【",
    "】",
    "[1]",
    "[2]",
    "[5]",
    "[0]",
    "[9]",
    "[Source 1]",
    "(Source 2)",
    "[1, 3]",
    "[2-4]",
    "[[3]]",
    "[^1]",
    "[1:2]",
    "<CIT chunk_id='1' sentences='1-2'>",
    "</CIT>",
    "```\n",
    "\nSources:\n",
    "\n[1] My Document",
    "[^1]: x",
    "[1](https://x.org/a)",
    "The grass is green",
    "Paris. ",
    "¿Qué? ",
    "中文。",
    "  ",
    "- [ ] ",
    "Dr. Smith ",
    "<think>",
    "</think>",
    "<Thinking>",
    "</thinking>",
    "<reasoning>",
    "</REASONING>",
    "<thi",
    "\n\n",
]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join) | st.text(max_size=60)


def expertqa_answers() -> list[tuple[str, list[Source]]]:
    path = Path(__file__).resolve().parent.parent / "data" / "expertqa_subset.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        by_n = {p["n"]: p for p in row["passages"]}
        items = [
            {
                "text": (by_n.get(n, {}).get("text") or "").strip() or "(no text)",
                "url": by_n.get(n, {}).get("url"),
            }
            for n in range(1, max(by_n) + 1)
        ]
        out.append((row["answer"], number_sources(items)))
    return out


REAL = expertqa_answers()


@given(texts, st.lists(st.integers(min_value=1, max_value=200), max_size=40))
def test_any_text_parses_and_stream_equals_whole_for_any_chunking(text: str, cuts: list[int]) -> None:
    check_stream_equals_whole(text, cuts, SOURCES)


@given(texts)
def test_one_character_chunks_equal_the_whole_parse(text: str) -> None:
    answer, deltas, events = streamed(text, list(range(1, len(text))), SOURCES)
    assert answer == parse_answer(text, SOURCES) and deltas == answer.plain_text
    assert "".join(e.thinking for e in events if e.type == "thinking_delta") == answer.reasoning


@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), texts)
@example(thinking="", text="\n[0] ")  # leading space is trimmed before the invalid marker is removed
def test_markers_inside_thinking_are_neither_citations_nor_invalid(thinking: str, text: str) -> None:
    for close in ("</think>", "</", "<"):
        if close in thinking:
            thinking = thinking.replace(close, "")
    plain = parse_answer(text, SOURCES)
    answer = parse_answer(f"<think>{thinking}</think>\n\n{text}", SOURCES)
    tags = ("<think", "</think", "<reasoning", "</reasoning")  # <thinking> too
    if not any(tag in text.lower() for tag in tags) and not text.lstrip().startswith("</"):
        # the answer after a thinking section starts at its first non-space character (without one,
        # a lone </think> in the text makes what precedes it reasoning)
        assert answer.text.lstrip() == plain.text.lstrip()
        assert answer.references == plain.references
        assert answer.invalid_markers == plain.invalid_markers


@given(st.sampled_from(range(len(REAL))), st.lists(st.integers(min_value=1, max_value=3000), max_size=60))
def test_real_answers_stream_equals_whole(index: int, cuts: list[int]) -> None:
    text, sources = REAL[index]
    check_stream_equals_whole(text, cuts, sources)


@given(st.lists(st.sampled_from([1, 2, 3, 4, 5, 6, 0, 42]), min_size=1, max_size=12))
def test_references_are_exactly_the_valid_markers_that_appear(numbers: list[int]) -> None:
    text = " ".join(f"Claim number {i} [{n}]." for i, n in enumerate(numbers))
    answer = parse_answer(text, SOURCES)
    valid = [n for n in numbers if 1 <= n <= len(SOURCES)]
    assert [r.source.number for r in answer.references] == list(dict.fromkeys(valid))
    assert answer.invalid_markers == [f"[{n}]" for n in numbers if not 1 <= n <= len(SOURCES)]
    check_answer(answer, SOURCES, text)


# Each construct has one definition and one limit for the whole parse and the stream: long runs of
# spaces inside a construct (where its limit falls) and fence lines of every length, cut anywhere.
CONSTRUCT_PIECES = [
    "<think", "</think", "<thinking", "<reasoning", "<statement", "</statement", "<cite>", "</cite",
    "<cit", "</cit", "<CIT chunk_id='1'", "<CIT chunk_id='1' sentences='2'", ">", "[", "[1", "[^1", "[1]",
    "[1]:", "]", "(", "(Source 1", ")", "Sources", "Sources:", "## References", "**Sources:**", "- ", "1. ",
    "[1] My Document", "http", "```", "~~~", "`" * 32, "`" * 33, "~" * 33, "    ", "\n", "x", "The grass.",
]  # fmt: skip
SPACE_RUNS = st.integers(0, 300).map(" ".__mul__) | st.sampled_from(["\t", " \t ", "\u3000"])
CONSTRUCT_TEXTS = st.lists(st.sampled_from(CONSTRUCT_PIECES) | SPACE_RUNS, max_size=14).map("".join)


@given(CONSTRUCT_TEXTS, st.lists(st.integers(min_value=1, max_value=900), max_size=30))
@example("A <think" + " " * 19 + ">r</think> b [1].", [26])
@example("<think>r</think" + " " * 19 + "> b [1].", [33])
@example("<statement" + " " * 19 + ">Grass.<cite>[1]</cite></statement>", [25])
@example("<CIT chunk_id='1'>Grass</cit" + " " * 235 + "> more [1].", [264])
@example("Text [1].\nSources:" + " " * 45 + "\n[1] x", [58])
@example("Text [1].\nSources" + " " * 45 + "\nfoo", [58])
@example("a\n```\ncode\n    " + "`" * 33 + "\nafter [1]\n", [47])
@example("a\n```\ncode\n" + "`" * 3 + " " * 40 + "\nafter [1]\n", [30])
@example("Text [1].\n" + " " * 60 + "[1]: http://x\n", [59])
@example("<cite>" + " " * 16 + "[1]", [22])
def test_long_space_runs_and_fences_stream_equals_whole_for_any_chunking(text: str, cuts: list[int]) -> None:
    check_stream_equals_whole(text, cuts, SOURCES)


SHORT_RUNS = st.integers(0, 60).map(" ".__mul__)


@given(st.lists(st.sampled_from(CONSTRUCT_PIECES) | SHORT_RUNS, max_size=10).map("".join))
def test_constructs_fed_one_character_at_a_time_equal_the_whole_parse(text: str) -> None:
    answer, deltas, _ = streamed(text, list(range(1, len(text))), SOURCES)
    assert answer == parse_answer(text, SOURCES) and deltas == answer.plain_text
