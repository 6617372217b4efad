"""ChatOpenAI against a local OpenAI-compatible server that replays recorded GPT-4 answers over HTTP/SSE."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document

from cite_core import parse_answer
from langchain_cite import CitationsDelta, TextDelta, create_cited_rag_chain, documents_to_sources
from tests.fakes import LocalServer, sse

from .conftest import ListRetriever

ChatOpenAI = pytest.importorskip("langchain_openai").ChatOpenAI

RECORDED = Path(__file__).resolve().parents[1] / "data" / "expertqa_subset.jsonl"
"""Real GPT-4 / Bing answers with [n] markers and the passages they cite (ExpertQA, MIT; see tests/data)."""


def recorded() -> list[dict[str, Any]]:
    if not RECORDED.is_file():
        pytest.skip("tests/data/expertqa_subset.jsonl is absent")
    records = [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines()]
    # only answers whose every passage has text: an empty passage would be skipped and shift the numbers
    return [r for r in records if all((p["text"] or "").strip() for p in r["passages"])][:4]


def openai_route(answer: str) -> Any:
    """Chat completions: whole JSON, or SSE chunks of 3 characters (markers arrive split)."""

    def route(path: str, body: dict[str, Any]) -> tuple[int, str, Any]:
        assert path == "/v1/chat/completions", path
        base = {"id": "chatcmpl-rec", "created": int(time.time()), "model": body["model"]}
        if not body.get("stream"):
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "finish_reason": "stop",
            }
            usage = {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}
            return (
                200,
                "application/json",
                {**base, "object": "chat.completion", "choices": [choice], "usage": usage},
            )
        events = []
        for i in range(0, len(answer), 3):
            delta = {"content": answer[i : i + 3], **({"role": "assistant"} if i == 0 else {})}
            events.append(
                sse(
                    {
                        **base,
                        "object": "chat.completion.chunk",
                        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                    }
                )
            )
        events.append(
            sse(
                {
                    **base,
                    "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                }
            )
        )
        events.append(sse("[DONE]"))
        return 200, "text/event-stream", events

    return route


def documents_of(record: dict[str, Any]) -> list[Document]:
    return [Document(page_content=p["text"], metadata={"url": p["url"]}) for p in record["passages"]]


@pytest.mark.parametrize("index", range(4))
def test_recorded_answers_over_http_and_sse(index: int, local_server: Any) -> None:
    record = recorded()[index]
    server: LocalServer = local_server(openai_route(record["answer"]))
    llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="test", max_retries=0)
    chain = create_cited_rag_chain(ListRetriever(documents=documents_of(record)), llm, merge=False)

    answer = chain.invoke(record["question"])
    expected = parse_answer(record["answer"], documents_to_sources(documents_of(record), merge=False))
    assert answer.text == expected.text and answer.citations == expected.citations
    assert answer.references, "recorded answers cite their passages"

    items = list(chain.stream(record["question"]))
    assert len(items) > 20
    assert items[-1] == answer
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == answer.plain_text
    assert [i.citation for i in items if isinstance(i, CitationsDelta)] == answer.citations

    prompt = server.requests[0][1]["messages"]
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert record["passages"][0]["text"].strip()[:40] in prompt[1]["content"]
    assert server.requests[1][1]["stream"] is True


async def test_recorded_answer_async_stream(local_server: Any) -> None:
    record = recorded()[0]
    server: LocalServer = local_server(openai_route(record["answer"]))
    llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="test", max_retries=0)
    chain = create_cited_rag_chain(ListRetriever(documents=documents_of(record)), llm, merge=False)
    items = [item async for item in chain.astream(record["question"])]
    assert len(items) > 20
    assert items[-1] == await chain.ainvoke(record["question"])
