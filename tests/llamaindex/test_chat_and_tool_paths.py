"""Paths that cannot keep one numbering raise naming the one that does (issue 31): ``CitePostprocessor``
inside ``index.as_chat_engine(chat_mode="context" | "condense_plus_context")`` (no instruction to cite
reaches the model, numbers restart each turn, the memory keeps the raw numbering) names
``CiteChatEngine``; ``CiteQueryEngine`` behind a plain ``QueryEngineTool`` (two tools both say [1])
names ``cited_query_engine_tool``. The postprocessor in a query engine keeps working."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import llama_index.core
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


@pytest.mark.parametrize("aio", [False, True])
def test_cite_synthesizer_in_any_engine_behind_a_query_engine_tool_names_cited_query_engine_tool(llm, aio):
    # one check for every query-side component: a RetrieverQueryEngine with CiteSynthesizer numbered
    # each call from [1] behind a QueryEngineTool without a word (CiteQueryEngine was refused)
    from llama_index.core.query_engine import RetrieverQueryEngine

    from llamaindex_cite import CiteSynthesizer

    engine = RetrieverQueryEngine(
        ListRetriever([*map(_scored, nodes())]), response_synthesizer=CiteSynthesizer(llm=llm)
    )
    tool = QueryEngineTool.from_defaults(engine, name="archive", description="The archive.")
    with pytest.raises(ArgumentError, match=r"CiteSynthesizer behind QueryEngineTool 'archive'.*cited_query"):
        asyncio.run(tool.acall(input=QUESTION)) if aio else tool.call(input=QUESTION)
    assert not llm.prompts  # raised before the model was asked
    assert str(engine.query(QUESTION)) == DISPLAY  # the engine on its own cites as before


def _router(llm: Any, picks: str, synthesizer: bool) -> Any:
    from llama_index.core.query_engine import RetrieverQueryEngine, RouterQueryEngine
    from llama_index.core.selectors import LLMMultiSelector

    from llamaindex_cite import CiteSynthesizer
    from tests.llamaindex.conftest import ReplayLLM

    scored = [*map(_scored, nodes())]
    parts = [ListRetriever(scored[:3]), ListRetriever(scored[3:])]
    engines = [
        RetrieverQueryEngine(r, response_synthesizer=CiteSynthesizer(llm=llm))
        if synthesizer
        else CiteQueryEngine.from_args(r, llm=llm)
        for r in parts
    ]
    tools = [QueryEngineTool.from_defaults(e, name=n, description=n) for e, n in zip(engines, "ab")]
    selector = LLMMultiSelector.from_defaults(llm=ReplayLLM(default=picks))
    return RouterQueryEngine(selector=selector, query_engine_tools=tools, llm=llm)


_BOTH = '[{"choice": 1, "reason": "a"}, {"choice": 2, "reason": "b"}]'


# llama-index-core 0.13's RouterQueryEngine._aquery runs the chosen engines through run_async_tasks: a
# fresh event loop in a worker thread, where neither a frame nor a span parent names the router (0.14
# awaits asyncio.gather, whose tasks keep the span parent); docs/llamaindex.md says so
OLD_CORE = tuple(int(p) for p in llama_index.core.__version__.split(".")[:2]) < (0, 14)


@pytest.mark.parametrize("synthesizer", [False, True])
@pytest.mark.parametrize("aio", [False, True])
def test_a_router_combining_several_cited_answers_is_refused(llm, aio, synthesizer):
    # a multi selector queried both engines and TreeSummarize merged their texts: [1] named a node of
    # each, the model's invalid [42] was kept, and nothing cited the combined answer
    if aio and OLD_CORE:
        pytest.skip("llama-index-core < 0.14 runs an async router's engines in another thread (see OLD_CORE)")
    router = _router(llm, _BOTH, synthesizer)
    with pytest.raises(ArgumentError, match=r"RouterQueryEngine combines .*single selector.*RouterRetriever"):
        asyncio.run(router.aquery(QUESTION)) if aio else router.query(QUESTION)
    one = _router(llm, '[{"choice": 2, "reason": "b"}]', synthesizer)  # a multi selector choosing one
    response = asyncio.run(one.aquery(QUESTION)) if aio else one.query(QUESTION)
    assert "cited_answer" in response.metadata  # the chosen engine's cited answer, passed through


def test_the_router_retriever_the_refusal_names_cites_several_retrievers_in_one_numbering(llm):
    from llama_index.core.retrievers import RouterRetriever
    from llama_index.core.selectors import LLMMultiSelector
    from llama_index.core.tools import RetrieverTool

    from tests.llamaindex.conftest import ReplayLLM

    scored = [*map(_scored, nodes())]
    tools = [
        RetrieverTool.from_defaults(ListRetriever(part), name=n, description=n)
        for part, n in ((scored[:3], "a"), (scored[3:], "b"))
    ]
    selector = LLMMultiSelector.from_defaults(llm=ReplayLLM(default=_BOTH))
    retriever = RouterRetriever(selector=selector, retriever_tools=tools, llm=llm)
    response = CiteQueryEngine.from_args(retriever, llm=llm).query(QUESTION)
    assert str(response) == DISPLAY  # both retrievers' nodes, one numbering, cited as one engine cites them


@pytest.mark.parametrize("aio", [False, True])
def test_cite_query_engines_under_a_sub_question_engine_are_refused(llm, aio, caplog):
    # each sub-answer numbered its nodes from [1] and the final answer merged them: [3][1] named nodes of
    # both engines, uncited. LlamaIndex's SubQuestionQueryEngine turns a sub-query's error into a logged
    # warning and drops the sub-answer, so the refusal shows there and nothing is merged
    from llama_index.core.query_engine import SubQuestionQueryEngine
    from llama_index.core.question_gen import LLMQuestionGenerator

    from tests.llamaindex.conftest import ReplayLLM

    scored = [*map(_scored, nodes())]
    tools = [
        QueryEngineTool.from_defaults(
            CiteQueryEngine.from_args(ListRetriever(part), llm=llm), name=n, description=n
        )
        for part, n in ((scored[:3], "a"), (scored[3:], "b"))
    ]
    subs = [{"sub_question": QUESTION, "tool_name": n} for n in "ab"]
    generator = LLMQuestionGenerator.from_defaults(llm=ReplayLLM(default=f"```json\n{json.dumps(subs)}\n```"))
    engine = SubQuestionQueryEngine.from_defaults(
        query_engine_tools=tools, question_gen=generator, llm=llm, use_async=aio
    )
    response = asyncio.run(engine.aquery(QUESTION)) if aio else engine.query(QUESTION)
    assert "[1]" not in str(response) and "[3]" not in str(response)
    if OLD_CORE:  # 0.13 logs the failed sub-question without the exception (it catches ValueError only,
        # which ArgumentError is): both sub-questions failed, so nothing was merged
        assert sum("Failed to run" in r.getMessage() for r in caplog.records) == 2
        return
    refused = [r for r in caplog.records if r.exc_info and isinstance(r.exc_info[1], ArgumentError)]
    assert len(refused) == 2 and "SubQuestionQueryEngine combines" in str(refused[0].exc_info[1])
    assert "response_synthesizer=CiteSynthesizer" in str(refused[0].exc_info[1])


def test_a_sub_question_engine_cites_its_sub_answers_with_cite_synthesizer(llm):
    # the remedy the refusal names: plain sub-engines, CiteSynthesizer as the final synthesizer (it cites
    # the sub-answers, one numbering), which the check lets answer
    from llama_index.core.query_engine import RetrieverQueryEngine, SubQuestionQueryEngine
    from llama_index.core.question_gen import LLMQuestionGenerator
    from llama_index.core.response_synthesizers import get_response_synthesizer

    from llamaindex_cite import CiteSynthesizer
    from tests.llamaindex.conftest import ReplayLLM

    scored = [*map(_scored, nodes())]
    plain = ReplayLLM(default="She counted seabirds and built a radio.")
    tools = [
        QueryEngineTool.from_defaults(
            RetrieverQueryEngine(
                ListRetriever(part), response_synthesizer=get_response_synthesizer(llm=plain)
            ),
            name=n,
            description=n,
        )
        for part, n in ((scored[:3], "a"), (scored[3:], "b"))
    ]
    subs = [{"sub_question": QUESTION, "tool_name": n} for n in "ab"]
    generator = LLMQuestionGenerator.from_defaults(llm=ReplayLLM(default=f"```json\n{json.dumps(subs)}\n```"))
    final = ReplayLLM(default="She counted seabirds [1] and built a radio [2].")
    engine = SubQuestionQueryEngine.from_defaults(
        query_engine_tools=tools,
        question_gen=generator,
        response_synthesizer=CiteSynthesizer(llm=final),
        llm=final,
    )
    response = engine.query(QUESTION)
    answer = response.metadata["cited_answer"]
    assert str(response) == "She counted seabirds [1] and built a radio [2]." and len(answer.references) == 2
