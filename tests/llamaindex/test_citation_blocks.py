"""CitationBlocks in (a ChatResponse of llama-index-llms-anthropic) and out (a cited answer as ChatMessage
blocks for LlamaIndex UIs)."""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, CitationBlock, MessageRole, TextBlock
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import ArgumentError, number_sources, parse_answer
from llamaindex_cite import from_chat_response, to_chat_message
from tests.core.native_payloads import PARIS, TOKYO, VIENNA, check_native

NODES = [
    NodeWithScore(node=TextNode(text=t, id_=i, metadata={"title": title}), score=1.0)
    for t, i, title in (
        (PARIS, "paris", "Paris"),
        (VIENNA, "vienna", "Vienna cafés"),
        (TOKYO, "tokyo", "Tokyo"),
    )
]


def _claude_response() -> ChatResponse:
    """What llama-index-llms-anthropic returns for an answer citing search results 1 and 2."""
    blocks = [
        TextBlock(text="Café culture began in Vienna 🇦🇹."),
        CitationBlock(
            cited_content=TextBlock(text="Café culture began in Vienna, says the guide."),
            source="vienna",
            title="Vienna cafés",
            additional_location_info={"start_block_index": 0, "end_block_index": 1, "search_result_index": 1},
        ),
        TextBlock(text=" 東京は日本の首都です。"),
        CitationBlock(
            cited_content=TextBlock(text="東京は日本の首都です。"),
            source="tokyo",
            title="Tokyo",
            additional_location_info={"start_block_index": 0, "end_block_index": 1, "search_result_index": 2},
        ),
        CitationBlock(
            cited_content="Not sent.",
            source="ghost",
            title="Ghost",
            additional_location_info={"search_result_index": 9},
        ),
    ]
    return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks))


def test_citation_blocks_of_a_chat_response_become_a_cited_answer() -> None:
    answer = from_chat_response(_claude_response(), NODES)
    check_native(answer)
    assert [(c.text, [x.document_index for x in c.citations]) for c in answer.claims] == [
        ("Café culture began in Vienna 🇦🇹.", [1]),
        ("東京は日本の首都です。", [2]),
    ]
    assert answer.citations[1].start_char_index == TOKYO.index("東京")
    assert answer.invalid_markers == ["[10]"]
    unverified = from_chat_response(_claude_response())
    assert [r.title for r in unverified.references] == ["Vienna cafés", "Tokyo", "Ghost"]


def test_a_cited_answer_as_chat_message_blocks_round_trips() -> None:
    sources = number_sources([{"text": PARIS, "title": "Paris", "url": "https://example.org/paris"}, TOKYO])
    answer = parse_answer("The Seine flows through Paris [1]. 東京は日本の首都です [2]。", sources)
    message = to_chat_message(answer)
    kinds = [type(b).__name__ for b in message.blocks]
    assert kinds == ["TextBlock", "CitationBlock", "TextBlock", "TextBlock", "CitationBlock", "TextBlock"]
    first = message.blocks[1]
    assert isinstance(first, CitationBlock) and first.source == "https://example.org/paris"
    assert first.additional_location_info["reference"] == 1
    assert first.cited_content.text == answer.citations[0].cited_text  # type: ignore[union-attr]
    again = from_chat_response(message, [NodeWithScore(node=TextNode(text=s.text)) for s in sources])
    assert [c.text for c in again.claims] == [c.text for c in answer.claims]
    assert [c.cited_text for c in again.citations] == [c.cited_text for c in answer.citations]
    with pytest.raises(ArgumentError):
        to_chat_message("not an answer")
    with pytest.raises(ArgumentError):
        from_chat_response("not a response")


def test_own_blocks_keep_the_quote_where_it_was_when_the_node_says_it_twice() -> None:
    tides = "The tide is high at noon. Boats wait in the harbour. The tide is high at noon."
    nodes = [NodeWithScore(node=TextNode(text=tides, id_="tides", metadata={"title": "Tides"}), score=1.0)]
    answer = parse_answer("The tide is high at noon [1:3].", number_sources([tides]), style="sentences")
    [quoted] = answer.citations
    assert quoted.source_start == tides.index("The tide", 1)
    again = from_chat_response(to_chat_message(answer), nodes)
    check_native(again)
    assert [(c.source_start, c.source_end) for c in again.citations] == [
        (quoted.source_start, quoted.source_end)
    ]


def test_a_citation_before_any_text_cites_the_text_that_follows_and_one_without_text_is_reported() -> None:
    vienna = CitationBlock(
        cited_content=TextBlock(text="Café culture began in Vienna, says the guide."),
        source="vienna",
        title="Vienna cafés",
        additional_location_info={"search_result_index": 1},
    )
    first = ChatMessage(
        role=MessageRole.ASSISTANT, blocks=[vienna, TextBlock(text="Café culture began in Vienna 🇦🇹.")]
    )
    answer = from_chat_response(first, NODES)
    check_native(answer)
    assert answer.text == "Café culture began in Vienna 🇦🇹. [1]"
    assert [r.source.text for r in answer.references] == [VIENNA]
    alone = from_chat_response(ChatMessage(role=MessageRole.ASSISTANT, blocks=[vienna]), NODES)
    assert (alone.text, alone.references, alone.invalid_markers) == (
        "",
        [],
        ["[2]"],
    )  # never dropped silently
