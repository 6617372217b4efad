"""ChatAnthropic with native citations against a local server replaying recorded Messages API responses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel

from langchain_cite import CitationsDelta, TextDelta, create_cited_rag_chain, is_chat_anthropic, to_ai_message
from tests.fakes import LocalServer

from .anthropic_recorded import COOKBOOK, api_content, load_examples, message, stream_events
from .conftest import ListRetriever, needs_content_blocks

ChatAnthropic = pytest.importorskip("langchain_anthropic").ChatAnthropic

MODEL = "claude-3-5-sonnet-latest"


@pytest.fixture
def example() -> dict[str, Any]:
    if not COOKBOOK.is_file():
        pytest.skip("../shared/data is not beside the project")
    return load_examples()["plain_text_documents"]


def anthropic_route(content: list[dict[str, Any]]) -> Any:
    def route(path: str, body: dict[str, Any]) -> tuple[int, str, Any]:
        assert path == "/v1/messages", path
        if body.get("stream"):
            return 200, "text/event-stream", stream_events(content, body["model"])
        return 200, "application/json", message(content, body["model"])

    return route


def chain_for(example: dict[str, Any], server: LocalServer) -> Any:
    documents = [
        Document(page_content=d["text"], metadata={"title": d["title"], "source": d["file"]})
        for d in example["documents"]
    ]
    llm = ChatAnthropic(model=MODEL, base_url=server.url, api_key="test", max_retries=0)
    assert is_chat_anthropic(llm) and is_chat_anthropic(llm.with_config(tags=["x"]))
    return create_cited_rag_chain(ListRetriever(documents=documents), llm)


def check(answer: Any, example: dict[str, Any]) -> None:
    content = api_content(example)
    assert answer.to_anthropic() == {"content": content}
    assert answer.text.startswith("Based on the documentation") and "[1]" in answer.text
    [ref] = answer.references
    assert ref.source.title == "Order Tracking Information" and ref.source.number == 4
    assert [c.start_char_index for c in answer.citations] == [0, 398]


def test_native_citations_invoke(example: dict[str, Any], local_server: Any) -> None:
    server = local_server(anthropic_route(api_content(example)))
    chain = chain_for(example, server)
    answer = chain.invoke(example["question"])
    check(answer, example)
    request = server.requests[0][1]
    [user] = request["messages"]
    documents = [b for b in user["content"] if b["type"] == "document"]
    assert len(documents) == 10 and all(d["citations"] == {"enabled": True} for d in documents)
    assert documents[3]["title"] == "Order Tracking Information"
    assert documents[3]["source"]["data"] == example["documents"][3]["text"]
    assert user["content"][-1] == {"type": "text", "text": example["question"]}


@needs_content_blocks
def test_native_citations_as_message_annotations(example: dict[str, Any], local_server: Any) -> None:
    server = local_server(anthropic_route(api_content(example)))
    answer = chain_for(example, server).invoke(example["question"])
    annotations = to_ai_message(answer).content[0]["annotations"]
    assert [a["cited_text"] for a in annotations] == [c.cited_text for c in answer.citations]


def test_native_citations_stream(example: dict[str, Any], local_server: Any) -> None:
    server = local_server(anthropic_route(api_content(example)))
    chain = chain_for(example, server)
    items = list(chain.stream(example["question"]))
    assert len(items) > 20
    answer = items[-1]
    check(answer, example)
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == answer.plain_text
    assert [i.citation for i in items if isinstance(i, CitationsDelta)] == answer.citations
    assert server.requests[0][1]["stream"] is True
    assert answer == chain.invoke(example["question"])


async def test_native_citations_astream(example: dict[str, Any], local_server: Any) -> None:
    server = local_server(anthropic_route(api_content(example)))
    chain = chain_for(example, server)
    items = [i async for i in chain.astream(example["question"])]
    assert len(items) > 20
    check(items[-1], example)


def test_switching_models_keeps_the_application_code(example: dict[str, Any], local_server: Any) -> None:
    """The same code gets the same kind of answer from Claude (native) and from any model (markers)."""
    server = local_server(anthropic_route(api_content(example)))
    claude = chain_for(example, server).invoke(example["question"])
    retriever = ListRetriever(
        documents=[
            Document(page_content=d["text"], metadata={"title": d["title"]}) for d in example["documents"]
        ]
    )
    fake = FakeListChatModel(
        responses=["You'll get an email with a tracking number once your order ships [4]."]
    )
    other = create_cited_rag_chain(retriever, fake).invoke(example["question"])
    for answer in (claude, other):
        assert answer.references[0].source.title == "Order Tracking Information"
        assert answer.citations[0].type == "char_location"
        assert answer.citations[0].cited_text.startswith("Once your order ships")


def test_native_only_when_every_model_a_run_may_call_is_claude() -> None:
    """A default Claude with an OpenAI alternative (configurable_alternatives) was called native, so a run
    choosing OpenAI sent it Claude's document blocks; Claude with Claude fallbacks was not native."""
    from langchain_core.runnables import ConfigurableField

    ChatOpenAI = pytest.importorskip("langchain_openai").ChatOpenAI
    claude = ChatAnthropic(model=MODEL, api_key="test")
    haiku = ChatAnthropic(model="claude-3-haiku-20240307", api_key="test")
    gpt = ChatOpenAI(model="gpt-4o-mini", api_key="test")
    field = ConfigurableField(id="llm")
    assert is_chat_anthropic(claude.with_fallbacks([haiku]))
    assert is_chat_anthropic(claude.configurable_alternatives(field, default_key="sonnet", haiku=haiku))
    assert is_chat_anthropic(claude.configurable_fields(max_tokens=ConfigurableField(id="max")))
    assert not is_chat_anthropic(claude.with_fallbacks([gpt]))
    assert not is_chat_anthropic(gpt.with_fallbacks([claude]))
    assert not is_chat_anthropic(claude.configurable_alternatives(field, default_key="sonnet", gpt=gpt))
    assert not is_chat_anthropic(
        claude.configurable_alternatives(field, default_key="sonnet", gpt=lambda: gpt)
    )


def test_claude_fallbacks_answer_natively(example: dict[str, Any], local_server: Any) -> None:
    server = local_server(anthropic_route(api_content(example)))
    documents = [
        Document(page_content=d["text"], metadata={"title": d["title"], "source": d["file"]})
        for d in example["documents"]
    ]
    claude = ChatAnthropic(model=MODEL, base_url=server.url, api_key="test", max_retries=0)
    chain = create_cited_rag_chain(ListRetriever(documents=documents), claude.with_fallbacks([claude]))
    check(chain.invoke(example["question"]), example)
    [user] = server.requests[0][1]["messages"]
    assert sum(b["type"] == "document" for b in user["content"]) == 10


def test_a_run_choosing_another_model_than_claude_gets_the_marker_prompt(local_server: Any) -> None:
    from langchain_core.runnables import ConfigurableField

    from tests.langchain.test_lc_openai import openai_route

    ChatOpenAI = pytest.importorskip("langchain_openai").ChatOpenAI
    server = local_server(openai_route("The Moon reflects sunlight [1]."))
    gpt = ChatOpenAI(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="test", max_retries=0)
    llm = ChatAnthropic(model=MODEL, api_key="test").configurable_alternatives(
        ConfigurableField(id="llm"), default_key="claude", gpt=gpt
    )
    moon = Document(page_content="The Moon reflects the light of the Sun.", metadata={"title": "Moon"})
    chain = create_cited_rag_chain(ListRetriever(documents=[moon]), llm)
    answer = chain.invoke("Why does the Moon shine?", {"configurable": {"llm": "gpt"}})
    assert answer.text == "The Moon reflects sunlight [1]." and answer.references[0].source.title == "Moon"
    sent = json.dumps(server.requests[0][1])
    assert '<source number=\\"1\\"' in sent and '"type": "document"' not in sent
