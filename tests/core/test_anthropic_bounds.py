"""Native citations that point outside their document are invalid markers with a note, never a
citation of the whole source (issue 33 item 5)."""

from __future__ import annotations

from typing import Any

import pytest

from cite_core import CharLocation, answer_notes, from_anthropic_content, number_sources

TEXT = "The harbour opened in 1850. Steamers could dock there by 1862."
SOURCES = number_sources([{"text": TEXT, "title": "Harbour"}, {"text": "A lighthouse.", "title": "Light"}])


def _content(**citation: Any) -> list[dict[str, Any]]:
    base = {"type": "char_location", "cited_text": "The harbour opened in 1850.", "document_index": 0}
    base.update(start_char_index=0, end_char_index=27)
    return [{"type": "text", "text": "It opened early", "citations": [{**base, **citation}]}]


@pytest.mark.parametrize(
    "indices",
    [(5_000, 5_040), (-10, 3), (40, 900), (27, 27), (None, None), (2**4000, 2**4001), (True, 27)],
    ids=["after", "negative", "past-end", "empty", "none", "huge", "bool"],
)
def test_indices_outside_the_document_and_a_foreign_cited_text_are_an_invalid_marker(indices: Any) -> None:
    start, end = indices
    content = _content(start_char_index=start, end_char_index=end, cited_text="Cairo is the capital.")
    answer = from_anthropic_content(content, SOURCES)
    assert answer.citations == [] and answer.references == []
    assert answer.invalid_markers == ["[1]"]
    [note] = answer_notes(answer)  # what every renderer shows
    assert (note.kind, note.items) == ("invalid_markers", ["[1]"])


def test_indices_outside_the_document_with_an_empty_cited_text_are_an_invalid_marker() -> None:
    answer = from_anthropic_content(
        _content(start_char_index=900, end_char_index=950, cited_text=""), SOURCES
    )
    assert (answer.citations, answer.invalid_markers) == ([], ["[1]"])


def test_indices_outside_the_document_with_a_cited_text_it_holds_cite_that_text() -> None:
    cited = "Steamers could dock there by 1862."
    answer = from_anthropic_content(
        _content(start_char_index=900, end_char_index=950, cited_text=cited), SOURCES
    )
    [citation] = answer.citations
    assert isinstance(citation, CharLocation) and citation.cited_text == cited
    assert (citation.start_char_index, citation.end_char_index) == (TEXT.index(cited), len(TEXT))
    assert answer.invalid_markers == []


def test_valid_indices_still_cite_their_range() -> None:
    [citation] = from_anthropic_content(_content(), SOURCES).citations
    assert (citation.start_char_index, citation.end_char_index) == (0, 27)


@pytest.mark.parametrize(
    "index",
    [True, False, "1", 1.0, [0], 2**4000, -(2**4000)],
    ids=["true", "false", "str", "float", "list", "huge", "-huge"],
)
def test_a_document_index_that_is_not_an_int_is_invalid(index: Any) -> None:
    """JSON ``true`` is not 1 (nor ``false`` 0); a huge int is reported without formatting it whole."""
    answer = from_anthropic_content(_content(document_index=index), SOURCES)
    assert answer.citations == []
    [marker] = answer.invalid_markers
    assert len(marker) < 80
