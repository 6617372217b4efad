"""What a reference shows of its source's metadata: printed page labels (a source without page numbers,
as LlamaIndex's PDFReader gives them, shows the labels of the chunks cited), invisible characters shown."""

from __future__ import annotations

from cite_core import CitedAnswer, number_sources, parse_answer, render_terminal


def _label_only_answer(answer_text: str) -> CitedAnswer:
    chunks = [
        {"text": "Preface about Kessby.", "page_label": "iv", "document_id": "book"},
        {"text": "Kessby's harbour was dredged in 1931.", "page_label": "v", "document_id": "book"},
    ]
    sources = number_sources(chunks)  # one source of two chunks, no page number known
    assert sources[0].kind == "text" and sources[0].metadata["segment_page_labels"] == ["iv", "v"]
    return parse_answer(answer_text, sources)


def test_a_source_without_page_numbers_shows_the_printed_labels_of_the_chunks_cited() -> None:
    answer = _label_only_answer("The harbour was dredged in 1931 [1].")
    assert [c.type for c in answer.citations] == ["char_location"]  # a label is never page_location
    for shown in (answer.to_markdown(), answer.to_html(), render_terminal(answer)):
        assert "p. v" in shown and "p. iv" not in shown and "pp." not in shown
    both = _label_only_answer("The harbour was dredged in 1931 [1]. Kessby has a preface [1].")
    assert "book, pp. iv, v" in both.to_markdown()  # each named, in the source's order (labels make no range)


def test_no_label_is_shown_when_a_cited_chunk_has_none() -> None:
    chunks = [
        {"text": "Preface about Kessby.", "page_label": "iv", "document_id": "book"},
        {"text": "Kessby's harbour was dredged in 1931.", "document_id": "book"},
    ]
    sources = number_sources(chunks)
    assert sources[0].metadata["segment_page_labels"] == ["iv", None]
    answer = parse_answer("The harbour was dredged in 1931 [1].", sources)
    assert "p. " not in answer.to_markdown() and "p. iv" not in answer.to_html()


def test_invisible_characters_in_metadata_are_shown_in_every_renderer() -> None:
    """A bidi override in a title ("Safe<U+202E>txt.exe" reads "Safeexe.txt") or an author is shown as
    ``‹U+202E›``, as in the model's text; the terminal did, Markdown and HTML wrote it raw."""
    from cite_core import render_html, render_markdown

    item = {"text": "The sky is blue.", "title": "Safe\u202etxt.exe", "author": "A\u200bB"}
    answer = parse_answer("The sky is blue [1].", number_sources([item]))
    for shown in (render_markdown(answer), render_html(answer), render_terminal(answer)):
        assert "\u202e" not in shown and "\u200b" not in shown
        assert "‹U+202E›" in shown and "‹U+200B›" in shown


def test_adjacent_chunks_of_two_printed_pages_stay_two_segments() -> None:
    """Coalesced into one segment labelled "i, ii, iii", a quote from page i read "pp. i, ii, iii", and
    a source truncated to page i still named pages whose text was never shown."""
    from cite_core import build_prompt

    pages = [f"{fact} fact about page {n}. " * 12 for n, fact in ((1, "Alpha"), (2, "Beta"), (3, "Gamma"))]
    items, start = [], 0
    for label, text in zip(["i", "ii", "iii"], pages):
        items.append({"text": text, "start_index": start, "document_id": "D", "page_label": label})
        start += len(text)
    [source] = number_sources(items)
    assert source.metadata["segment_page_labels"] == ["i", "ii", "iii"] and len(source.segments) == 3
    answer = parse_answer("Beta fact about page 2 [1].", [source])
    assert "p. ii" in render_terminal(answer) and "p. i," not in render_terminal(answer)
    prompt = build_prompt("q", items, max_tokens=230, on_overflow="truncate", warn_dropped=False)
    assert prompt.sources[0].metadata["segment_page_labels"] == ["i"]


def test_overlapping_chunks_of_one_printed_page_keep_its_label() -> None:
    """Two overlapping chunks of page iv are one segment; its label was lost (None) because the segment
    had two chunks and one distinct label."""
    chunks = [
        {"text": "Alpha beta gamma. Delta.", "start_index": 0, "page_label": "iv", "document_id": "d"},
        {"text": "gamma. Delta. Epsilon zeta.", "start_index": 11, "page_label": "iv", "document_id": "d"},
    ]
    [source] = number_sources(chunks)
    assert len(source.segments) == 1 and source.metadata["segment_page_labels"] == ["iv"]
    assert "p. iv" in render_terminal(parse_answer("Epsilon zeta [1].", [source]))
