"""Claude's native citations streamed as text or messages: the core's display deltas, shown as they come."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessageChunk

from langchain_cite import create_cited_rag_chain
from tests.fakes import LocalServer

from .anthropic_recorded import api_content
from .conftest import ListRetriever, needs_content_blocks
from .test_lc_anthropic import MODEL, anthropic_route, example  # noqa: F401 (fixture)

ChatAnthropic = pytest.importorskip("langchain_anthropic").ChatAnthropic


def chain(example: dict[str, Any], server: LocalServer, output: str) -> Any:  # noqa: F811
    documents = [
        Document(page_content=d["text"], metadata={"title": d["title"]}) for d in example["documents"]
    ]
    llm = ChatAnthropic(model=MODEL, base_url=server.url, api_key="test", max_retries=0)
    return create_cited_rag_chain(ListRetriever(documents=documents), llm, output=output)  # type: ignore[arg-type]


def test_native_text_output_streams_the_display_text(example: dict[str, Any], local_server: Any) -> None:  # noqa: F811
    server = local_server(anthropic_route(api_content(example)))
    question = example["question"]
    pieces = list(chain(example, server, "text").stream(question))
    shown = chain(example, server, "answer").invoke(question).text
    assert all(isinstance(p, str) for p in pieces) and len(pieces) > 20  # as Claude writes, not at the end
    assert "".join(pieces) == shown == chain(example, server, "text").invoke(question)
    before_last = "".join(pieces[:-1])
    assert "[1]" in before_last  # the marker is shown with its final number while the answer streams


@needs_content_blocks
def test_native_message_output_streams_chunks_that_add_up_to_the_message(
    example: dict[str, Any],  # noqa: F811
    local_server: Any,
) -> None:
    server = local_server(anthropic_route(api_content(example)))
    question = example["question"]
    chunks = list(chain(example, server, "message").stream(question))
    assert len(chunks) > 20 and all(isinstance(c, AIMessageChunk) for c in chunks)
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    message = chain(example, server, "message").invoke(question)
    assert total.text == message.text
    streamed, whole = (m.content_blocks[0]["annotations"] for m in (total, message))
    assert [{**a, "id": None} for a in streamed] == [{**a, "id": None} for a in whole]  # ids are random
    assert len({c.id for c in chunks}) == 1
