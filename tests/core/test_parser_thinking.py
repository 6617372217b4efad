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


def test_claude_thinking_blocks_go_to_reasoning() -> None:
    from cite_core import AnthropicCitationStream, from_anthropic_content

    answer = from_anthropic_content(
        [{"type": "thinking", "thinking": "Source 2 is the moon."}, {"type": "text", "text": "Hi."}], SOURCES
    )
    assert answer.reasoning == "Source 2 is the moon." and answer.text == "Hi."
    stream = AnthropicCitationStream(SOURCES)
    events = stream.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}})
    events += stream.feed(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hm."}}
    )
    assert events == [ThinkingDelta(thinking="Hm.")]
    assert stream.finish().reasoning == "Hm."


# -- reasoning models whose chat template opens the thinking (R1 distills, QwQ): only </think> appears

R1 = (
    "Okay, source [1] is about the Moon, [2] about fusion... [2] [9]\n</think>\n\n"
    "Hydrogen fuses into helium [1]."
)


def test_text_before_a_lone_closing_tag_is_reasoning() -> None:
    answer = parse_answer(R1, SOURCES)
    assert answer.text == "Hydrogen fuses into helium [1]."
    assert answer.reasoning == "Okay, source [1] is about the Moon, [2] about fusion... [2] [9]\n"
    assert [r.source.number for r in answer.references] == [1]  # [2] of the reasoning is no citation
    assert answer.invalid_markers == []  # nor is [9] an invalid marker
    assert [c.document_index for c in answer.citations] == [0]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 1000])
@pytest.mark.parametrize("display", [False, True])
def test_a_lone_closing_tag_streamed_resets_the_answer(size: int, display: bool) -> None:
    from cite_core import AnswerReset

    stream = CitationStream(SOURCES, display=display)
    events: list[object] = []
    for i in range(0, len(R1), size):
        events += stream.feed(R1[i : i + size])
    answer = stream.finish()
    events += stream.pending_events()
    assert answer == parse_answer(R1, SOURCES)
    resets = [i for i, e in enumerate(events) if isinstance(e, AnswerReset)]
    assert len(resets) == 1
    after = events[resets[0] + 1 :]
    assert "".join(e.text for e in after if e.type == "text_delta") == answer.plain_text  # type: ignore[attr-defined]
    assert [e.citation for e in after if e.type == "citations_delta"] == answer.citations  # type: ignore[attr-defined]
    if display:
        assert "".join(e.text for e in after if e.type == "display_delta") == answer.text  # type: ignore[attr-defined]
    assert "".join(e.thinking for e in events if isinstance(e, ThinkingDelta)) == answer.reasoning


def test_only_a_first_thinking_tag_that_closes_is_a_lone_close() -> None:
    later = parse_answer("<think>[2]</think>The Sun fuses [1].</think> More.", SOURCES)
    assert later.text == "The Sun fuses [1]. More." and later.reasoning == "[2]"
    in_code = parse_answer("Write `</think>` to end thinking [1].", SOURCES)
    assert in_code.reasoning == "" and in_code.text == "Write `</think>` to end thinking [1]."


def test_a_model_cut_off_while_thinking_gives_an_empty_answer_and_a_note() -> None:
    from cite_core import answer_notes, render_terminal

    answer = parse_answer("<think>Source [2] is about the moon, [1] about", SOURCES)
    assert answer.text == "" and answer.citations == [] and answer.invalid_markers == []
    assert answer.reasoning == "Source [2] is about the moon, [1] about"
    assert answer.stopped_in_reasoning
    [note] = answer_notes(answer)
    assert note.kind == "stopped_in_reasoning" and "stopped while still reasoning" in note.text
    assert answer_notes(answer, "es")[0].text.startswith("El modelo se detuvo")
    assert note.text in answer.to_markdown() and note.text in answer.to_html()
    assert note.text in render_terminal(answer)
    assert not parse_answer(R1, SOURCES).stopped_in_reasoning
    assert not parse_answer(ISSUE, SOURCES).stopped_in_reasoning


@pytest.mark.parametrize("size", [1, 5, 64])
def test_cut_off_while_thinking_streamed_equals_whole(size: int) -> None:
    text = "<think>Source [2] is about the moon, [1] about"
    answer, events = chunked(text, size)
    assert answer == parse_answer(text, SOURCES) and answer.stopped_in_reasoning
    assert not [e for e in events if getattr(e, "type", "") in ("text_delta", "display_delta")]


def test_parse_answer_takes_reasoning_that_came_apart() -> None:
    answer = parse_answer("Hydrogen fuses [1].", SOURCES, reasoning="Source [2] is the moon.")
    assert answer.reasoning == "Source [2] is the moon." and [r.source.number for r in answer.references] == [
        1
    ]
    stream = CitationStream(SOURCES)
    stream.feed_reasoning("Source [2] is the moon.")
    stream.feed("Hydrogen fuses [1].")
    assert stream.finish() == answer
    with pytest.raises(TypeError):
        parse_answer("x", SOURCES, reasoning=None)  # type: ignore[arg-type]
