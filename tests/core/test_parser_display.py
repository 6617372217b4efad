"""CitationStream(display=True): display deltas carry the answer text with final display markers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cite_core import CitationStream, DisplayDelta, parse_answer
from tests.core.test_properties import SOURCES, texts
from tests.invariants import after_reset


def display_stream(text: str, cuts: list[int]) -> tuple[str, list[object], object]:
    stream = CitationStream(SOURCES, display=True)
    events: list[object] = []
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    for a, b in zip(bounds, bounds[1:]):
        events += stream.feed(text[a:b])
    answer = stream.finish()
    events += stream.pending_events()
    shown = "".join(e.text for e in after_reset(events) if isinstance(e, DisplayDelta))
    return shown, events, answer


def test_display_deltas_have_final_numbers() -> None:
    text = "Paris is the capital [3]. The grass is green [1][3]. Bad [9]."
    shown, events, answer = display_stream(text, list(range(1, len(text))))
    assert shown == answer.text == "Paris is the capital [1]. The grass is green [2][1]. Bad."
    # the marker is shown before its citation event
    first_citation = next(i for i, e in enumerate(events) if e.type == "citations_delta")
    assert "[1]" in "".join(e.text for e in events[:first_citation] if isinstance(e, DisplayDelta))


def test_no_display_events_by_default() -> None:
    stream = CitationStream(SOURCES)
    events = stream.feed("The grass is green [1]. ") + stream.feed("More.")
    stream.finish()
    assert not [e for e in events + stream.pending_events() if e.type == "display_delta"]


@given(texts, st.lists(st.integers(min_value=1, max_value=200), max_size=40))
def test_display_deltas_equal_the_answer_text_for_any_chunking(text: str, cuts: list[int]) -> None:
    shown, _, answer = display_stream(text, cuts)
    assert answer == parse_answer(text, SOURCES)
    assert shown == answer.text


@given(texts)
def test_display_deltas_for_one_character_chunks(text: str) -> None:
    shown, _, answer = display_stream(text, list(range(1, len(text))))
    assert shown == answer.text


@given(texts)
def test_claim_spans_are_in_display_coordinates(text: str) -> None:
    answer = parse_answer(text, SOURCES)
    for claim in answer.claims:
        assert answer.text[claim.start : claim.end] == claim.text
        assert claim.citations
    assert [c for claim in answer.claims for c in claim.citations] == answer.citations


def test_claims_of_a_lead_in_and_two_sentences() -> None:
    answer = parse_answer(
        "According to [3], Paris is the capital of France. The grass is green [1].", SOURCES
    )
    assert answer.text == "According to [1], Paris is the capital of France. The grass is green [2]."
    spans = [
        (answer.text[c.start : c.end], [x.document_index + 1 for x in c.citations]) for c in answer.claims
    ]
    assert spans == [("Paris is the capital of France.", [3]), ("The grass is green", [1])]
