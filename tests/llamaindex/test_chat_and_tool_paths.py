"""Paths that cannot keep one numbering raise naming the one that does (issue 31): ``CitePostprocessor``
inside ``index.as_chat_engine(chat_mode="context" | "condense_plus_context")`` (no instruction to cite
reaches the model, numbers restart each turn, the memory keeps the raw numbering) names
``CiteChatEngine``; ``CiteQueryEngine`` behind a plain ``QueryEngineTool`` (two tools both say [1])
names ``cited_query_engine_tool``. The postprocessor in a query engine keeps working."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.tools import QueryEngineTool

from cite_core import ArgumentError
from llamaindex_cite import CiteChatEngine, CitePostprocessor, CiteQueryEngine
from tests.llamaindex.conftest import DISPLAY, QUESTION, ListRetriever, nodes


def _ask(engine: Any, how: str) -> Any:
    if how == "chat":
        return engine.chat(QUESTION)
    if how == "stream_chat":
        return "".join(engine.stream_chat(QUESTION).response_gen)
    if how == "achat":
        return asyncio.run(engine.achat(QUESTION))

    async def astream() -> str:
        reply = await engine.astream_chat(QUESTION)
        return "".join([token async for token in reply.async_response_gen()])

    return asyncio.run(astream())


@pytest.mark.parametrize("mode", ["context", "condense_plus_context"])
@pytest.mark.parametrize("how", ["chat", "stream_chat", "achat", "astream_chat"])
def test_the_postprocessor_in_a_chat_engine_names_cite_chat_engine(embed_model, llm, mode, how):
    index = VectorStoreIndex(nodes(), embed_model=embed_model)  # in memory: sync and async retrieval
    chat = index.as_chat_engine(
        chat_mode=mode, llm=llm, similarity_top_k=10, node_postprocessors=[CitePostprocessor()]
    )
    with pytest.raises(ArgumentError, match=r"CiteChatEngine\.from_defaults") as raised:
        _ask(chat, how)
    assert "instruction to cite" in str(raised.value)
    assert not llm.prompts  # raised before the model was asked


def test_the_postprocessor_in_cite_chat_engine_says_to_remove_it(llm):
    retriever = ListRetriever([*map(_scored, nodes())])
    chat = CiteChatEngine.from_defaults(retriever, llm=llm, node_postprocessors=[CitePostprocessor()])
    with pytest.raises(ArgumentError, match="numbers its sources itself: remove CitePostprocessor"):
        chat.chat(QUESTION)


def test_the_postprocessor_in_a_query_engine_still_cites(qdrant_index, llm):
    cite = CitePostprocessor()
    engine = qdrant_index.as_query_engine(llm=llm, similarity_top_k=10, node_postprocessors=[cite])
    assert str(cite.cite(engine.query(QUESTION))) == DISPLAY


@pytest.mark.parametrize("aio", [False, True])
def test_cite_query_engine_behind_a_query_engine_tool_names_cited_query_engine_tool(qdrant_index, llm, aio):
    engine = CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=10)
    tool = QueryEngineTool.from_defaults(engine, name="archive", description="The archive.")
    with pytest.raises(ArgumentError, match=r"'archive'.*cited_query_engine_tool\(engine"):
        asyncio.run(tool.acall(input=QUESTION)) if aio else tool.call(input=QUESTION)
    assert str(engine.query(QUESTION)) == DISPLAY  # the engine on its own answers as before


def _scored(node: Any) -> Any:
    from llama_index.core.schema import NodeWithScore

    return NodeWithScore(node=node, score=1.0)


def test_a_function_agent_reports_the_error_of_a_plain_query_engine_tool(qdrant_index, llm):
    # FunctionAgent turns a tool's exception into the tool's output: the ToolCallResult event carries it
    agents = pytest.importorskip("tests.llamaindex.test_agent_numbering")
    workflow = agents.workflow
    engine = CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=10)
    tool = QueryEngineTool.from_defaults(engine, name="kessby", description="The archive.")
    script = [("kessby", QUESTION), "I could not search the archive."]
    agent = workflow.FunctionAgent(tools=[tool], llm=agents.ScriptedAgentLLM(script=script))

    async def run() -> list[Any]:
        handler = agent.run(user_msg=QUESTION)
        results = [e async for e in handler.stream_events() if isinstance(e, workflow.ToolCallResult)]
        await handler
        return results

    (result,) = asyncio.run(run())
    assert result.tool_output.is_error
    assert isinstance(result.tool_output.exception, ArgumentError)
    assert "cited_query_engine_tool" in result.tool_output.content


def test_the_postprocessor_behind_a_query_engine_tool_names_cited_query_engine_tool(qdrant_index, llm):
    engine = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, node_postprocessors=[CitePostprocessor()]
    )
    tool = QueryEngineTool.from_defaults(engine, name="archive", description="The archive.")
    with pytest.raises(ArgumentError, match=r"'archive'.*cited_query_engine_tool\(engine"):
        tool.call(input=QUESTION)
    assert not llm.prompts


def test_query_engine_tools_sharing_a_session_keep_one_numbering():
    # the other way out of issue 31's two tools both citing [1]: engines sharing a CitationSession
    from llamaindex_cite import CitationSession
    from tests.llamaindex.test_chat_conversation import CHURCH, HARBOUR, MARKET, ScriptedChatLLM

    session = CitationSession()
    scored = [_scored(n) for n in (HARBOUR, CHURCH, MARKET)]
    harbour, church, market = scored
    first = CiteQueryEngine(
        retriever=ListRetriever([harbour, church]),
        llm=ScriptedChatLLM(replies=["Dredged [1]."]),
        session=session,
    )
    second_llm = ScriptedChatLLM(
        replies=["Moved [1] after the dredging [2].", "Moved [1] after the dredging [2]."]
    )
    second = CiteQueryEngine(retriever=ListRetriever([market, harbour]), llm=second_llm, session=session)
    tools = [
        QueryEngineTool.from_defaults(e, name=n, description="Archive.")
        for e, n in ((first, "a"), (second, "b"))
    ]
    assert tools[0].call(input="Harbour?").content == "Dredged [1]."
    assert tools[1].call(input="Market?").content == "Moved [3] after the dredging [1]."
    assert [s.document_id for s in session.sources] == ["harbour", "church", "market"]
    cited = session.parse("The market moved [3] after the harbour was dredged [1].")
    assert [n.node.node_id for n in cited.source_nodes] == ["market", "harbour"]
    streaming = second.model_copy(update={"streaming": True})
    assert "".join(streaming.query("Market?").response_gen) == "Moved [3] after the dredging [1]."


def test_a_session_that_is_not_a_llamaindex_session_is_an_argument_error(llm):
    import cite_core

    engine = CiteQueryEngine(retriever=ListRetriever([]), llm=llm, session=cite_core.CitationSession())
    with pytest.raises(ArgumentError, match=r"session must be a llamaindex_cite\.CitationSession"):
        engine.query(QUESTION)
