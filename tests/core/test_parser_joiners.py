"""Marker groups joined by a word (``[1] and [2]``) are one group, as ``[1], [2]`` is.

The lexer holds a joiner word after a marker (``and``, ``or``, ``&``, ``y``, ``e``, ``o``, ``u``, or what
may still become one at the end of the text received) until the next characters show whether a marker
follows, bounded by ``MAX_WS``: the plain text then never reads "According to and the Sun ...", and a
stream equals the whole parse at any chunking.
"""

from __future__ import annotations

import pytest

from cite_core import CitationStream, DisplayDelta, TextDelta, number_sources, parse_answer

SOURCES = number_sources(
    ["Hydrogen fuses into helium in the Sun.", "There are eight planets in the solar system."]
)


def _streamed(text: str, size: int):  # type: ignore[no-untyped-def]
    stream = CitationStream(SOURCES, display=True)
    events = [e for i in range(0, len(text), size) for e in stream.feed(text[i : i + size])]
    answer = stream.finish()
    events += stream.pending_events()
    return answer, events


@pytest.mark.parametrize(
    ("text", "shown", "plain"),
    [
        (
            "According to [1] and [2], the Sun fuses hydrogen and there are eight planets.",
            "According to [1][2], the Sun fuses hydrogen and there are eight planets.",
            "According to the Sun fuses hydrogen and there are eight planets.",
        ),
        (  # the second group cited the claim "and" before
            "The Sun fuses hydrogen and there are eight planets [1] and [2].",
            "The Sun fuses hydrogen and there are eight planets [1][2].",
            "The Sun fuses hydrogen and there are eight planets.",
        ),
        (
            "Hydrogen fuses in the Sun [1] or [2].",
            "Hydrogen fuses in the Sun [1][2].",
            "Hydrogen fuses in the Sun.",
        ),
        (
            "El Sol fusiona hidrógeno [1] y [2].",
            "El Sol fusiona hidrógeno [1][2].",
            "El Sol fusiona hidrógeno.",
        ),
        (
            "Hydrogen fuses in the Sun [1] & [2].",
            "Hydrogen fuses in the Sun [1][2].",
            "Hydrogen fuses in the Sun.",
        ),
        (  # a joiner before text, not before a marker, stays
            "Hydrogen fuses in the Sun [1] and there are eight planets [2].",
            "Hydrogen fuses in the Sun [1] and there are eight planets [2].",
            "Hydrogen fuses in the Sun and there are eight planets.",
        ),
        (
            "Hydrogen fuses in the Sun [1] a lot.",
            "Hydrogen fuses in the Sun [1] a lot.",
            "Hydrogen fuses in the Sun a lot.",
        ),
        (
            "Hydrogen fuses [1] and (see [2]).",
            "Hydrogen fuses [1] and (see [2]).",
            "Hydrogen fuses and (see).",
        ),
        (
            "Hydrogen fuses in the Sun [1] or",
            "Hydrogen fuses in the Sun [1] or",
            "Hydrogen fuses in the Sun or",
        ),
    ],
)
@pytest.mark.parametrize("size", [1, 3, 8])
def test_joined_groups_streamed_equal_the_whole_parse(text: str, shown: str, plain: str, size: int) -> None:
    whole = parse_answer(text, SOURCES)
    assert (whole.text, whole.plain_text) == (shown, plain)
    answer, events = _streamed(text, size)
    assert answer == whole
    assert "".join(e.text for e in events if isinstance(e, DisplayDelta)) == shown
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == plain


def test_one_claim_for_the_joined_group() -> None:
    answer = parse_answer("The Sun fuses hydrogen and there are eight planets [1] and [2].", SOURCES)
    assert [c.text for c in answer.claims] == ["The Sun fuses hydrogen and there are eight planets"]
    assert [c.reference for c in answer.citations] == [1, 2]


def test_a_possible_joiner_is_held_only_until_the_next_characters() -> None:
    stream = CitationStream(SOURCES)
    stream.feed("Hydrogen fuses [1] an")
    assert stream.held == len(" an")
    assert "".join(e.text for e in stream.feed("other way.") if isinstance(e, TextDelta)) == " another way."
    assert stream.held == 0
