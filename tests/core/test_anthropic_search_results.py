"""Claude's ``search_result_location`` citations mapped by the core, on a recorded Messages API response.

Sources sent as ``search_result`` blocks (one result per source, one content block per sentence, as the
LlamaIndex adapter sends them) are cited by result index and block range; given those blocks' spans
(``search_result_blocks``), ``from_anthropic_content`` and ``AnthropicCitationStream`` give the
``char_location`` of the cited sentences, whole or streamed at any chunking.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cite_core import (
    AnthropicCitationStream,
    ArgumentError,
    CharLocation,
    DisplayDelta,
    TextDelta,
    from_anthropic_content,
    number_sources,
    split_sentences,
)

RECORDED = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "claude_search_results.json").read_text(encoding="utf-8")
)
SOURCES = number_sources(RECORDED["sources"], merge=False)
BLOCKS = [split_sentences(s.text) for s in SOURCES]
MESSAGE: dict[str, Any] = RECORDED["message"]
DISPLAY = (
    "The harbour of Kessby changed in two steps. It was dredged in 1931 so that steamers could dock [1]; "
    "before that, cargo was rowed ashore from ships anchored in the bay [1]. Then the fish market moved "
    "to the new quay in 1933 [2]."
)


def whole(message: dict[str, Any] = MESSAGE, **options: Any):  # type: ignore[no-untyped-def]
    return from_anthropic_content(message["content"], SOURCES, search_result_blocks=BLOCKS, **options)


def events(message: dict[str, Any], size: int) -> list[dict[str, Any]]:
    """``message`` as the Messages API streams it: each block's citations, then its text in ``size``
    character ``text_delta``s."""
    out: list[dict[str, Any]] = [{"type": "message_start", "message": {**message, "content": []}}]
    for index, block in enumerate(message["content"]):
        start = {"type": "text", "text": ""}
        out.append({"type": "content_block_start", "index": index, "content_block": start})
        for citation in block.get("citations") or []:
            delta = {"type": "citations_delta", "citation": citation}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        text = block["text"]
        for i in range(0, len(text), size):
            delta = {"type": "text_delta", "text": text[i : i + size]}
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        out.append({"type": "content_block_stop", "index": index})
    out.append({"type": "message_stop"})
    return out


def test_search_result_citations_become_the_characters_of_their_sentences() -> None:
    answer = whole()
    assert answer.text == DISPLAY
    assert all(isinstance(c, CharLocation) for c in answer.citations)
    assert [(c.document_index, c.cited_text) for c in answer.citations] == [
        (1, "Kessby's harbour was dredged in 1931 so that steamers could dock."),
        (1, "Before that, cargo was rowed ashore from ships anchored in the bay."),
        (0, "The fish market moved to the new quay in 1933."),
    ]
    for citation in answer.citations:
        source = SOURCES[citation.document_index]
        assert source.text[citation.start_char_index : citation.end_char_index] == citation.cited_text
    assert [ref.source.title for ref in answer.references] == ["Harbour history", "market.txt"]
    assert answer.plain_text == "".join(b["text"] for b in MESSAGE["content"])


@pytest.mark.parametrize("size", [1, 3, 8])
def test_streamed_equals_whole_at_any_chunking(size: int) -> None:
    stream = AnthropicCitationStream(SOURCES, search_result_blocks=BLOCKS, display=True)
    seen = [e for event in events(MESSAGE, size) for e in stream.feed(event)]
    answer = stream.finish()
    seen += stream.pending_events()
    assert answer == whole()
    assert "".join(e.text for e in seen if isinstance(e, DisplayDelta)) == DISPLAY
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == answer.plain_text


def test_a_block_range_spanning_sentences_and_one_past_the_end() -> None:
    message = copy.deepcopy(MESSAGE)
    message["content"][1]["citations"][0].update(start_block_index=0, end_block_index=9)  # past the end
    (first, *_) = whole(message).citations
    harbour = SOURCES[1].text
    assert (first.start_char_index, first.end_char_index) == (0, len(harbour))  # all three sentences


def test_without_a_valid_block_range_the_cited_text_is_located() -> None:
    message = copy.deepcopy(MESSAGE)
    del message["content"][5]["citations"][0]["start_block_index"]
    citation = whole(message).citations[-1]
    assert citation.cited_text == "The fish market moved to the new quay in 1933."
    assert (citation.document_index, citation.start_char_index) == (0, 0)


def test_a_citation_of_an_unknown_search_result_is_an_invalid_marker() -> None:
    message = copy.deepcopy(MESSAGE)
    message["content"][5]["citations"][0]["search_result_index"] = 7
    answer = whole(message)
    assert answer.invalid_markers == ["[8]"]
    assert [c.document_index for c in answer.citations] == [1, 1]


def test_without_search_result_blocks_such_citations_point_nowhere_as_before() -> None:
    answer = from_anthropic_content(MESSAGE["content"], SOURCES)
    assert answer.citations == [] and answer.invalid_markers == ["[None]"] * 3  # no document_index
    assert answer.plain_text == whole().plain_text


def test_strict_false_skips_what_it_cannot_read_where_strict_raises() -> None:
    """An adapter answering a user's query passes ``strict=False``: a server tool call or a block type a
    newer SDK adds carries no citable text and must not fail the answer."""
    tool = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "Kessby"}}
    content = [tool, *MESSAGE["content"], None]
    assert whole({"content": content}, strict=False) == whole()
    with pytest.raises(ArgumentError, match="'server_tool_use' content block"):
        whole({"content": content})
    stream = AnthropicCitationStream(SOURCES, search_result_blocks=BLOCKS, strict=False)
    for event in [
        None,
        {"type": "content_block_start", "index": 0, "content_block": tool},
        *events(MESSAGE, 5),
    ]:
        stream.feed(event)
    assert stream.finish() == whole()


@pytest.mark.parametrize(
    "location",
    [
        {"type": "page_location", "start_page_number": 7, "end_page_number": 8},
        {"type": "content_block_location", "start_block_index": 9, "end_block_index": 10},
    ],
)
def test_a_citation_of_pages_or_blocks_the_source_lacks_is_reported(location: dict[str, object]) -> None:
    """Dropped without a trace before (an out-of-range document was reported, an out-of-range page not)."""
    from cite_core import from_anthropic_content, number_sources

    sources = number_sources([{"pages": ["Page one text.", "Page two: rockets fly."], "title": "PDF"}])
    raw = {"cited_text": "Rockets fly to Mars.", "document_index": 0, "document_title": "PDF", **location}
    answer = from_anthropic_content([{"type": "text", "text": "Rockets fly.", "citations": [raw]}], sources)
    assert answer.citations == [] and answer.invalid_markers == ["[1]"]
