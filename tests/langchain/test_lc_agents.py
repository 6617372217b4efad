"""Issue 11 item 5: a retriever tool whose numbers are stable across calls, and an agent's final answer
parsed into a CitedAnswer whose references cover every call (scripted tool-calling model)."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableLambda

from langchain_cite import (
    CitationSession,
    CitedRagAnswer,
    create_cited_retriever_tool,
    tool_citation_instructions,
)

from .fakes import ScriptedChatModel, tool_call

SUN = Document(
    page_content="The Sun is a star. Its core fuses hydrogen.", metadata={"source": "/data/sun.txt"}
)
MOON = Document(
    page_content="The Moon orbits the Earth every 27 days.", metadata={"source": "/data/moon.txt"}
)
MARS = Document(page_content="Mars has two small moons.", metadata={"source": "/data/mars.txt"})

RESULTS = {"sun": [SUN, MOON], "moon": [MOON, MARS]}


def search_tool(session: CitationSession | None = None):  # type: ignore[no-untyped-def]
    retriever = RunnableLambda(lambda query: RESULTS[query])
    return create_cited_retriever_tool(
        retriever, name="search", description="Search the astronomy notes.", session=session
    )


def test_numbers_are_stable_across_calls() -> None:
    session = CitationSession()
    tool = search_tool(session)
    first = tool.invoke({"query": "sun"})
    second = tool.invoke({"query": "moon"})
    assert '<source number="1" title="sun.txt">' in first and '<source number="2" title="moon.txt">' in first
    assert (
        '<source number="2" title="moon.txt">' in second and '<source number="3" title="mars.txt">' in second
    )
    assert '<source number="1"' not in second  # only what this call retrieved is shown
    assert [s.title for s in session.sources] == ["sun.txt", "moon.txt", "mars.txt"]
    assert session.documents_for(2) == [MOON]  # retrieved twice, kept once


def test_tool_message_carries_the_documents_as_artifact() -> None:
    call = {"name": "search", "args": {"query": "sun"}, "id": "c1", "type": "tool_call"}
    message = search_tool().invoke(call)
    assert isinstance(message, ToolMessage)
    # the documents, each with its record: the number the model saw it as (read back on reload)
    assert [(d.page_content, d.metadata.pop("citation_sources")) for d in message.artifact] == [
        (SUN.page_content, {"number": 1, "key": "doc:/data/sun.txt"}),
        (MOON.page_content, {"number": 2, "key": "doc:/data/moon.txt"}),
    ]
    assert message.artifact == [SUN, MOON]


def test_session_from_the_run_config_wins() -> None:
    tool_session, run_session = CitationSession(), CitationSession()
    tool = search_tool(tool_session)
    tool.invoke({"query": "moon"}, {"configurable": {"citation_session": run_session}})
    assert len(run_session) == 2 and len(tool_session) == 0


def test_session_parse_covers_every_call() -> None:
    session = CitationSession()
    tool = search_tool(session)
    tool.invoke({"query": "sun"})
    tool.invoke({"query": "moon"})
    final = AIMessage(content="Mars has two moons [3]. The Sun fuses hydrogen [1].")
    answer = session.parse({"messages": [final]})
    assert isinstance(answer, CitedRagAnswer)
    # the session's numbers, as the model wrote them and a chat UI streamed them (issue 22)
    assert answer.text == "Mars has two moons [3]. The Sun fuses hydrogen [1]."
    assert [(r.number, r.title) for r in answer.references] == [(3, "mars.txt"), (1, "sun.txt")]
    assert answer.references[0].documents == [MARS] and answer.documents == [MARS, SUN]
    assert session.parser(output="text").invoke(final) == answer.text


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_create_react_agent_with_a_scripted_tool_calling_model() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    session = CitationSession()
    llm = ScriptedChatModel(
        replies=[
            tool_call("search", "sun", "c1"),
            tool_call("search", "moon", "c2"),
            AIMessage(content="The Sun fuses hydrogen [1] and Mars has two small moons [3]."),
        ]
    )
    agent = prebuilt.create_react_agent(llm, [search_tool(session)], prompt=tool_citation_instructions())
    state = agent.invoke({"messages": [("user", "Tell me about the Sun and Mars.")]})
    tool_messages = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 2 and '<source number="3" title="mars.txt">' in tool_messages[1].content
    assert tool_citation_instructions() in llm.prompts[0][0].content
    answer = session.parse(state)
    assert answer.text == "The Sun fuses hydrogen [1] and Mars has two small moons [3]."
    assert [r.source.number for r in answer.references] == [1, 3]
    assert answer.citations[1].cited_text == MARS.page_content
