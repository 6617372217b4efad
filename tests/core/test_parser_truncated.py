"""A cut-off answer (``truncated=True``): dangling marker text dropped, a note, whole as streamed."""

from __future__ import annotations

import pytest

from cite_core import ArgumentError, CitationStream, answer_notes, number_sources, parse_answer

SOURCES = number_sources(["Hydrogen fuses into helium in the core.", "The Moon reflects sunlight."])


@pytest.mark.parametrize(
    ("text", "shown", "cited"),
    [
        ("Hydrogen fuses into helium [1", "Hydrogen fuses into helium", 0),
        (
            "Hydrogen fuses into helium [1]. The Moon reflects [2",
            "Hydrogen fuses into helium [1]. The Moon reflects",
            1,
        ),
        ("Hydrogen fuses into helium [1] [2", "Hydrogen fuses into helium [1]", 1),
        ("Hydrogen fuses into helium [1, 2", "Hydrogen fuses into helium", 0),
        ("Hydrogen fuses into helium 【", "Hydrogen fuses into helium", 0),
        ("Hydrogen fuses.\n[2", "Hydrogen fuses.\n", 0),
        ("Hydrogen fuses into helium [1]", "Hydrogen fuses into helium [1]", 1),  # complete: still cites
        ("Hydrogen fuses into helium", "Hydrogen fuses into helium", 0),
    ],
)
def test_a_cut_off_answer_drops_its_dangling_marker_whole_and_streamed(
    text: str, shown: str, cited: int
) -> None:
    answer = parse_answer(text, SOURCES, truncated=True)
    assert (answer.text, len(answer.citations), answer.truncated) == (shown, cited, True)
    assert [n.kind for n in answer_notes(answer)] == ["truncated"]
    stream = CitationStream(SOURCES, display=True)
    events = [e for ch in text for e in stream.feed(ch)]
    assert stream.finish(truncated=True) == answer
    events += stream.pending_events()
    assert "".join(e.text for e in events if e.type == "display_delta") == answer.text


def test_an_answer_not_said_to_be_cut_off_keeps_its_text_and_has_no_note() -> None:
    answer = parse_answer("Hydrogen fuses into helium [1", SOURCES)
    assert answer.text == "Hydrogen fuses into helium [1" and not answer.truncated
    assert [n.kind for n in answer_notes(answer)] == []


def test_truncated_must_be_a_flag() -> None:
    with pytest.raises(ArgumentError, match="truncated"):
        parse_answer("x", SOURCES, truncated="yes")  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="truncated"):
        CitationStream(SOURCES).finish(truncated=1)  # type: ignore[arg-type]
