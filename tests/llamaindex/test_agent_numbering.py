"""LlamaIndex agents keep one numbering (issue 22): a ``FunctionAgent`` with ``cited_query_engine_tool``
streams ``AgentStream`` deltas (one character each) with the numbers ``session.parse(final)`` and its
references give, over two tool calls and a repeated node; a reload from saved ChatMessages keeps them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from llama_index.core.base.llms import types as llm_types

if not hasattr(llm_types, "ToolCallBlock"):  # the function-calling blocks these tests script
    pytest.skip("llama-index-core < 0.14 has no ToolCallBlock", allow_module_level=True)
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import Field

from cite_core import ArgumentError
from llamaindex_cite import CitationSession, cited_query_engine_tool

workflow = pytest.importorskip("llama_index.core.agent.workflow")

HARBOUR = TextNode(text="The harbour was dredged in 1931 so steamers could dock.", id_="harbour")
MARKET = TextNode(text="The fish market moved to the new quay in 1933.", id_="market")
CHURCH = TextNode(text="The church was rebuilt in stone in 1890.", id_="church")
FOUND = {"harbour": [HARBOUR, CHURCH], "market": [MARKET, HARBOUR]}
FINAL = "The fish market moved in 1933 [3], after the harbour was dredged [1]."


class KeywordRetriever(BaseRetriever):
    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [NodeWithScore(node=n, score=1.0) for n in FOUND[query_bundle.query_str]]


class ScriptedAgentLLM(MockFunctionCallingLLM):
    """Replies in order: tool calls (``("kessby", query)``) or text streamed one character per delta."""

    script: list[Any] = Field(default_factory=list)

    async def astream_chat(  # type: ignore[override]
        self, messages: Sequence[ChatMessage], **kwargs: Any
    ) -> AsyncIterator[ChatResponse]:
        step = self.script.pop(0)

        async def gen() -> AsyncIterator[ChatResponse]:
            if isinstance(step, tuple):
                call = ToolCallBlock(
                    tool_call_id=f"call-{step[1]}", tool_name=step[0], tool_kwargs={"input": step[1]}
                )
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, blocks=[call]), delta="")
                return
            for i, char in enumerate(step):
                message = ChatMessage(role=MessageRole.ASSISTANT, content=step[: i + 1])
                yield ChatResponse(message=message, delta=char)

        return gen()


async def run_agent(session: CitationSession, script: list[Any]) -> tuple[str, Any, Any]:
    tool = cited_query_engine_tool(
        KeywordRetriever(), name="kessby", description="The archive.", session=session
    )
    agent = workflow.FunctionAgent(tools=[tool], llm=ScriptedAgentLLM(script=script))
    handler = agent.run(user_msg="What changed in Kessby?")
    streamed = ""
    async for event in handler.stream_events():
        if isinstance(event, workflow.AgentStream):
            streamed += event.delta
    final = await handler
    memory = await handler.ctx.store.get("memory")
    return streamed, final, await memory.aget_all()


def test_function_agent_streams_the_numbers_session_parse_gives() -> None:
    session = CitationSession()
    streamed, final, _ = asyncio.run(run_agent(session, [("kessby", "harbour"), ("kessby", "market"), FINAL]))
    cited = session.parse(str(final))
    assert streamed == str(cited) == FINAL
    references = cited.metadata["cited_answer"].references
    assert [(r.number, r.source.number) for r in references] == [(3, 3), (1, 1)]
    assert [n.node.node_id for n in cited.source_nodes] == ["market", "harbour"]
    assert [s.number for s in session.sources] == [1, 2, 3]  # the harbour, retrieved twice, kept once


def test_saved_chat_messages_rebuild_the_session() -> None:
    session = CitationSession()
    _, _, messages = asyncio.run(run_agent(session, [("kessby", "harbour"), ("kessby", "market"), FINAL]))
    saved = [m.model_dump_json() for m in messages]
    restored = CitationSession.from_messages(
        [ChatMessage.model_validate_json(m) for m in saved], tool_names=["kessby"]
    )
    untrusted = CitationSession.from_messages([ChatMessage.model_validate_json(m) for m in saved])
    assert untrusted.sources == []  # a tool not named as the project's: its text is never read
    assert [(s.number, s.text) for s in restored.sources] == [(s.number, s.text) for s in session.sources]
    tool = cited_query_engine_tool(
        KeywordRetriever(), name="kessby", description="The archive.", session=restored
    )
    shown = tool.call(input="market").content
    assert '<source number="3"' in shown and '<source number="1"' in shown and len(restored) == 3
    assert str(restored.parse("The market moved [3].")) == "The market moved [3]."


ODD = "The fish market moved in 1933 [3, 1], after the dredging 【1】, and dragons nested there [9]"


async def stream_cited(session: CitationSession, script: list[Any]) -> tuple[list[str], str, Any]:
    tool = cited_query_engine_tool(KeywordRetriever(), name="kessby", description="Archive.", session=session)
    agent = workflow.FunctionAgent(tools=[tool], llm=ScriptedAgentLLM(script=script))
    handler = agent.run(user_msg="What changed in Kessby?")
    deltas, last = [], ""
    async for event in session.stream_events(handler):
        if isinstance(event, workflow.AgentStream):
            deltas.append(event.delta)
            last = event.response
    return deltas, last, await handler


@pytest.mark.parametrize("final", [FINAL, ODD, ODD + ".", "Nothing cited [2"])
def test_stream_events_streams_what_session_parse_gives(final: str) -> None:
    # issue 31: AgentStream deltas showed [3, 1], 【1】 and an invalid [9] raw while parse normalised them
    session = CitationSession()
    deltas, last, result = asyncio.run(
        stream_cited(session, [("kessby", "harbour"), ("kessby", "market"), final])
    )
    cited = str(session.parse(str(result)))
    assert "".join(deltas) == last == cited
    assert len([d for d in deltas if d]) > 10  # streamed, not one block at the end
    if final.startswith(ODD):
        assert cited.startswith("The fish market moved in 1933 [3][1], after the dredging [1], and dragons")
        assert "[9]" not in "".join(deltas) and "【" not in "".join(deltas)


@pytest.mark.parametrize("other", ["its own session", "another session"])
def test_stream_events_refuses_a_tool_numbering_into_another_session(other: str) -> None:
    # two tools, two sessions: both showed [1] (the harbour for one, the market for the other) and the
    # agent's [1] named either, while stream_events and parse read only their own session
    session = CitationSession()
    theirs = None if other == "its own session" else CitationSession()

    async def run() -> None:
        tools = [
            cited_query_engine_tool(KeywordRetriever(), name="old", description="Archive.", session=session),
            cited_query_engine_tool(KeywordRetriever(), name="new", description="Archive.", session=theirs),
        ]
        llm = ScriptedAgentLLM(script=[("old", "harbour"), ("new", "market"), FINAL])
        handler = workflow.FunctionAgent(tools=tools, llm=llm).run(user_msg="What changed in Kessby?")
        async for _ in session.stream_events(handler):
            pass

    with pytest.raises(ArgumentError, match=r"tool 'new' numbers its sources into another CitationSession"):
        asyncio.run(run())
    one = [("kessby", "harbour"), ("kessby", "market"), FINAL]
    assert "".join(asyncio.run(stream_cited(session, one))[0]) == FINAL  # one session: as before


def test_a_saved_conversation_whose_tools_used_different_sessions_is_refused_on_reload() -> None:
    # two tools, two sessions: both showed [1] (the harbour, then the market); from_messages kept the
    # first meaning of [1] and dropped the other without a word, so the reloaded answer cited the wrong node
    async def run() -> list[ChatMessage]:
        tools = [
            cited_query_engine_tool(KeywordRetriever(), name="old", description="Archive.", session=None),
            cited_query_engine_tool(KeywordRetriever(), name="new", description="Archive.", session=None),
        ]
        llm = ScriptedAgentLLM(script=[("old", "harbour"), ("new", "market"), FINAL])
        handler = workflow.FunctionAgent(tools=tools, llm=llm).run(user_msg="What changed in Kessby?")
        await handler
        memory = await handler.ctx.store.get("memory")
        return await memory.aget_all()

    messages = asyncio.run(run())
    with pytest.raises(ArgumentError, match=r"tool 'new' shows \[1\] for another source.*different"):
        CitationSession.from_messages(messages, tool_names=["old", "new"])
    one = CitationSession.from_messages(messages, tool_names=["old"])  # one tool's results: one meaning
    assert [s.text for s in one.sources] == [HARBOUR.text, CHURCH.text]


def test_a_cited_tools_output_saves_as_its_text() -> None:
    # the output knows its session (for stream_events' check); saved with a workflow's context (pickle,
    # deepcopy) it is the text it was, never the session and its lock
    import copy
    import pickle

    session = CitationSession()
    tool = cited_query_engine_tool(KeywordRetriever(), name="kessby", description="Archive.", session=session)
    raw = tool.call(input="harbour").raw_output
    assert raw.session is session
    for saved in (pickle.loads(pickle.dumps(raw)), copy.deepcopy(raw), copy.copy(raw)):
        assert saved == raw and type(saved) is str
