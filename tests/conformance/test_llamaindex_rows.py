"""The LlamaIndex rows of the conformance matrix: every entry point of ``llamaindex_cite`` answers the
scenario table with the real ``OpenAILike`` client talking to the scripted server on 127.0.0.1, and every
cell asserts ``check_scenario`` (the shared invariants, then what the scenario expects).

The scripted model writes what a model writes after reading its prompt: the scenario's reply, with each
number the scenario meant (its documents numbered 1..N in order) written as the number the prompt showed
that document under (``_as_seen``), so a cell fails when an entry point shows a source under one number
and cites it under another, never because the script guessed the order of parallel tool calls.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.llms.openai_like")

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode
from llama_index.llms.openai_like import OpenAILike
from pydantic import BaseModel

from cite_core import ArgumentError, CitedAnswer, parse_answer
from llamaindex_cite import (
    CitationSession,
    CiteChatEngine,
    CitePostprocessor,
    CiteQueryEngine,
    CiteSynthesizer,
    cited_query_engine_tool,
)

from .matrix import (
    DOCUMENTS,
    SCENARIOS,
    Reply,
    Row,
    ScriptedServer,
    ToolCall,
    calibration,
    check_scenario,
    judge_reply,
    openai_server,
    run_cell,
    seen,
)

# -- the scripted model, the client, the retrievers ---------------------------------------------------

_SHOWN = re.compile(r'<source number="(\d+)" title="([^"]*)"')
_NUMBER = re.compile(r"(?<=[\[【,\s])(\d+)(?=\s*[\]】,])")


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages", []))


def _as_seen(
    text: str, documents: Sequence[str], body: dict[str, Any], shown: dict[str, int] | None = None
) -> str:
    """``text`` written by a model that read ``body``: the scenario's number k (its k-th document) as the
    number the prompt last showed that document under (or ``shown`` gives it: title -> number); numbers
    the prompt never showed stay as they are."""
    if shown is None:
        shown = {title: int(n) for n, title in _SHOWN.findall(_prompt(body))}
    numbers = {
        str(k): str(shown[DOCUMENTS[name]["title"]])
        for k, name in enumerate(documents, 1)
        if DOCUMENTS[name]["title"] in shown
    }
    return _NUMBER.sub(lambda m: numbers.get(m.group(1), m.group(1)), text)


def _as_schema(call: ToolCall, body: dict[str, Any]) -> ToolCall:
    """``call`` with its one argument under the name the tool's schema gives it (``input`` for a
    LlamaIndex tool, where the scenario says ``query``)."""
    for tool in body.get("tools", []):
        if tool["function"]["name"] == call.name:
            names = list(tool["function"]["parameters"].get("properties", {}))
            if len(names) == 1 and len(call.args) == 1:
                return ToolCall(call.name, {names[0]: next(iter(call.args.values()))}, call.id)
    return call


def model(
    documents: Sequence[str], replies: Sequence[Reply], shown: Callable[[], dict[str, int]] | None = None
) -> Callable[[dict[str, Any]], Reply]:
    """A script answering request i with ``replies[i]`` (the last for any later one), as it reads it
    (``shown``: the numbers it read, title -> number, when its prompt shows no source blocks)."""
    served = [0]

    def answer(body: dict[str, Any]) -> Reply:
        reply = replies[min(served[0], len(replies) - 1)]
        served[0] += 1
        if reply.tool_calls:
            return Reply(tool_calls=tuple(_as_schema(call, body) for call in reply.tool_calls))
        if not reply.content or ("[" not in reply.content and "【" not in reply.content):
            return reply
        return Reply(
            _as_seen(reply.content, documents, body, shown() if shown is not None else None),
            reply.reasoning,
            reply.tool_calls,
            reply.finish_reason,
            reply.chunk,
        )

    return answer


def llm(server: ScriptedServer, **options: Any) -> OpenAILike:
    """LlamaIndex's real OpenAI-compatible client, pointed at the scripted server."""
    settings: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "api_base": server.base_url,
        "api_key": "test",
        "is_chat_model": True,
        "is_function_calling_model": True,
        "context_window": 16000,
        "max_retries": 0,
    }
    return OpenAILike(**{**settings, **options})


def node(name: str) -> NodeWithScore:
    """A chunk of document ``name`` (its ``ref_doc_id`` the document's id, its title in metadata)."""
    doc = DOCUMENTS[name]
    inner = TextNode(text=doc["text"], id_=f"{name}-0", metadata={"title": doc["title"]})
    inner.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=doc["id"])
    return NodeWithScore(node=inner, score=1.0)


class Fixed(BaseRetriever):
    """Retrieves the scenario's documents, in order, for any query."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__()
        self.names = list(names)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [node(n) for n in self.names]


def cited(response: Any) -> CitedAnswer:
    answer = response.metadata["cited_answer"]
    assert isinstance(answer, CitedAnswer)
    return answer


def _truncation_supported() -> bool:
    return "truncated" in inspect.signature(parse_answer).parameters


def _check(name: str, streamed: str | None, answer: CitedAnswer, seen_numbers: dict[int, str]) -> None:
    if SCENARIOS[name].notes == ("truncated",) and not _truncation_supported():
        pytest.skip("cut-off answers (parse_answer(truncated=...)) are not in this core yet")
    if name == "lone_think_close" and streamed is not None:
        # a token stream cannot take text back: before the lone </think> arrived, the reasoning had
        # streamed (docs/llamaindex.md, Reasoning models); the tokens end with the answer
        assert streamed.endswith(answer.text) and "[9]" not in answer.text
        streamed = None
    check_scenario(name, streamed, answer, seen_numbers)


# -- one question: the query engine, the synthesizer, the postprocessor ------------------------------

Ask = Callable[[OpenAILike, Sequence[str], str], tuple[str | None, CitedAnswer]]


def _tokens(response: Any) -> str:
    return "".join(response.response_gen)


async def _atokens(response: Any) -> str:
    return "".join([t async for t in response.async_response_gen()])


def engine_query(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    response = CiteQueryEngine(retriever=Fixed(documents), llm=client).query(question)
    return None, cited(response)


def engine_aquery(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    response = asyncio.run(CiteQueryEngine(retriever=Fixed(documents), llm=client).aquery(question))
    return None, cited(response)


def engine_stream(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    response = CiteQueryEngine(retriever=Fixed(documents), llm=client, streaming=True).query(question)
    text = _tokens(response)
    return text, cited(response)


def engine_astream(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    async def run() -> tuple[str, Any]:
        response = await CiteQueryEngine(retriever=Fixed(documents), llm=client, streaming=True).aquery(
            question
        )
        return await _atokens(response), response

    text, response = asyncio.run(run())
    return text, cited(response)


def _index_engine(client: OpenAILike, documents: Sequence[str], **options: Any) -> Any:
    from llama_index.core.query_engine import RetrieverQueryEngine

    return RetrieverQueryEngine.from_args(Fixed(documents), llm=client, **options)


def synthesizer_query(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    response = _index_engine(client, documents, response_synthesizer=CiteSynthesizer(llm=client)).query(
        question
    )
    return None, cited(response)


def synthesizer_stream(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    synthesizer = CiteSynthesizer(llm=client, streaming=True)
    response = _index_engine(client, documents, response_synthesizer=synthesizer).query(question)
    return _tokens(response), cited(response)


def postprocessor_query(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    cite = CitePostprocessor()
    response = cite.cite(_index_engine(client, documents, node_postprocessors=[cite]).query(question))
    return None, cited(response)


def postprocessor_stream(
    client: OpenAILike, documents: Sequence[str], question: str
) -> tuple[str | None, CitedAnswer]:
    cite = CitePostprocessor()
    engine = _index_engine(client, documents, node_postprocessors=[cite], streaming=True)
    response = cite.cite(engine.query(question))
    return _tokens(response), cited(response)


def answer_cell(name: str, ask: Ask) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS[name]
        with openai_server(model(scenario.documents, scenario.replies)) as server:
            streamed, answer = ask(llm(server), scenario.documents, scenario.question)
        _check(name, streamed, answer, seen(scenario.documents))
        if scenario.replies[-1].reasoning or "think>" in scenario.replies[-1].content:
            assert "[9]" not in answer.text and not answer.invalid_markers

    return cell


class Summary(BaseModel):
    summary: str
    moon: str


def structured_cell() -> None:
    scenario = SCENARIOS["structured"]
    with openai_server(model(scenario.documents, scenario.replies)) as server:
        client = llm(server, is_function_calling_model=False)  # the JSON text, read by the output parser
        engine = CiteQueryEngine(retriever=Fixed(scenario.documents), llm=client, output_cls=Summary)
        response = engine.query(scenario.question)
    structure = response.metadata["cited_structure"]
    check_scenario("structured", None, structure.as_answer(), seen(scenario.documents))
    with pytest.raises(ArgumentError):  # a structured answer is one call: it does not stream
        CiteQueryEngine(
            retriever=Fixed(scenario.documents), llm=OpenAILike(model="m"), output_cls=Summary, streaming=True
        ).query(scenario.question)


def verify_cell(streaming: bool) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS["verify_calibration"]
        flag = calibration()
        replies = [*scenario.replies, Reply(judge_reply(2))]
        with openai_server(model(scenario.documents, replies)) as server:
            client = llm(server)
            engine = CiteQueryEngine(
                retriever=Fixed(scenario.documents),
                llm=client,
                calibration=flag,
                verify=True,
                streaming=streaming,
            )
            response = engine.query(scenario.question)
            streamed = _tokens(response) if streaming else None
            answer = cited(response)
        check_scenario("verify_calibration", streamed, answer, seen(scenario.documents))
        assert answer.unsupported_threshold == flag.threshold
        assert [v.level for v in answer.verdicts if v is not None] == ["supported", "supported"]
        with pytest.raises(ArgumentError, match="verify=True"):  # a judge without verify is rejected
            CiteQueryEngine(retriever=Fixed(scenario.documents), llm=client, judge=client).query("Why?")

    return cell


def postprocessor_options_cell() -> None:
    """``CitePostprocessor`` parses after the engine: verify and calibration are not its options."""
    for option in ({"calibration": calibration()}, {"verify": True}):
        try:
            CitePostprocessor(**option)
        except (ArgumentError, TypeError, ValueError):
            continue
        pytest.skip("CitePostprocessor's option checks are not in this branch yet (issue 31)")
    answer_cell("verify_calibration", postprocessor_query)()


_ONE_QUESTION = "one question, no conversation: CiteChatEngine's rows hold history, reloads and follow-ups"
_NO_TOOLS = "no tools: the parallel tool calls are cited_query_engine_tool's row"
_STRUCTURED_ENGINE = (
    "output_cls is CiteQueryEngine.query's cell (one structured call through the same synthesizer)"
)


def question_row(entry: str, covers: tuple[str, ...], ask: Ask, **cells: Callable[[], None] | str) -> Row:
    return Row(
        entry,
        covers,
        {
            **{n: answer_cell(n, ask) for n in SCENARIOS},
            "history": _ONE_QUESTION,
            "reload": _ONE_QUESTION,
            "follow_up_number": _ONE_QUESTION,
            "parallel_tools": _NO_TOOLS,
            "structured": _STRUCTURED_ENGINE,
            **cells,
        },
    )


# -- conversations: CiteChatEngine ----------------------------------------------------------------

_FIRST = SCENARIOS["history"].extra["first"]


def _turn(chat: CiteChatEngine, question: str, how: str) -> tuple[str | None, Any]:
    if how == "chat":
        return None, chat.chat(question)
    if how == "achat":
        return None, asyncio.run(chat.achat(question))
    if how == "stream_chat":
        reply = chat.stream_chat(question)
        return "".join(reply.response_gen), reply

    async def run() -> tuple[str, Any]:
        reply = await chat.astream_chat(question)
        return "".join([t async for t in reply.async_response_gen()]), reply

    return asyncio.run(run())


def _chat_answer(reply: Any) -> CitedAnswer:
    return cited(reply)


class Named(BaseRetriever):
    """The first turn finds the Sun and the Moon; later ones only the Sun, unless the query is the
    Moon's title: a follow-up's [2] must still reach the Moon."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        self.calls += 1
        if self.calls == 1:
            return [node("sun"), node("moon")]
        return [node("moon")] if query_bundle.query_str == DOCUMENTS["moon"]["title"] else [node("sun")]


def chat_cell(name: str, how: str) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS[name]
        turns = name in ("history", "reload", "follow_up_number")
        replies = (
            [Reply(_FIRST), Reply("What else does the source say?"), *scenario.replies]
            if turns
            else list(scenario.replies)
        )
        retriever: BaseRetriever = Named() if name == "follow_up_number" else Fixed(scenario.documents)
        with openai_server(model(scenario.documents, replies)) as server:
            client = llm(server)
            chat = CiteChatEngine.from_defaults(retriever, llm=client)
            if turns:
                first = chat.chat("How does the Sun shine, and why does the Moon?")
                assert str(first.response) == _FIRST
            if name == "reload":
                saved = json.dumps([m.model_dump(mode="json") for m in chat.chat_history])
                memory = ChatMemoryBuffer.from_defaults(
                    chat_history=[ChatMessage.model_validate(m) for m in json.loads(saved)]
                )
                chat = CiteChatEngine.from_defaults(Fixed(scenario.documents), llm=client, memory=memory)
            streamed, reply = _turn(chat, scenario.question, how)
            answer = _chat_answer(reply)
            shown = _SHOWN.findall(_prompt(server.requests[-1]))
        by_number = {int(n): DOCUMENTS[_name_of(title)]["text"] for n, title in shown}
        _check(name, streamed, answer, by_number)
        assert str(reply) == answer.text  # what the history and the reader keep
        if turns:  # the reader's numbers: the Sun stays [1], the Moon [2]
            numbers = {ref.source.title: ref.number for ref in answer.references}
            assert numbers.get("The Moon", 2) == 2 and numbers.get("The Sun", 1) == 1, numbers
            assert chat.chat_history[-1].content == answer.text

    return cell


def _name_of(title: str) -> str:
    return next(n for n, doc in DOCUMENTS.items() if doc["title"] == title)


_CHAT_STRUCTURED = "a chat engine answers in text; structured output is CiteQueryEngine's (output_cls)"


def chat_options_cell() -> None:
    """verify, calibration and judge are CiteQueryEngine's: CiteChatEngine rejects them, naming where."""
    for option in ("verify", "calibration", "judge"):
        with pytest.raises(ArgumentError, match=f"does not apply {option}= .*CiteQueryEngine's"):
            CiteChatEngine.from_defaults(Fixed(("sun",)), llm=OpenAILike(model="m"), **{option: True})


_CHAT_TOOLS = "a chat engine calls no tools: the parallel tool calls are cited_query_engine_tool's row"


def chat_row(how: str) -> Row:
    return Row(
        f"llamaindex_cite.CiteChatEngine.{how}",
        ("CiteChatEngine",),
        {
            **{n: chat_cell(n, how) for n in SCENARIOS},
            "parallel_tools": _CHAT_TOOLS,
            "structured": _CHAT_STRUCTURED,
            "verify_calibration": chat_options_cell,
        },
    )


# -- agents: cited_query_engine_tool in a FunctionAgent, CitationSession.parse ---------------------


def _tools(session: CitationSession, names: set[str], documents: Sequence[str]) -> list[Any]:
    """One cited_query_engine_tool per name, all numbering in ``session`` (``search_x`` finds document x)."""
    return [
        cited_query_engine_tool(
            Fixed([tool.removeprefix("search_")] if tool != "search" else documents),
            name=tool,
            description="Searches the archive.",
            session=session,
        )
        for tool in sorted(names)
    ]


_TURNS = ("history", "reload", "follow_up_number")


def _trusted(names: set[str]) -> dict[str, Any]:
    """``from_messages``' ``tool_names=`` (the tools whose results it restores), where the core has it."""
    return (
        {"tool_names": sorted(names)}
        if "tool_names" in inspect.signature(CitationSession.from_messages).parameters
        else {}
    )


def agent_cell(name: str, *, stream: bool) -> Callable[[], None]:
    workflow = pytest.importorskip("llama_index.core.agent.workflow")

    async def ask(agent: Any, session: CitationSession, question: str, **run: Any) -> tuple[str, Any, Any]:
        handler = agent.run(user_msg=question, **run)
        events = session.stream_events(handler) if stream else handler.stream_events()
        deltas = [e.delta async for e in events if isinstance(e, workflow.AgentStream)]
        return "".join(deltas), await handler, handler.ctx

    def cell() -> None:
        scenario = SCENARIOS[name]
        calls = [r for r in scenario.replies if r.tool_calls]
        if not calls:  # one search for the scenario's documents, then the scenario's answer
            calls = [Reply(tool_calls=(ToolCall("search", {"input": scenario.question}),))]
        final = [r for r in scenario.replies if not r.tool_calls]
        first = [Reply(_FIRST)] if name in _TURNS else []  # a first run: a search, then the first answer
        session = CitationSession()
        names = {call.name for r in calls for call in r.tool_calls}
        with openai_server(model(scenario.documents, [*calls, *first, *final])) as server:
            agent = workflow.FunctionAgent(tools=_tools(session, names, scenario.documents), llm=llm(server))
            text, result, ctx = asyncio.run(
                ask(agent, session, "How does the Sun shine, and why does the Moon?")
            )
            if name == "reload":  # the memory saved as JSON, the session rebuilt from it, a new agent
                memory = asyncio.run(ctx.store.get("memory"))
                saved = json.dumps([m.model_dump(mode="json") for m in asyncio.run(memory.aget_all())])
                history = [ChatMessage.model_validate(m) for m in json.loads(saved)]
                session = CitationSession.from_messages(history, **_trusted(names))
                agent = workflow.FunctionAgent(
                    tools=_tools(session, names, scenario.documents), llm=llm(server)
                )
                text, result, _ = asyncio.run(ask(agent, session, scenario.question, chat_history=history))
            elif name in _TURNS:  # the next run of the same conversation (its context: the memory)
                text, result, _ = asyncio.run(ask(agent, session, scenario.question, ctx=ctx))
        answer = cited(session.parse(str(result)))
        _check(name, text if stream else None, answer, {s.number: s.text for s in session.sources})
        if name in _TURNS:  # the numbers the reader saw on the first run
            numbers = {ref.source.title: ref.number for ref in answer.references}
            assert numbers.get("The Moon", 2) == 2 and numbers.get("The Sun", 1) == 1, numbers

    return cell


_AGENT_STRUCTURED = "an agent's final answer is text; structured output is CiteQueryEngine's (output_cls)"
_AGENT_VERIFY = "session.parse takes parse_answer's options: verify and calibration are the core's cells"
_AGENT_TRUNCATED = "llama-index's FunctionAgent keeps no finish_reason for session.parse to read"


def agent_row(entry: str, covers: tuple[str, ...], *, stream: bool) -> Row:
    return Row(
        entry,
        covers,
        {
            **{n: agent_cell(n, stream=stream) for n in SCENARIOS},
            "structured": _AGENT_STRUCTURED,
            "verify_calibration": _AGENT_VERIFY,
            "truncated": _AGENT_TRUNCATED,
        },
    )


def _sub_answer(body: dict[str, Any]) -> Reply:
    """An engine's answer: the first sentence of every source its prompt shows, cited."""
    found = _SHOWN.findall(_prompt(body))
    texts = [f"{DOCUMENTS[_name_of(title)]['text'].split('. ')[0]} [{n}]." for n, title in found]
    return Reply(" ".join(texts))


def engine_tool_cell(name: str) -> Callable[[], None]:
    workflow = pytest.importorskip("llama_index.core.agent.workflow")
    from llama_index.core.tools import QueryEngineTool

    def cell() -> None:
        scenario = SCENARIOS[name]
        calls = [r for r in scenario.replies if r.tool_calls]
        if not calls:
            calls = [Reply(tool_calls=(ToolCall("search", {"input": scenario.question}),))]
        final = [r for r in scenario.replies if not r.tool_calls]
        session = CitationSession()
        names = sorted({call.name for r in calls for call in r.tool_calls})

        def numbers() -> dict[str, int]:  # the numbers the tools' answers showed the agent
            return {s.title or "": s.number for s in session.sources}

        with (
            openai_server(_sub_answer) as engines,
            openai_server(model(scenario.documents, [*calls, *final], numbers)) as server,
        ):
            tools = [
                QueryEngineTool.from_defaults(
                    CiteQueryEngine(
                        retriever=Fixed(
                            [tool.removeprefix("search_")] if tool != "search" else scenario.documents
                        ),
                        llm=llm(engines),
                        session=session,
                    ),
                    name=tool,
                    description="Searches the archive and answers.",
                )
                for tool in names
            ]
            agent = workflow.FunctionAgent(tools=tools, llm=llm(server))

            async def run() -> tuple[str, Any]:
                handler = agent.run(user_msg=scenario.question)
                deltas = [
                    e.delta
                    async for e in session.stream_events(handler)
                    if isinstance(e, workflow.AgentStream)
                ]
                return "".join(deltas), await handler

            text, result = asyncio.run(run())
        answer = cited(session.parse(str(result)))
        _check(name, text, answer, {s.number: s.text for s in session.sources})

    return cell


def engine_tool_structured_cell() -> None:
    engine = CiteQueryEngine(
        retriever=Fixed(("sun",)), llm=OpenAILike(model="m"), output_cls=Summary, session=CitationSession()
    )
    with pytest.raises(ArgumentError, match="session= keeps one numbering"):
        engine.query("Why?")


_ENGINE_TOOL_TURNS = "an agent's conversation over one session is cited_query_engine_tool's row"

NOT_ENTRY_POINTS = {
    "llamaindex_cite.CITE_AS_KEY": "a node metadata key (CitePostprocessor's rows read it)",
    "llamaindex_cite.REFERENCE_NUMBER_KEY": "a node metadata key on cited nodes",
    "llamaindex_cite.SENTENCES_KEY": "a node metadata key (CitePostprocessor's rows read it)",
    "llamaindex_cite.SOURCE_NUMBER_KEY": "a node metadata key (CitePostprocessor's rows read it)",
}

ROWS = [
    question_row(
        "llamaindex_cite.CiteQueryEngine.query",
        ("CiteQueryEngine",),
        engine_query,
        structured=structured_cell,
        verify_calibration=verify_cell(streaming=False),
    ),
    question_row("llamaindex_cite.CiteQueryEngine.aquery", ("CiteQueryEngine",), engine_aquery),
    question_row(
        "llamaindex_cite.CiteQueryEngine.query(streaming=True)",
        ("CiteQueryEngine", "CitedStreamingResponse"),
        engine_stream,
        verify_calibration=verify_cell(streaming=True),
    ),
    question_row(
        "llamaindex_cite.CiteQueryEngine.aquery(streaming=True)",
        ("CiteQueryEngine", "AsyncCitedStreamingResponse"),
        engine_astream,
    ),
    question_row("llamaindex_cite.CiteSynthesizer", ("CiteSynthesizer",), synthesizer_query),
    question_row("llamaindex_cite.CiteSynthesizer(streaming=True)", ("CiteSynthesizer",), synthesizer_stream),
    question_row(
        "llamaindex_cite.CitePostprocessor",
        ("CitePostprocessor",),
        postprocessor_query,
        verify_calibration=postprocessor_options_cell,
    ),
    question_row(
        "llamaindex_cite.CitePostprocessor(streaming)", ("CitePostprocessor",), postprocessor_stream
    ),
    *[chat_row(how) for how in ("chat", "stream_chat", "achat", "astream_chat")],
    agent_row(
        "llamaindex_cite.cited_query_engine_tool+FunctionAgent(stream_events)",
        ("cited_query_engine_tool", "CitationSession"),
        stream=True,
    ),
    agent_row("llamaindex_cite.CitationSession.parse", ("CitationSession",), stream=False),
    Row(
        "llamaindex_cite.CiteQueryEngine(session=)+QueryEngineTool+FunctionAgent",
        ("CiteQueryEngine", "CitationSession"),
        {
            **{n: engine_tool_cell(n) for n in SCENARIOS},
            "history": _ENGINE_TOOL_TURNS,
            "reload": _ENGINE_TOOL_TURNS,
            "follow_up_number": _ENGINE_TOOL_TURNS,
            "structured": engine_tool_structured_cell,
            "verify_calibration": "verify and calibration: CiteQueryEngine.query's cells (the same engine)",
            "truncated": _AGENT_TRUNCATED,
        },
    ),
]


@pytest.mark.parametrize(("row", "scenario"), [p for row in ROWS for p in row.params()])
def test_cell(row: Row, scenario: str) -> None:
    run_cell(row, scenario)
