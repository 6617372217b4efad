"""Merged sources and the token budget: trimmed by whole chunks, never a TokenBudgetError while the
top-ranked chunk fits (issue 23 item 12)."""

from __future__ import annotations

import pytest

from cite_core import TokenBudgetError, build_prompt, number_sources, parse_answer, token_counter

PAGES = [" ".join(f"Page {p} sentence {i} is about topic {p}." for i in range(100)) for p in range(1, 5)]
"""Four pages of one PDF, each about 1,100 tokens: together more than a 2,000-token budget."""


def pdf_items(order: list[int]) -> list[dict[str, object]]:
    """The pages in retrieval (rank) order, as a PDF loader gives them (one item per page)."""
    return [{"text": PAGES[p - 1], "page": p, "document_id": "report.pdf", "title": "Report"} for p in order]


def test_four_merged_pages_over_the_budget_are_trimmed_to_the_best_ranked_pages() -> None:
    sources = number_sources(
        [*pdf_items([3, 1, 4, 2]), {"text": "The Moon orbits the Earth.", "title": "Moon"}]
    )
    assert [len(s.segments) for s in sources] == [4, 1]
    assert token_counter(None)(sources[0].text) > 4000
    prompt = build_prompt("What about topic 3?", sources, max_tokens=2000)  # raised TokenBudgetError
    [shown] = prompt.sources
    assert [seg.page for seg in shown.segments] == [3]  # the top-ranked page; page 1 no longer fits
    assert shown.number == 1 and shown.text == PAGES[2]
    assert shown.item_indices == (0,)
    assert prompt.truncated == [sources[0]] and prompt.dropped == [sources[1]]  # reported as before
    assert prompt.token_count is not None and prompt.token_count <= 2000
    answer = parse_answer("Topic 3 is covered [1].", prompt.sources)
    [citation] = answer.citations
    assert citation.type == "page_location" and citation.start_page_number == 3  # the physical page
    assert citation.cited_text in PAGES[2]


def test_kept_chunks_are_in_document_order_and_keep_their_pages() -> None:
    sources = number_sources(pdf_items([4, 2, 1, 3]))
    prompt = build_prompt("Q?", sources, max_tokens=2700)
    [shown] = prompt.sources
    assert [seg.page for seg in shown.segments] == [2, 4]  # pages 4 then 2 fit, shown in page order
    assert shown.item_indices == (0, 1)
    assert shown.text == PAGES[1] + "\n\n" + PAGES[3]
    answer = parse_answer("Topic 4 [1].", prompt.sources)
    assert answer.citations[0].start_page_number == 4


def test_a_budget_that_fits_the_top_chunk_never_raises() -> None:
    sources = number_sources(pdf_items([2, 1, 3, 4]))
    alone = build_prompt("Q?", number_sources(pdf_items([2])), max_tokens=10_000).token_count
    assert alone is not None
    for budget in range(alone, 5000, 150):
        try:
            prompt = build_prompt("Q?", sources, max_tokens=budget)
        except TokenBudgetError:
            pytest.fail(f"max_tokens={budget} raised though the prompt with page 2 alone takes {alone}")
        assert next(seg.page for seg in prompt.sources[0].segments) in (1, 2)
        assert 2 in [seg.page for seg in prompt.sources[0].segments]
    with pytest.raises(TokenBudgetError):
        build_prompt("Q?", sources, max_tokens=600)  # not even one page fits: still an error


def test_a_lower_ranked_merged_source_is_trimmed_not_dropped() -> None:
    top = {"text": "Hydrogen fuses into helium in the Sun.", "title": "Sun"}
    sources = number_sources([top, *pdf_items([1, 2, 3, 4])])
    prompt = build_prompt("Q?", sources, max_tokens=2000)
    assert [s.number for s in prompt.sources] == [1, 2]
    assert [seg.page for seg in prompt.sources[1].segments] == [1]
    assert prompt.truncated == [sources[1]] and prompt.dropped == []


def test_trimmed_chunks_keep_their_printed_labels() -> None:
    """A source without page numbers shows each chunk's printed label: a trimmed source's labels follow
    its kept chunks (the top-ranked chunk is the third in document order here, labelled ``vi``)."""
    labels = {1: "iv", 2: "v", 3: "vi"}
    items = [
        {"text": PAGES[p - 1], "start_index": 100_000 * p, "page_label": labels[p], "document_id": "book"}
        for p in (3, 1, 2)
    ]
    [source] = number_sources(items)
    assert source.kind == "text" and source.metadata["segment_page_labels"] == ["iv", "v", "vi"]
    [shown] = build_prompt("What about topic 3?", [source], max_tokens=2000).sources
    assert shown.metadata["segment_page_labels"] == ["vi"] and shown.text == PAGES[2]
    assert source.metadata["segment_page_labels"] == ["iv", "v", "vi"]  # the source itself unchanged
    answer = parse_answer("Topic 3 is covered [1].", [shown])
    assert answer.citations[0].segment == 0 and "p. vi" in answer.to_markdown()
