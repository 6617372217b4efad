"""Claude's native citations to a CitedAnswer, whole and streaming, on recorded responses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cite_core import CharLocation, CitationsDelta, PageLocation, TextDelta, number_sources
from cite_core._answer.anthropic import (
    AnthropicCitationStream,
    from_anthropic_content,
    to_anthropic_documents,
)

from .anthropic_recorded import COOKBOOK, api_content, load_examples


@pytest.fixture
def examples() -> dict[str, dict[str, Any]]:
    if not COOKBOOK.is_file():
        pytest.skip("../shared/data is not beside the project")
    return load_examples()


def sources_of(example: dict[str, Any]) -> list[Any]:
    if example["name"] == "custom_content_documents":
        items = [{"blocks": [d["text"]], "title": d["title"]} for d in example["documents"]]
    else:
        items = [
            {"text": d["text"], "title": d["title"], "context": d.get("context")}
            for d in example["documents"]
        ]
    return number_sources(items)


def sse_events(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from .anthropic_recorded import stream_events

    return [json.loads(e.split("data: ", 1)[1]) for e in stream_events(content, "claude")]


@pytest.mark.parametrize("name", ["plain_text_documents", "custom_content_documents", "context_field"])
def test_recorded_responses_map_to_cited_answers(name: str, examples: dict[str, Any]) -> None:
    example = examples[name]
    content, sources = api_content(example), sources_of(example)
    answer = from_anthropic_content(content, sources)
    assert [b.text for b in answer.content] == [b["text"] for b in content]
    assert answer.plain_text == "".join(b["text"] for b in content)
    recorded = [c for b in content for c in b.get("citations", [])]
    assert len(answer.citations) == len(recorded)
    for citation, raw in zip(answer.citations, recorded):
        assert citation.type == raw["type"]
        assert citation.document_index == raw["document_index"]
        assert citation.cited_text == raw["cited_text"]
        source = sources[citation.document_index]
        assert source.text[citation.source_start : citation.source_end] == citation.cited_text
        assert citation.to_anthropic() == dict(raw)
    assert [ref.source.title for ref in answer.references] == list(
        dict.fromkeys(c["document_title"] for c in recorded)
    )
    assert answer.invalid_markers == []
    assert answer.to_anthropic() == {"content": content}


@pytest.mark.parametrize("name", ["plain_text_documents", "custom_content_documents", "context_field"])
def test_streamed_events_equal_the_whole_response(name: str, examples: dict[str, Any]) -> None:
    example = examples[name]
    content, sources = api_content(example), sources_of(example)
    stream = AnthropicCitationStream(sources)
    events = [e for raw in sse_events(content) for e in stream.feed(raw)]
    answer = stream.finish()
    events += stream.pending_events()
    assert answer == from_anthropic_content(content, sources)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer.plain_text
    deltas = [e for e in events if isinstance(e, CitationsDelta)]
    assert [d.citation for d in deltas] == answer.citations
    for delta in deltas:
        claim = answer.plain_text[delta.claim_start : delta.claim_end]
        assert any(b.text == claim and delta.citation in (b.citations or []) for b in answer.content)


def test_text_is_released_before_the_block_closes() -> None:
    stream = AnthropicCitationStream(["The grass is green."])
    citation = {
        "type": "char_location",
        "cited_text": "The grass is green.",
        "document_index": 0,
        "start_char_index": 0,
        "end_char_index": 19,
    }
    assert (
        stream.feed(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "citations_delta", "citation": citation},
            }
        )
        == []
    )
    assert stream.feed(
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "the grass is green"},
        }
    ) == [TextDelta(text="the grass is green")]
    [delta] = stream.feed({"type": "content_block_stop", "index": 0})
    assert isinstance(delta, CitationsDelta) and (delta.claim_start, delta.claim_end) == (0, 18)
    assert stream.finish().text == "the grass is green [1]"


def test_pages_and_document_offsets() -> None:
    sources = number_sources(
        [
            {"pages": ["Intro page.", "Water is essential for life. It covers the Earth."], "title": "PDF"},
            {"text": "Second chunk. The sky is blue.", "document_id": "d", "start_index": 100},
        ]
    )
    content = [
        {
            "type": "text",
            "text": "Water matters",
            "citations": [
                {
                    "type": "page_location",
                    "cited_text": "Water is essential for life.",
                    "document_index": 0,
                    "start_page_number": 2,
                    "end_page_number": 3,
                }
            ],
        },
        {
            "type": "text",
            "text": " and the sky is blue",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": "The sky is blue.",
                    "document_index": 1,
                    "start_char_index": 14,
                    "end_char_index": 30,
                },
                {
                    "type": "char_location",
                    "cited_text": "x",
                    "document_index": 5,
                    "start_char_index": 0,
                    "end_char_index": 1,
                },
            ],
        },
    ]
    answer = from_anthropic_content(content, sources)
    page, char = answer.citations
    assert isinstance(page, PageLocation) and (page.start_page_number, page.end_page_number) == (2, 3)
    assert page.cited_text == "Water is essential for life."
    assert isinstance(char, CharLocation) and (char.start_char_index, char.end_char_index) == (114, 130)
    assert answer.invalid_markers == ["[6]"]
    assert answer.text == "Water matters [1] and the sky is blue [2]"


def test_documents_for_claude_and_back() -> None:
    sources = number_sources(
        [
            {"text": "Plain text.", "title": "T", "context": "ctx"},
            {"blocks": ["One.", "Two."]},
            {"pages": ["P1.", "P2."]},
        ]
    )
    docs = to_anthropic_documents(sources)
    assert docs[0] == {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "Plain text."},
        "citations": {"enabled": True},
        "title": "T",
        "context": "ctx",
    }
    assert docs[1]["source"] == {
        "type": "content",
        "content": [{"type": "text", "text": "One."}, {"type": "text", "text": "Two."}],
    }
    content = [
        {
            "type": "text",
            "text": "p2",
            "citations": [
                {
                    "type": "content_block_location",
                    "cited_text": "P2.",
                    "document_index": 2,
                    "start_block_index": 1,
                    "end_block_index": 2,
                }
            ],
        }
    ]
    [citation] = from_anthropic_content(content, sources).citations
    assert isinstance(citation, PageLocation) and citation.start_page_number == 2


def test_non_text_blocks() -> None:
    assert (
        from_anthropic_content(
            [{"type": "thinking", "thinking": "..."}, {"type": "text", "text": "Hi."}], ["x"]
        ).text
        == "Hi."
    )
    with pytest.raises(ValueError, match="'tool_use' content block"):
        from_anthropic_content([{"type": "tool_use", "id": "1", "name": "f", "input": {}}], ["x"])
