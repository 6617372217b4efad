"""Claims around markers: a lead-in such as "According to [2]," is not a claim of its own and the plain
text around the removed marker reads naturally."""

from __future__ import annotations

import pytest

from cite_core import CitationStream, number_sources, parse_answer

SOURCES = number_sources(
    ["Hydrogen fuses into helium in the Sun.", "There are eight planets in the solar system."]
)


@pytest.mark.parametrize(
    ("text", "shown", "plain"),
    [
        (
            "According to [2], there are eight planets.",
            "According to [1], there are eight planets.",
            "According to there are eight planets.",
        ),
        (
            "As noted in [1],the Sun fuses hydrogen.",
            "As noted in [1], the Sun fuses hydrogen.",
            "As noted in the Sun fuses hydrogen.",
        ),
        (
            "According to [2] , there are planets [1].",
            "According to [1] , there are planets [2].",
            "According to there are planets.",
        ),
    ],
)
def test_no_dangling_comma_after_a_lead_in(text: str, shown: str, plain: str) -> None:
    answer = parse_answer(text, SOURCES)
    assert answer.text == shown
    assert answer.plain_text == plain
    assert "".join(b.text + b.marker_text for b in answer.content) == answer.text
    for size in (1, 3, 8):
        stream = CitationStream(SOURCES)
        for i in range(0, len(text), size):
            stream.feed(text[i : i + size])
        assert stream.finish() == answer


def test_the_lead_in_is_not_a_claim_of_its_own() -> None:
    answer = parse_answer("According to [2], there are eight planets.", SOURCES)
    cited = [b for b in answer.content if b.citations]
    assert [b.text.strip() for b in cited] == ["there are eight planets."]
    assert cited[0].citations[0].cited_text == "There are eight planets in the solar system."


def test_a_comma_after_a_claim_marker_stays() -> None:
    answer = parse_answer("The Sun fuses hydrogen [1], and there are eight planets [2].", SOURCES)
    assert answer.plain_text == "The Sun fuses hydrogen, and there are eight planets."


def test_a_list_number_is_never_a_claim_of_its_own() -> None:
    # ExpertQA answers write "such as:\n\n1[1]. Step one." - the claim was just "1"
    answer = parse_answer("There are steps such as:\n\n1[1]. Mix the flour.\n2[2]. Bake it.", SOURCES)
    assert answer.text == "There are steps such as:\n\n1[1]. Mix the flour.\n2[2]. Bake it."
    claims = [c.text.strip(" .\n") for c in answer.claims]
    assert "1" not in claims and "2" not in claims
    assert claims == ["Mix the flour", "Bake it"]


def test_a_bare_heading_is_never_a_claim_of_its_own() -> None:
    answer = parse_answer("## Planets [2]\nThere are eight planets in the solar system.", SOURCES)
    assert [c.text.strip() for c in answer.claims] == ["There are eight planets in the solar system."]
    assert answer.citations[0].cited_text == "There are eight planets in the solar system."
