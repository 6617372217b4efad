"""A cited LangChain chain's ``stream()`` into the AI SDK UI message stream: the display deltas it yields
(``output="answer"``) stream live, a lone ``</think>``'s reasoning is replaced by the answer, a verified
answer adds a ``data-verification`` part, and a document without a URL carries its file's media type."""

from __future__ import annotations

import json
import logging
from typing import Any

from langchain_core.language_models import FakeListChatModel

from cite_core import TextDelta, ato_ai_sdk_stream, to_ai_sdk_stream
from langchain_cite import create_cited_rag_chain

from .conftest import ANSWER, QUESTION, ListRetriever

VERDICTS = json.dumps(
    {
        "claims": [
            {"id": 1, "verdict": "supported", "reason": "stated"},
            {"id": 2, "verdict": "partially_supported", "reason": "thousands of years"},
            {"id": 3, "verdict": "supported", "reason": "stated"},
        ]
    }
)


def parts(lines: Any) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: ") : -2]) for line in lines if line != "data: [DONE]\n\n"]


def texts(got: list[dict[str, Any]]) -> dict[str, str]:
    joined: dict[str, str] = {}
    for part in got:
        if part["type"] == "text-delta":
            joined[part["id"]] = joined.get(part["id"], "") + part["delta"]
    return joined


def test_the_chains_stream_is_sent_live_with_its_sources(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[ANSWER]))
    got = parts(to_ai_sdk_stream(chain.stream(QUESTION)))
    deltas = [i for i, p in enumerate(got) if p["type"] == "text-delta"]
    assert len(deltas) > 20 and texts(got) == {"text-1": ANSWER}  # as written, not whole at the end
    sources = [p for p in got if p["type"].startswith("source-")]
    assert sources == [
        {
            "type": "source-document",
            "sourceId": "1",
            "mediaType": "text/plain",
            "title": "The Sun",
            "filename": "sun.txt",
        },
        {"type": "source-url", "sourceId": "2", "url": "https://example.org/moon", "title": "The Moon"},
    ]
    # the chain numbers its documents inside the stream: their parts come with the answer, after the text
    assert got.index(sources[0]) > deltas[-1]
    assert [p["data"]["reference"] for p in got if p["type"] == "data-citation"] == [1, 1, 2]
    assert not [p for p in got if p["type"] == "data-verification"]


def test_reasoning_before_a_lone_closing_tag_is_replaced(retriever: ListRetriever) -> None:
    thinking = "The user asks about the Sun. I will cite [2] first."
    chain = create_cited_rag_chain(
        retriever, FakeListChatModel(responses=[f"{thinking}\n</think>\n\n{ANSWER}"])
    )
    got = parts(to_ai_sdk_stream(chain.stream(QUESTION)))
    shown = texts(got)
    assert list(shown) == ["text-1", "text-2"] and shown["text-1"].startswith("The user asks")
    assert shown["text-2"] == ANSWER


def test_a_verified_answer_sends_its_verdicts(retriever: ListRetriever) -> None:
    llm = FakeListChatModel(responses=[ANSWER, VERDICTS])
    got = parts(to_ai_sdk_stream(create_cited_rag_chain(retriever, llm, verify=True).stream(QUESTION)))
    [verification] = [p for p in got if p["type"] == "data-verification"]
    data = verification["data"]
    assert data["judge"] == "langchain:FakeListChatModel" and data["calls"] == 1 and data["problem"] is None
    assert [c["markers"] for c in data["claims"]] == ["[1]", "[1]", "[2]"]
    assert [c["verdict"]["level"] for c in data["claims"]] == [
        "supported",
        "partially_supported",
        "supported",
    ]
    assert data["claims"][1]["verdict"]["reason"] == "thousands of years"
    assert got.index(verification) < got.index({"type": "finish"})


def test_plain_text_deltas_alone_are_sent_at_the_end_with_a_warning(retriever: ListRetriever, caplog) -> None:  # type: ignore[no-untyped-def]
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[ANSWER]))
    items = [
        i
        for i in chain.stream(QUESTION)
        if isinstance(i, TextDelta) or not type(i).__name__.endswith("Delta")
    ]
    with caplog.at_level(logging.WARNING, logger="cite_core"):
        got = parts(to_ai_sdk_stream(items))
    assert [p["delta"] for p in got if p["type"] == "text-delta"] == [ANSWER]  # whole, markers included
    [record] = [r for r in caplog.records if "to_ai_sdk_stream" in r.getMessage()]
    assert "\n" not in record.getMessage() and "display" in record.getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="cite_core"):
        list(to_ai_sdk_stream(chain.stream(QUESTION)))
    assert not caplog.records  # display deltas were there: no warning


async def test_astream_goes_through_ato_ai_sdk_stream(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[ANSWER]))
    got = parts([line async for line in ato_ai_sdk_stream(chain.astream(QUESTION), message_id="m")])
    assert texts(got) == {"text-1": ANSWER} and len([p for p in got if p["type"] == "text-delta"]) > 20
    assert got[0] == {"type": "start", "messageId": "m"} and got[-1] == {"type": "finish"}
    events = list(chain.stream(QUESTION))  # a list works too: the same parts
    assert texts(parts([line async for line in ato_ai_sdk_stream(events)])) == {"text-1": ANSWER}
