"""LlamaIndex's streams into the AI SDK UI message stream: a streaming query response or a chat engine's
streamed turn is handed to ``to_ai_sdk_stream`` as it is; its text streams live, the last text part is
the answer's text (a lone ``</think>``'s reasoning is replaced: ``metadata["answer_reset"]``), and an
image source's part carries the image's media type."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from llama_index.core.schema import ImageNode, NodeWithScore, TextNode

from cite_core import ArgumentError, ato_ai_sdk_stream, to_ai_sdk_stream
from llamaindex_cite import CiteChatEngine, CiteQueryEngine
from tests.llamaindex.conftest import ANSWER, DISPLAY, QUESTION, ListRetriever, ReplayLLM

THINKING = "The user asks about childhood; I will cite [2]."


def parts(lines: Any) -> list[dict[str, Any]]:
    out = [json.loads(line[len("data: ") : -2]) for line in lines if line != "data: [DONE]\n\n"]
    return out


def texts(got: list[dict[str, Any]]) -> dict[str, str]:
    """Each text part's joined deltas, by its id, in order."""
    joined: dict[str, str] = {}
    for part in got:
        if part["type"] == "text-delta":
            joined[part["id"]] = joined.get(part["id"], "") + part["delta"]
    return joined


def test_a_streaming_query_response_streams_live_and_ends_with_the_answer(qdrant_index) -> None:
    llm = ReplayLLM(answers={QUESTION: ANSWER})
    engine = CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=10, streaming=True)
    got = parts(to_ai_sdk_stream(engine.query(QUESTION), message_id="q1"))
    deltas = [p for p in got if p["type"] == "text-delta"]
    assert len(deltas) > 20 and texts(got) == {"text-1": DISPLAY}  # token by token, not whole at the end
    first_source = next(i for i, p in enumerate(got) if p["type"].startswith("source-"))
    last_delta = max(i for i, p in enumerate(got) if p["type"] == "text-delta")
    assert first_source < last_delta // 2  # a source shows as soon as it is first cited, with its URL
    assert [p["data"]["reference"] for p in got if p["type"] == "data-citation"] == [1, 2, 2, 3]
    assert got[0] == {"type": "start", "messageId": "q1"} and got[-1] == {"type": "finish"}


def test_reasoning_before_a_lone_closing_tag_is_replaced_by_the_answer(qdrant_index) -> None:
    llm = ReplayLLM(answers={QUESTION: f"{THINKING}\n</think>\n\n{ANSWER}"})
    response = CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=10, streaming=True).query(
        QUESTION
    )
    got = parts(to_ai_sdk_stream(response))
    reset = response.metadata["answer_reset"]
    shown = texts(got)
    assert list(shown) == ["text-1", "text-2"]  # what was shown before is closed; the answer starts anew
    assert len(shown["text-1"]) == reset and shown["text-1"].startswith("The user asks")
    assert shown["text-2"] == DISPLAY == response.answer.text


def test_a_chat_engine_streamed_turn_streams_and_replaces_its_reasoning(qdrant_index) -> None:
    llm = ReplayLLM(answers={QUESTION: f"{THINKING}\n</think>\n\n{ANSWER}"})
    chat_engine = CiteChatEngine.from_defaults(
        qdrant_index.as_retriever(similarity_top_k=10), llm=llm, skip_condense=True
    )
    turn = chat_engine.stream_chat(QUESTION)
    got = parts(to_ai_sdk_stream(turn))
    shown = texts(got)
    assert turn.metadata["answer_reset"] == len(shown["text-1"]) > 0
    assert shown["text-2"] == DISPLAY and len([p for p in got if p["type"] == "text-delta"]) > 20
    assert [p["sourceId"] for p in got if p["type"].startswith("source-")] == ["1", "2", "3"]
    plain = CiteChatEngine.from_defaults(
        qdrant_index.as_retriever(similarity_top_k=10),
        llm=ReplayLLM(answers={QUESTION: ANSWER}),
        skip_condense=True,
    ).stream_chat(QUESTION)
    assert texts(parts(to_ai_sdk_stream(plain))) == {"text-1": DISPLAY}
    assert "answer_reset" not in plain.metadata


def test_an_image_source_part_carries_the_images_media_type() -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n-tiny-").decode()
    nodes = [
        NodeWithScore(node=TextNode(text="Kessby harbour holds twelve boats.", id_="t"), score=0.9),
        NodeWithScore(node=ImageNode(image=png, image_mimetype="image/png", id_="pic"), score=0.8),
    ]
    llm = ReplayLLM(answers={QUESTION: "The harbour [2] holds twelve boats [1]."})
    engine = CiteQueryEngine.from_args(ListRetriever(nodes), llm=llm, multimodal=True, streaming=True)
    got = parts(to_ai_sdk_stream(engine.query(QUESTION)))
    documents = [p for p in got if p["type"] == "source-document"]
    assert documents == [
        {"type": "source-document", "sourceId": "1", "mediaType": "image/png", "title": "pic"},
        {"type": "source-document", "sourceId": "2", "mediaType": "text/plain", "title": "t"},
    ]


async def test_async_streams_go_through_ato_ai_sdk_stream(async_qdrant_index) -> None:
    llm = ReplayLLM(answers={QUESTION: f"{THINKING}\n</think>\n\n{ANSWER}"})
    chat_engine = CiteChatEngine.from_defaults(
        async_qdrant_index.as_retriever(similarity_top_k=10), llm=llm, skip_condense=True
    )
    turn = await chat_engine.astream_chat(QUESTION)
    got = parts([line async for line in ato_ai_sdk_stream(turn, message_id="a1")])
    shown = texts(got)
    assert turn.metadata["answer_reset"] == len(shown["text-1"]) > 0 and shown["text-2"] == DISPLAY
    engine = CiteQueryEngine.from_args(
        async_qdrant_index, llm=ReplayLLM(answers={QUESTION: ANSWER}), similarity_top_k=10, streaming=True
    )
    response = await engine.aquery(QUESTION)
    got = parts([line async for line in ato_ai_sdk_stream(response)])
    assert texts(got) == {"text-1": DISPLAY} and len([p for p in got if p["type"] == "text-delta"]) > 20
    assert [p["data"]["reference"] for p in got if p["type"] == "data-citation"] == [1, 2, 2, 3]
    again = await engine.aquery(QUESTION)
    with pytest.raises(ArgumentError, match="ato_ai_sdk_stream"):  # the sync one says where to go
        list(to_ai_sdk_stream(again))
