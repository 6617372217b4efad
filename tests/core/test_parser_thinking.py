"""Thinking sections (<think>, <thinking>, <reasoning>) and reasoning fed apart: kept out of the answer."""

from __future__ import annotations

import pytest

from cite_core import CitationStream, ThinkingDelta, number_sources, parse_answer

SOURCES = number_sources(["Hydrogen fuses into helium in the Sun.", "The Moon orbits the Earth."])
ISSUE = "<think>Source [2] is about the moon, [1] about fusion.</think>\n\nHydrogen fuses [1]."


def chunked(text: str, size: int) -> tuple[object, list[object]]:
    stream = CitationStream(SOURCES)
    events: list[object] = []
    for i in range(0, len(text), size):
        events += stream.feed(text[i : i + size])
    answer = stream.finish()
    return answer, events + stream.pending_events()


def test_the_issue_example() -> None:
    answer = parse_answer(ISSUE, SOURCES)
    assert answer.text == "Hydrogen fuses [1]."
    assert [c.document_index for c in answer.citations] == [0]
    assert [r.source.number for r in answer.references] == [1]
    assert answer.invalid_markers == []
    assert answer.reasoning == "Source [2] is about the moon, [1] about fusion."
    assert answer.plain_text == "Hydrogen fuses."


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 64])
def test_tags_cut_across_chunks(size: int) -> None:
    answer, events = chunked(ISSUE, size)
    assert answer == parse_answer(ISSUE, SOURCES)
    thinking = "".join(e.thinking for e in events if isinstance(e, ThinkingDelta))
    assert thinking == answer.reasoning
    assert "".join(e.text for e in events if e.type == "text_delta") == answer.plain_text


@pytest.mark.parametrize(
    ("opener", "closer"),
    [("<think>", "</think>"), ("<THINKING>", "</Thinking>"), ("<reasoning>", "</reasoning >")],
)
def test_every_tag_name_any_case(opener: str, closer: str) -> None:
    answer = parse_answer(f"{opener}The Moon [2].{closer}The Sun fuses hydrogen [1].", SOURCES)
    assert answer.text == "The Sun fuses hydrogen [1]."
    assert answer.reasoning == "The Moon [2]."


def test_an_unclosed_thinking_section_is_reasoning_not_answer() -> None:
    answer = parse_answer("<think>Let me see [2]. The answer is", SOURCES)
    assert answer.text == "" and answer.citations == [] and answer.references == []
    assert answer.reasoning == "Let me see [2]. The answer is"


def test_thinking_in_the_middle_keeps_the_text_around_it() -> None:
    answer = parse_answer("The Sun fuses hydrogen [1].<think>and [2]?</think> The Moon orbits [2].", SOURCES)
    assert answer.text == "The Sun fuses hydrogen [1]. The Moon orbits [2]."
    assert [r.source.number for r in answer.references] == [1, 2]


def test_thinking_inside_code_is_code() -> None:
    answer = parse_answer("Write `<think>` to think [1].", SOURCES)
    assert answer.text == "Write `<think>` to think [1]." and answer.reasoning == ""


def test_a_lone_closing_tag_is_dropped() -> None:
    answer = parse_answer("</think>\n\nHydrogen fuses [1].", SOURCES)
    assert answer.text == "Hydrogen fuses [1]."


def test_feed_reasoning_adds_to_reasoning_and_streams_thinking_events() -> None:
    stream = CitationStream(SOURCES)
    assert stream.feed_reasoning("First [2]. ") == [ThinkingDelta(thinking="First [2]. ")]
    stream.feed("Hydrogen fuses [1].")
    stream.feed_reasoning("More.")
    answer = stream.finish()
    assert answer.reasoning == "First [2]. More."
    assert answer.text == "Hydrogen fuses [1]." and [r.source.number for r in answer.references] == [1]
    with pytest.raises(TypeError):
        CitationStream(SOURCES).feed_reasoning(b"x")  # type: ignore[arg-type]


def test_less_than_signs_are_not_held_as_tags() -> None:
    answer = parse_answer("If a < b and <b>bold</b> then <thinker> [1].", SOURCES)
    assert answer.text == "If a < b and <b>bold</b> then <thinker> [1]." and answer.reasoning == ""
