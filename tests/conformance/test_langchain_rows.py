"""LangChain's rows of the conformance matrix: chains (invoke, stream, ainvoke, astream, output="message"),
``add_citations``, and the cited retriever tool in a ``create_agent`` agent, with the real ``ChatOpenAI``
client against the scripted server of matrix.py."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_openai")

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, messages_to_dict
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from cite_core import ArgumentError, CitedAnswer, TruncatedOutputError
from langchain_cite import (
    AnswerResetText,
    CitationSession,
    add_citations,
    create_cited_rag_chain,
    create_cited_retriever_tool,
    tool_citation_instructions,
)

from .matrix import (
    DOCUMENTS,
    SCENARIOS,
    Reply,
    Row,
    ToolCall,
    calibration,
    chat_openai,
    check_scenario,
    judge_reply,
    openai_server,
    run_cell,
    seen,
)

ROOT = Path(__file__).resolve().parents[2]


def document(name: str) -> Document:
    doc = DOCUMENTS[name]
    return Document(page_content=doc["text"], metadata={"source": doc["id"], "title": doc["title"]})


def retriever(names: tuple[str, ...]) -> Any:
    return RunnableLambda(lambda question: [document(n) for n in names])


def as_answer(answer: Any) -> CitedAnswer:
    """A ``CitedRagAnswer`` as the core's ``CitedAnswer`` (the invariants read only the core's fields)."""
    return CitedAnswer.model_validate_json(answer.model_dump_json())


def shown_text(chunks: list[Any]) -> str:
    """What a chat UI shows of streamed message chunks: each message's text, less what its last chunk
    says was reasoning before a lone </think> (``response_metadata["answer_reset"]``)."""
    texts: dict[Any, str] = {}
    for chunk in chunks:
        texts[chunk.id] = texts.get(chunk.id, "") + chunk.text
        reset = chunk.response_metadata.get("answer_reset")
        if isinstance(reset, int):
            texts[chunk.id] = texts[chunk.id][reset:]
    return "".join(texts.values())


def shown_str(texts: list[str]) -> str:
    """What a chat UI shows of a text stream: the text after the last ``AnswerResetText`` (a lone
    </think> showed that what came before was reasoning)."""
    resets = [i for i, t in enumerate(texts) if isinstance(t, AnswerResetText)]
    return "".join(texts[resets[-1] + 1 :] if resets else texts)


# -- chains --------------------------------------------------------------------------------------

CHAIN_MODES = ("invoke", "stream", "ainvoke", "astream", "message", "add_citations")


def make_chain(mode: str, names: tuple[str, ...], llm: Any, output: str, **options: Any) -> Any:
    if mode == "add_citations":
        prompt = ChatPromptTemplate.from_messages(
            [("system", "Answer from the sources."), ("human", "{context}\n\n{question}")]
        )
        documents = retriever(names)
        chain = add_citations(prompt, llm, output=output, **options)
        return RunnableLambda(lambda q: {"question": q, "documents": documents.invoke(q)}) | chain
    return create_cited_rag_chain(retriever(names), llm, output=output, **options)


def run_chain(
    mode: str, name: str, question: Any, *, script: list[Reply] | None = None, **options: Any
) -> tuple[str | None, CitedAnswer]:
    """What a reader saw stream (None for invoke), and the final answer, for one chain call."""
    scenario = SCENARIOS[name]
    script = script or list(scenario.replies)
    with openai_server(script) as server:
        llm = chat_openai(server)
        answer_chain = make_chain(mode, scenario.documents, llm, "answer", **options)
        answer = as_answer(answer_chain.invoke(question))
    with openai_server(script) as server:
        llm = chat_openai(server)
        if mode == "invoke":
            return None, answer
        if mode == "ainvoke":
            again = asyncio.run(
                make_chain(mode, scenario.documents, llm, "answer", **options).ainvoke(question)
            )
            assert as_answer(again) == answer
            return None, answer
        if mode in ("stream", "add_citations"):
            chain = make_chain(mode, scenario.documents, llm, "text", **options)
            return shown_str(list(chain.stream(question))), answer
        if mode == "astream":
            chain = make_chain(mode, scenario.documents, llm, "text", **options)

            async def collect() -> str:
                return shown_str([t async for t in chain.astream(question)])

            return asyncio.run(collect()), answer
        assert mode == "message"
        chain = make_chain(mode, scenario.documents, llm, "message", **options)
        chunks = list(chain.stream(question))
        message = chain.invoke(question) if False else None
    with openai_server(script) as server:
        message = make_chain(mode, scenario.documents, chat_openai(server), "message", **options).invoke(
            question
        )
    streamed = shown_text(chunks)
    assert message.text == answer.text
    assert [r["number"] for r in message.response_metadata["references"]] == [
        r.number for r in answer.references
    ]
    assert "</think>" not in message.text and "</think>" not in streamed
    return streamed, answer


def single_turn(mode: str, name: str) -> Callable[[], None]:
    def cell() -> None:
        streamed, answer = run_chain(mode, name, SCENARIOS[name].question)
        check_scenario(name, streamed, answer, seen(SCENARIOS[name].documents))
        if name in ("think", "lone_think_close"):
            assert "Source [2]" in answer.reasoning and not answer.invalid_markers
        if name == "truncated":
            assert answer.truncated
            if mode in ("stream", "add_citations"):  # a dropped connection (streams only) too
                dropped = Reply(SCENARIOS[name].replies[0].content, finish_reason=None)
                with openai_server([dropped]) as server:
                    chain = make_chain(mode, SCENARIOS[name].documents, chat_openai(server), "answer")
                    *_, cut = list(chain.stream(SCENARIOS[name].question))
                assert cut.truncated and cut.text == answer.text

    return cell


def first_turn(mode: str) -> list[BaseMessage]:
    """The first turn of the history scenarios, as the chain returned it (``output="message"``)."""
    first = SCENARIOS["history"].extra["first"]
    with openai_server([Reply(first)]) as server:
        message = make_chain(mode, ("sun", "moon"), chat_openai(server), "message").invoke(
            {"question": "How does the Sun shine?", "chat_history": []} if mode != "add_citations" else "How?"
        )
    return [HumanMessage("How does the Sun shine?"), message]


def history_cell(mode: str) -> Callable[[], None]:
    def cell() -> None:
        history = first_turn(mode)
        question = {"question": SCENARIOS["history"].question, "chat_history": history}
        streamed, answer = run_chain(mode, "history", question)
        check_scenario("history", streamed, answer, seen(SCENARIOS["history"].documents))
        assert [r.number for r in answer.references] == [2, 1]  # the numbers the reader saw in turn 1

    return cell


def follow_up_cell(mode: str) -> Callable[[], None]:
    """ "What else does [2] say?": this call shows the Moon as source 1; the reader's [2] is the Moon."""

    def cell() -> None:
        history = first_turn(mode)
        question = {"question": SCENARIOS["follow_up_number"].question, "chat_history": history}
        reply = Reply("It says that the Moon reflects the light of the Sun back to the Earth [1].")
        with openai_server([reply]) as server:
            chain = create_cited_rag_chain(retriever(("moon", "sun")), chat_openai(server))
            answer = as_answer(chain.invoke(question))
            asked = server.requests[-1]["messages"][-1]["content"]
        assert "What else does [1] say?" in asked, asked  # the reader's [2] in this call's numbering
        assert [(r.number, r.source.title) for r in answer.references] == [(2, "The Moon")]
        check_invariants_seen = {1: DOCUMENTS["moon"]["text"], 2: DOCUMENTS["sun"]["text"]}
        check_scenario("follow_up_number", None, answer, check_invariants_seen)

    return cell


_RELOAD = """
import json, sys
from langchain_core.messages import messages_from_dict
from langchain_cite import create_cited_rag_chain
from tests.conformance.matrix import chat_openai, ScriptedServer
from tests.conformance.test_langchain_rows import retriever
base_url, saved = sys.argv[1], sys.argv[2]
history = messages_from_dict(json.loads(saved))
class Server: pass
server = Server(); server.base_url = base_url
chain = create_cited_rag_chain(retriever(("moon", "sun")), chat_openai(server))
answer = chain.invoke({"question": "And the Moon?", "chat_history": history})
print(answer.model_dump_json())
"""


def reload_cell(mode: str) -> Callable[[], None]:
    """The first turn saved as JSON, the second run in a new process (this call shows the Moon as 1)."""

    def cell() -> None:
        saved = json.dumps(messages_to_dict(first_turn(mode)))
        with openai_server([Reply("The Moon reflects the light of the Sun [1].")]) as server:
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            done = subprocess.run(
                [sys.executable, "-c", _RELOAD, server.base_url, saved],
                capture_output=True,
                text=True,
                cwd=ROOT,
                env=env,
                timeout=120,
                check=False,
            )
        assert done.returncode == 0, done.stderr[-2000:]
        answer = CitedAnswer.model_validate_json(done.stdout.strip().splitlines()[-1])
        assert answer.text == "The Moon reflects the light of the Sun [2]."  # the Moon was [2] in turn 1
        check_scenario("reload", None, answer, {1: DOCUMENTS["moon"]["text"], 2: DOCUMENTS["sun"]["text"]})

    return cell


class Summary(BaseModel):
    summary: str
    moon: str


def structured_cell(mode: str) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS["structured"]
        with openai_server(list(scenario.replies)) as server:
            chain = create_cited_rag_chain(retriever(scenario.documents), chat_openai(server), schema=Summary)
            if mode == "stream":
                *_, structure = list(chain.stream(scenario.question))
            else:
                structure = chain.invoke(scenario.question)
        check_scenario("structured", None, structure.as_answer(), seen(scenario.documents))
        cut = Reply(scenario.replies[0].content[:30], finish_reason="length")
        with openai_server([cut]) as server:
            chain = create_cited_rag_chain(retriever(scenario.documents), chat_openai(server), schema=Summary)
            with pytest.raises(TruncatedOutputError, match="cut off"):
                chain.invoke(scenario.question)
            with pytest.raises(TruncatedOutputError, match="cut off"):
                list(chain.stream(scenario.question))
        for option in ({"verify": True}, {"calibration": calibration()}, {"judge": chat_openai(server)}):
            # cite_core.refuse_options' message: the option, then where it goes (the text chain)
            name = next(iter(option))
            refused = rf"create_cited_rag_chain\(schema=\.\.\.\) does not apply {name}= .*without schema="
            with pytest.raises(ArgumentError, match=refused):
                create_cited_rag_chain(
                    retriever(scenario.documents), chat_openai(server), schema=Summary, **option
                )

    return cell


def verify_cell(mode: str) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS["verify_calibration"]
        calibrated = calibration()
        with openai_server(list(scenario.replies)) as server, openai_server([Reply(judge_reply(2))]) as judge:
            chain = create_cited_rag_chain(
                retriever(scenario.documents),
                chat_openai(server),
                calibration=calibrated,
                verify=True,
                judge=chat_openai(judge),
            )
            answer = chain.invoke(scenario.question)
        assert answer.unsupported_threshold == calibrated.threshold
        assert [v.level for v in answer.verdicts if v is not None] == ["supported", "supported"]
        check_scenario("verify_calibration", None, as_answer(answer), seen(scenario.documents))

    return cell


_NO_TOOLS = "a chain calls no tools (the agent row has this scenario)"


def chain_row(mode: str) -> Row:
    entry = (
        "langchain_cite.add_citations"
        if mode == "add_citations"
        else f"langchain_cite.create_cited_rag_chain.{mode}"
    )
    covers = (
        ("add_citations",)
        if mode == "add_citations"
        else ("create_cited_rag_chain", "CitationSources", "CitationOutputParser")
    )
    cells: dict[str, Callable[[], None] | str] = {n: single_turn(mode, n) for n in SCENARIOS}
    cells["parallel_tools"] = _NO_TOOLS
    if mode == "add_citations":
        for name in ("history", "reload", "follow_up_number"):
            cells[name] = "add_citations' prompt is yours: a conversation is create_cited_rag_chain's rows"
        cells["structured"] = "schema= is create_cited_rag_chain's (its invoke and stream rows)"
        cells["verify_calibration"] = "verify= is create_cited_rag_chain's (its invoke row)"
    else:
        cells["history"] = history_cell(mode)
        cells["reload"] = (
            reload_cell(mode) if mode == "invoke" else "the reload row runs once (invoke): a new process"
        )
        cells["follow_up_number"] = (
            follow_up_cell(mode)
            if mode == "invoke"
            else "the question is rewritten before the model runs: the invoke row"
        )
        cells["structured"] = (
            structured_cell(mode)
            if mode in ("invoke", "stream")
            else "schema= runs the same parser: the invoke and stream rows"
        )
        cells["verify_calibration"] = (
            verify_cell(mode) if mode == "invoke" else "verify runs after the answer: the invoke row"
        )
    return Row(entry, covers, cells)


# -- the retriever tool in a create_agent agent --------------------------------------------------


def tools_for(name: str, session: CitationSession, parallel: bool) -> list[Any]:
    """One search tool over the scenario's documents, or (parallel) two whose calls finish out of order:
    the light search waits until the sun search has numbered its document."""
    sun_done = threading.Event()

    def search(query: str) -> list[Document]:
        if not parallel:
            return [document(n) for n in SCENARIOS[name].documents]
        if query == "light":
            assert sun_done.wait(10), "the sun search never finished"
        found = [document(query)]
        if query == "sun":
            sun_done.set()
        return found

    queries = ("light", "sun") if parallel else ("all",)
    return [
        create_cited_retriever_tool(
            RunnableLambda(search),
            name=f"search_{q}" if parallel else "search",
            description="Search.",
            session=session,
        )
        for q in queries
    ]


def agent_script(name: str) -> list[Reply]:
    scenario = SCENARIOS[name]
    if name == "parallel_tools":
        return list(scenario.replies)
    return [Reply(tool_calls=(ToolCall("search", {"query": "all"}),)), *scenario.replies]


def agent_turn(
    name: str, session: CitationSession, messages: list[Any], script: list[Reply] | None = None
) -> tuple[str, list[BaseMessage]]:
    """One turn of a ``create_agent`` agent with ``session.cited_model``: what ``stream_mode="messages"``
    showed of the answer (AI text, not tool results), and the messages of the state after it."""
    from langchain.agents import create_agent

    tools = tools_for(name, session, name == "parallel_tools")
    with openai_server(script or agent_script(name)) as server:
        agent = create_agent(
            session.cited_model(chat_openai(server)), tools, system_prompt=tool_citation_instructions()
        )
        chunks, state = [], None
        for mode, part in agent.stream({"messages": messages}, stream_mode=["messages", "values"]):
            if mode == "messages" and isinstance(part[0], AIMessage):
                chunks.append(part[0])
            elif mode == "values":
                state = part
    assert state is not None
    return shown_text(chunks), state["messages"]


def agent_cell(name: str) -> Callable[[], None]:
    def cell() -> None:
        session = CitationSession()
        shown, messages = agent_turn(name, session, [("user", SCENARIOS[name].question)])
        answer = session.parse({"messages": messages})
        numbers = {s.number: s.text for s in session.sources}
        check_scenario(name, shown, as_answer(answer), numbers)
        assert messages[-1].text == answer.text  # the stored message is the answer shown
        if name == "parallel_tools":  # numbered in the order the calls finished, not the call order
            assert numbers == seen(SCENARIOS[name].documents)
            restored = CitationSession.from_messages(messages)
            again = restored.parse({"messages": messages})
            assert [(r.number, r.source.title) for r in again.references] == [
                (r.number, r.source.title) for r in answer.references
            ]

    return cell


_AGENT_RELOAD = """
import json, sys
from langchain_core.messages import messages_from_dict
from langchain_cite import CitationSession
messages = messages_from_dict(json.loads(sys.argv[1]))
session = CitationSession.from_messages(messages)
print(session.parse({"messages": messages}).model_dump_json())
"""


def agent_history_cell(name: str) -> Callable[[], None]:
    """A second turn (history, follow-up) or a reload in a new process of the first turn's messages."""

    def cell() -> None:
        session = CitationSession()
        first = SCENARIOS["history"].extra["first"]
        script = [Reply(tool_calls=(ToolCall("search", {"query": "all"}),)), Reply(first)]
        _, messages = agent_turn("plain", session, [("user", "How does the Sun shine?")], script)
        if name == "reload":
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            saved = json.dumps(messages_to_dict(messages))
            done = subprocess.run(
                [sys.executable, "-c", _AGENT_RELOAD, saved],
                capture_output=True,
                text=True,
                cwd=ROOT,
                env=env,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stderr[-2000:]
            answer = CitedAnswer.model_validate_json(done.stdout.strip().splitlines()[-1])
            assert answer == as_answer(session.parse({"messages": messages}))
            check_scenario("plain", None, answer, seen(("sun", "moon")))
            return
        scenario = SCENARIOS[name]
        shown, messages = agent_turn(name, session, [*messages, ("user", scenario.question)])
        answer = session.parse({"messages": messages})
        check_scenario(name, shown, as_answer(answer), seen(("sun", "moon")))
        assert len(session.sources) == 2  # the second search found the same documents: same numbers

    return cell


def agent_structured_cell() -> None:
    """``create_agent(response_format=...)``: the cited model passes the structured reply through unchanged
    (ProviderStrategy: the object's JSON; ToolStrategy: a tool call), ``session.parse`` of the state is a
    PromptError naming ``session.cite_structured``, which cites the object in the session's numbers."""
    from langchain.agents import create_agent
    from langchain.agents.structured_output import ProviderStrategy, ToolStrategy

    from cite_core import PromptError

    scenario = SCENARIOS["structured"]
    reply = scenario.replies[0]
    found = [Reply(tool_calls=(ToolCall("search", {"query": "all"}),))]
    for strategy, answer in (
        (ProviderStrategy(Summary), reply),
        (ToolStrategy(Summary), Reply(tool_calls=(ToolCall("Summary", json.loads(reply.content)),))),
    ):
        session = CitationSession()
        with openai_server([*found, answer]) as server:
            agent = create_agent(
                session.cited_model(chat_openai(server)),
                tools_for("structured", session, False),
                system_prompt=tool_citation_instructions(),
                response_format=strategy,
            )
            state = agent.invoke({"messages": [("user", scenario.question)]})
        assert state["structured_response"] == Summary(**json.loads(reply.content))
        if isinstance(strategy, ProviderStrategy):
            assert state["messages"][-1].content == reply.content  # the JSON as the model wrote it
        with pytest.raises(PromptError, match=r"session\.cite_structured"):
            session.parse(state)
        structure = session.cite_structured(state["structured_response"])
        assert isinstance(structure.value, Summary)
        check_scenario("structured", None, structure.as_answer(), {s.number: s.text for s in session.sources})


def agent_verify_cell() -> None:
    """``session.parse(state, calibration=...)`` honours it; ``verify`` checks the agent's answer."""
    from cite_core import verify

    session = CitationSession()
    _, messages = agent_turn(
        "verify_calibration", session, [("user", SCENARIOS["verify_calibration"].question)]
    )
    calibrated = calibration()
    answer = session.parse({"messages": messages}, calibration=calibrated)
    assert answer.unsupported_threshold == calibrated.threshold
    checked = verify(as_answer(answer), lambda prompt: judge_reply(2))
    assert [v.level for v in checked.verdicts if v is not None] == ["supported", "supported"]
    check_scenario("verify_calibration", None, checked, seen(SCENARIOS["verify_calibration"].documents))


ROWS = [
    *[chain_row(mode) for mode in CHAIN_MODES],
    Row(
        "langchain_cite.create_cited_retriever_tool.agent",
        ("create_cited_retriever_tool", "CitationSession", "tool_citation_instructions"),
        {
            **{n: agent_cell(n) for n in SCENARIOS},
            "history": agent_history_cell("history"),
            "follow_up_number": agent_history_cell("follow_up_number"),
            "reload": agent_history_cell("reload"),
            "structured": agent_structured_cell,
            "verify_calibration": agent_verify_cell,
        },
    ),
]

NOT_ENTRY_POINTS = {
    f"langchain_cite.{name}": "a result or event type the entry points return (checked in every cell)"
    for name in (
        "CitationsDelta",
        "CitedAnswer",
        "CitedRagAnswer",
        "CitedStructure",
        "DocumentReference",
        "Source",
        "StreamItem",
        "TextDelta",
    )
} | {
    "langchain_cite.AnswerResetText": "what a text stream yields at a lone </think> (stream cells read it)",
    "langchain_cite.StructuredCitationParser": "schema= of create_cited_rag_chain runs it (structured cells)",
    "langchain_cite.document_to_item": "a converter every row runs (Document -> source item)",
    "langchain_cite.documents_to_sources": "a converter every row runs (Documents -> numbered sources)",
    "langchain_cite.is_chat_anthropic": "a predicate: chooses native citations (Claude), no entry point",
    "langchain_cite.to_ai_message": 'what output="message" returns (the message rows)',
}


@pytest.mark.parametrize(("row", "scenario"), [p for row in ROWS for p in row.params()])
def test_cell(row: Row, scenario: str) -> None:
    run_cell(row, scenario)
