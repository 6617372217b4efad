"""from_native, audited: a quote found twice in a source is the one the annotation places; OpenAI's
``url_citation`` offsets are read in the unit whose span covers the written link; Gemini's
``retrievedContext.ragChunk.text`` is the quote; a citation that names no document is reported, never
linked; a bad field is named as the payload spells it (camelCase JSON or an SDK's snake_case)."""

from __future__ import annotations

from typing import Any

import pytest

from cite_core import ArgumentError, from_native, number_sources
from tests.core.native_payloads import check_native, units

TIDES = "The tide is high at noon. Boats wait in the harbour. The tide is high at noon."
SECOND = TIDES.index("The tide", 1)


def _annotated(start: int | None, end: int | None) -> dict[str, Any]:
    """A text block with a citation annotation as langchain_cite writes it (its extras: where the
    quote is in the source)."""
    extras: dict[str, Any] = {"document_index": 0, "reference": 1}
    if start is not None:
        extras.update(source_start=start, source_end=end)
    note = {"type": "citation", "title": "Tides", "cited_text": "The tide is high at noon.", "extras": extras}
    return {"content": [{"type": "text", "text": "High tide is at noon.", "annotations": [note]}]}


def test_a_quote_found_twice_in_its_source_is_the_one_the_annotation_places() -> None:
    sources = number_sources([{"text": TIDES, "title": "Tides"}])
    placed = from_native(_annotated(SECOND, len(TIDES)), sources)
    check_native(placed, sources)
    assert (placed.citations[0].source_start, placed.citations[0].source_end) == (SECOND, len(TIDES))
    unplaced = from_native(_annotated(None, None), sources)
    assert unplaced.citations[0].source_start == 0  # no position given: the first occurrence
    wrong = from_native(_annotated(3, 20), sources)  # a position that does not hold the quote: not used
    assert wrong.citations[0].source_start == 0


def _chat(text: str, start: int, end: int, url: str = "https://example.org/vienna") -> dict[str, Any]:
    note = {
        "type": "url_citation",
        "url_citation": {"start_index": start, "end_index": end, "url": url, "title": "Vienna"},
    }
    return {"object": "chat.completion", "choices": [{"message": {"content": text, "annotations": [note]}}]}


@pytest.mark.parametrize("unit", ["codepoint", "utf16", "utf8"])
def test_openai_url_citation_offsets_are_read_in_the_unit_whose_span_covers_the_link(unit: str) -> None:
    link = "([example.org](https://example.org/vienna?utm_source=openai))"
    text = f"Le café viennois 🇦🇹☕ date de 1685 {link}. Suite 🌊."
    start, end = units(text, link, unit)
    answer = from_native(_chat(text, start, end))
    check_native(answer)
    assert [c.text for c in answer.claims] == [text[: text.index(link) + len(link)]]
    assert answer.invalid_markers == []


def test_openai_offsets_that_cover_no_link_in_any_unit_are_read_as_code_points() -> None:
    text = "Café ☕ first. Then Paris 🌊 and more text here."
    start, end = units(text, "Then Paris", "utf8")
    answer = from_native(_chat(text, start, end, url="https://elsewhere.example/x"))
    assert text[start:end] == "n Paris 🌊 "  # the byte offsets read as code points: OpenAI's documented unit
    assert answer.claims[0].text == "Then Paris 🌊"  # (the sentence it closes)


def _gemini(chunks: list[dict[str, Any]], indices: list[int]) -> dict[str, Any]:
    text = "Tides are high at noon."
    support = {"segment": {"endIndex": len(text.encode())}, "groundingChunkIndices": indices}
    meta = {"groundingChunks": chunks, "groundingSupports": [support]}
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": meta}]}


RAG = {
    "retrievedContext": {
        "uri": "gs://corpus/tides.txt",
        "title": "tides.txt",
        "ragChunk": {"text": "The tide is high at noon.", "pageSpan": {"firstPage": 1, "lastPage": 1}},
    }
}


def test_gemini_rag_chunk_text_is_the_quote() -> None:
    alone = from_native(_gemini([RAG], [0]))
    assert alone.references[0].source.text == "The tide is high at noon."
    assert alone.citations[0].cited_text == "The tide is high at noon."
    sources = number_sources([{"text": "Intro. " + TIDES, "title": "Tide tables"}])
    located = from_native(_gemini([RAG], [0]), sources)  # no title or URL in common: found by its quote
    check_native(located, sources)
    assert located.citations[0].source_start == len("Intro. ")


def test_a_citation_that_names_no_document_is_reported_never_linked() -> None:
    empty = from_native(_gemini([RAG], []))
    assert empty.invalid_markers == ["[]"] and empty.references == [] and empty.claims == []
    nameless = from_native(_gemini([{"image": {}}], [0]))  # a chunk of a kind read as nothing
    assert nameless.invalid_markers == ["[1]"] and nameless.references == []
    note = {"type": "citation", "start_index": 0, "end_index": 5}  # no url, title, id or quote
    blocks = from_native({"content": [{"type": "text", "text": "Tides rise.", "annotations": [note]}]})
    assert blocks.invalid_markers == ["[1]"] and blocks.references == [] and blocks.text == "Tides rise."
    cohere = {
        "message": {
            "content": [{"type": "text", "text": "Tides rise."}],
            "citations": [{"start": 0, "end": 5, "sources": []}],
        }
    }
    assert from_native(cohere).invalid_markers == ["[]"]


def _bad_gemini(snake: bool) -> dict[str, Any]:
    supports = [{"segment": {"endIndex": 3}, "groundingChunkIndices": [0]}] * 2 + [
        {"segment": {"endIndex": "4"}, "groundingChunkIndices": [0]}
    ]
    if snake:
        supports = [
            {"segment": {"end_index": s["segment"]["endIndex"]}, "grounding_chunk_indices": [0]}
            for s in supports
        ]
        meta = {"grounding_chunks": [], "grounding_supports": supports}
        return {"candidates": [{"content": {"parts": [{"text": "abcdef"}]}, "grounding_metadata": meta}]}
    meta = {"groundingChunks": [], "groundingSupports": supports}
    return {"candidates": [{"content": {"parts": [{"text": "abcdef"}]}, "groundingMetadata": meta}]}


@pytest.mark.parametrize(
    ("snake", "field"),
    [
        (False, "response.candidates[0].groundingMetadata.groundingSupports[2].segment.endIndex"),
        (True, "response.candidates[0].grounding_metadata.grounding_supports[2].segment.end_index"),
    ],
)
def test_a_bad_field_is_named_as_the_payload_spells_it(snake: bool, field: str) -> None:
    with pytest.raises(ArgumentError) as raised:
        from_native(_bad_gemini(snake))
    assert str(raised.value).startswith(f"{field}: expected an int, got str '4'")
    mistral = {"choices": [{"message": {"content": [{"type": "reference", "referenceIds": [1, {}]}]}}]}
    with pytest.raises(ArgumentError, match=r"content\[0\]\.referenceIds\[1\]: expected an int or a string"):
        from_native(mistral)
    indices = {
        "candidates": [{"groundingMetadata": {"grounding_supports": [{"grounding_chunk_indices": ["a"]}]}}]
    }
    with pytest.raises(
        ArgumentError, match=r"grounding_supports\[0\]\.grounding_chunk_indices\[0\]: expected an int"
    ):
        from_native(indices)


@pytest.mark.parametrize("unit", ["codepoint", "utf16", "utf8"])
def test_langchain_openai_annotations_are_read_in_the_unit_whose_span_covers_the_link(unit: str) -> None:
    link = "([example.org](https://example.org/vienna))"
    text = f"Le café viennois 🇦🇹☕ date de 1685 {link}. Suite 🌊."
    start, end = units(text, link, unit)
    note = {
        "type": "citation",
        "url": "https://example.org/vienna",
        "title": "Vienna",
        "start_index": start,
        "end_index": end,
    }
    answer = from_native({"content": [{"type": "text", "text": text, "annotations": [note]}]})
    check_native(answer)
    assert [c.text for c in answer.claims] == [text[: text.index(link) + len(link)]]


def test_claudes_document_index_is_checked_against_the_quote() -> None:
    sources = number_sources(
        [{"text": "Paris is the capital of France.", "title": "Paris"}, {"text": TIDES, "title": "Tides"}]
    )
    quote = "Boats wait in the harbour."
    raw = {
        "type": "char_location",
        "cited_text": quote,
        "document_index": 0,
        "start_char_index": 0,
        "end_char_index": 26,
    }
    claude = {"content": [{"type": "text", "text": "Boats wait.", "citations": [raw]}]}
    note = {"type": "citation", "cited_text": quote, "title": "Tides", "extras": {"document_index": 0}}
    annotated = {"content": [{"type": "text", "text": "Boats wait.", "annotations": [note]}]}
    for response in (claude, annotated):  # the index names Paris, which does not hold the quote: Tides does
        answer = from_native(response, sources)
        check_native(answer, sources)
        assert [(c.cited_text, c.document_index) for c in answer.citations] == [(quote, 1)]
    held = {**raw, "cited_text": "Paris is the capital of France.", "end_char_index": 31}
    kept = from_native({"content": [{"type": "text", "text": "Paris leads.", "citations": [held]}]}, sources)
    assert [c.document_index for c in kept.citations] == [0]  # an index whose document holds the quote
    nowhere = {**raw, "cited_text": "Not in any source."}
    trusted = from_native({"content": [{"type": "text", "text": "Boats.", "citations": [nowhere]}]}, sources)
    assert [c.document_index for c in trusted.citations] == [0]  # no better reading: the index stands
