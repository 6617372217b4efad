"""Claims (issue 13.5): list numbers and lead-ins that name a source are never a claim of their own."""

from __future__ import annotations

import pytest

from cite_core import CitationStream, number_sources, parse_answer

SOURCES = number_sources(
    [
        "Hydrogen fuses into helium in the Sun.",
        "There are eight planets in the solar system.",
        "Step one: mix the flour. Step two: bake the bread.",
    ]
)


def _parse(text: str):  # type: ignore[no-untyped-def]
    answer = parse_answer(text, SOURCES)
    for size in (1, 4):
        stream = CitationStream(SOURCES)
        for i in range(0, len(text), size):
            stream.feed(text[i : i + size])
        assert stream.finish() == answer
    return answer


@pytest.mark.parametrize(
    "text",
    [
        "1. [3] Mix the flour.\n2. [3] Bake the bread.",
        "Steps:\n\n1.[3] Mix the flour.\n2.[3] Bake the bread.",
        "a) [3] Mix the flour.\nb) [3] Bake the bread.",
    ],
)
def test_a_list_number_before_the_marker_is_not_the_claim(text: str) -> None:
    answer = _parse(text)
    assert [c.text.strip() for c in answer.claims] == ["Mix the flour.", "Bake the bread."]
    assert [c.cited_text for c in answer.citations] == [
        "Step one: mix the flour.",
        "Step two: bake the bread.",
    ]


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        (
            "According to the report [2], there are eight planets.",
            "According to the report there are eight planets.",
        ),
        (
            "According to some sources [2][1], there are eight planets.",
            "According to some sources there are eight planets.",
        ),
        ("As reported by NASA [2], there are eight planets.", "As reported by NASA there are eight planets."),
        ("Según el informe [2], hay eight planets.", "Según el informe hay eight planets."),
    ],
)
def test_a_lead_in_naming_a_source_is_not_the_claim(text: str, plain: str) -> None:
    answer = _parse(text)
    assert answer.plain_text == plain  # no "According to the report, there are"
    claim = "hay eight planets." if text.startswith("Según") else "there are eight planets."
    assert [c.text for c in answer.claims] == [claim]
    assert [b.text for b in answer.content if b.citations] == [answer.claims[0].text]
    planets = [c for c in answer.citations if c.document_index == 1]
    assert planets[0].cited_text == "There are eight planets in the solar system."


def test_markers_joined_by_and_after_a_lead_in_cite_what_follows() -> None:
    answer = _parse("According to [1] and [2], the Sun fuses hydrogen and there are eight planets.")
    assert [c.text.strip() for c in answer.claims] == ["the Sun fuses hydrogen and there are eight planets."]
    assert [c.cited_text for c in answer.citations] == [SOURCES[0].text, SOURCES[1].text]
    # "[1] and [2]" is one marker group, shown as "[1][2]" like "[1], [2]" (test_parser_joiners.py)
    assert answer.text == "According to [1][2], the Sun fuses hydrogen and there are eight planets."
    assert answer.plain_text == "According to the Sun fuses hydrogen and there are eight planets."


def test_a_sentence_starting_with_according_to_keeps_its_claim() -> None:
    text = "According to the 2020 survey, the solar system has eight planets [2]."
    answer = _parse(text)
    assert [c.text for c in answer.claims] == [text[: text.index(" [2]")]]


@pytest.mark.parametrize(
    "text",
    [
        "For instance, some sources [2] suggest that there are eight planets.",
        "Studies [2] suggest that there are eight planets.",
    ],
)
def test_sources_as_the_subject_are_not_the_claim(text: str) -> None:
    answer = _parse(text)
    assert [c.text for c in answer.claims] == ["suggest that there are eight planets."]
    assert answer.citations[0].cited_text == "There are eight planets in the solar system."


def test_a_claim_ending_in_a_source_noun_keeps_its_claim() -> None:
    answer = _parse("This is supported by several studies [2].")
    assert [c.text for c in answer.claims] == ["This is supported by several studies"]


@pytest.mark.parametrize(
    "text",
    [
        "### Solar system facts [2]\n\nThere are eight planets.",
        "**Solar system facts** [2]\nThere are eight planets.",
        "Intro.\n\n## The planets of the solar system [2]\nThere are eight planets.",
    ],
)
def test_a_bare_heading_of_several_words_is_not_the_claim(text: str) -> None:
    answer = _parse(text)
    assert [c.text for c in answer.claims] == ["There are eight planets."]
    assert answer.citations[0].cited_text == "There are eight planets in the solar system."


def test_a_bold_label_inside_a_sentence_is_part_of_the_claim() -> None:
    answer = _parse("**Note:** the Sun fuses hydrogen [1].")
    assert [c.text for c in answer.claims] == ["**Note:** the Sun fuses hydrogen"]
