"""Markers that name sentences a source does not have are invalid markers, never whole-source citations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cite_core import CitationStream, answer_notes, number_sources, parse_answer

SOURCES = number_sources(["The grass is green. The sky is blue. Water is wet.", "Paris is big."])
"""Source 1 has three sentences, source 2 one."""


@pytest.mark.parametrize("style", ["sentences", "markers"])
@pytest.mark.parametrize(
    ("text", "invalid"),
    [
        ("The grass is green [1:999].", "[1:999]"),
        ("The grass is green [1:0].", "[1:0]"),
        ("The grass is green [1:3-99].", "[1:3-99]"),
        ("The grass is green [2:2].", "[2:2]"),
        ("<CIT chunk_id='1' sentences='42'>The grass is green.</CIT>", "<CIT chunk_id='1' sentences='42'>"),
        ("<CIT chunk_id='1' sentences='0-1'>The grass is green.</CIT>", "<CIT chunk_id='1' sentences='0-1'>"),
    ],
)
def test_out_of_range_sentences_are_invalid_markers(style: str, text: str, invalid: str) -> None:
    answer = parse_answer(text, SOURCES, style=style)  # type: ignore[arg-type]
    assert answer.citations == [] and answer.references == []
    assert answer.invalid_markers == [invalid]
    notes = [n for n in answer_notes(answer) if n.kind == "invalid_markers"]
    assert notes and notes[0].items == [invalid]
    assert "[1]" not in answer.text


def test_a_group_reports_only_its_part_with_bad_sentences() -> None:
    answer = parse_answer("The sky is blue [1:2, 1:9].", SOURCES, style="sentences")
    assert [c.cited_text for c in answer.citations] == ["The sky is blue."]
    assert answer.invalid_markers == ["[1:9]"]


def test_sentences_in_range_still_cite_them() -> None:
    answer = parse_answer("Water is wet [1:3]. <CIT chunk_id='2' sentences='1'>Paris.</CIT>", SOURCES)
    assert [c.cited_text for c in answer.citations] == ["Water is wet.", "Paris is big."]
    assert answer.invalid_markers == []


@given(st.integers(0, 999_999), st.integers(0, 999_999), st.integers(1, 3))  # NUM: up to 6 digits
def test_a_sentence_range_is_cited_exactly_when_the_source_has_it(lo: int, hi: int, number: int) -> None:
    text = f"The grass is green [{number}:{lo}-{hi}]."
    stream = CitationStream(SOURCES, style="sentences")
    for char in text:
        stream.feed(char)
    answer = stream.finish()
    assert answer == parse_answer(text, SOURCES, style="sentences")
    count = {1: 3, 2: 1}.get(number, 0)
    a, b = min(lo, hi), max(lo, hi)
    if 1 <= a <= b <= count:
        assert answer.invalid_markers == [] and len(answer.citations) == 1
    else:
        assert answer.citations == [] and answer.invalid_markers == [f"[{number}:{lo}-{hi}]"]


def test_a_sentence_range_across_pages_or_chunks_is_cited_per_part() -> None:
    """``[1:2-3]`` over the end of page 1 and the start of page 2 cited page 1 alone; the rest was neither
    cited nor reported. Each part is now a citation of its own page or chunk (whole and streamed)."""
    from cite_core import build_prompt

    items = [
        {"pages": ["P one. P two.", "Page 2 s1. Page 2 s2."], "title": "PDF"},
        {"text": "First chunk. Ends here.", "start_index": 0, "document_id": "D"},
        {"text": "Second chunk starts. More.", "start_index": 900, "document_id": "D"},
    ]
    sources = build_prompt("q", items, style="sentences").sources
    answer = parse_answer("The claim [1:2-3]. Another [2:2-3].", sources, style="sentences")
    shown = [(c.cited_text, getattr(c, "start_page_number", None)) for c in answer.citations]
    assert shown == [("P two.", 1), ("Page 2 s1.", 2), ("Ends here.", None), ("Second chunk starts.", None)]
    assert answer.invalid_markers == []
    stream = CitationStream(sources, style="sentences")
    for char in "The claim [1:2-3]. Another [2:2-3].":
        stream.feed(char)
    assert stream.finish() == answer
