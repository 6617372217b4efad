"""A chain's conversation in one numbering (issue 22): the model never reads ``[k]`` in an earlier answer
above a ``<source number="k">`` that is another source, and the reader sees a source with the number it
had before, through chat_history, LangGraph (checkpointer, ``stream_mode="messages"``), ``astream_events``
and a reload from JSON. Fake models stream one character at a time."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from cite_core import PromptError
from langchain_cite import CitationSession, create_cited_rag_chain

from .conftest import needs_content_blocks
from .fakes import ScriptedChatModel

SUN = Document(page_content="The Sun fuses hydrogen into helium in its core.", metadata={"source": "sun.txt"})
MOON = Document(page_content="The Moon reflects the light of the Sun.", metadata={"source": "moon.txt"})
MARS = Document(page_content="Mars has two small moons.", metadata={"source": "mars.txt"})
RESULTS = {"Moon?": [SUN, MOON], "Mars?": [SUN, MARS], "Both?": [MOON, MARS]}
REPLIES = [
    "Moonlight is reflected sunlight [2].",
    "Mars has two moons [2]; the Sun fuses [1].",
    "The Moon [1], Mars [2].",
]
SHOWN = [  # what the reader sees: a source keeps the number it had before, new ones get the next
    ("Moonlight is reflected sunlight [1].", [(1, "moon.txt")]),
    ("Mars has two moons [2]; the Sun fuses [3].", [(2, "mars.txt"), (3, "sun.txt")]),
    ("The Moon [1], Mars [2].", [(1, "moon.txt"), (2, "mars.txt")]),
]
retriever = RunnableLambda(lambda question: RESULTS[question])
pytestmark = needs_content_blocks


def references(message: BaseMessage) -> list[tuple[int, str]]:
    return [(r["number"], r["title"]) for r in message.response_metadata["references"]]


def assert_no_contradiction(prompt: list[BaseMessage], history: list[BaseMessage]) -> None:
    """Every marker the model reads in an earlier answer names the source this prompt shows under it."""
    shown = dict(re.findall(r'<source number="(\d+)" title="([^"]+)">', prompt[-1].text))
    earlier = [m for m in prompt if isinstance(m, AIMessage)]
    answers = [m for m in history if isinstance(m, AIMessage)]
    assert len(earlier) == len(answers)
    for read, answer in zip(earlier, answers):
        meant = dict(references(answer))
        titles = [meant[int(k)] for k in re.findall(r"\[(\d+)\]", answer.text)]  # what the reader saw
        for number, title in zip(re.findall(r"\[(\d+)\]", read.text), titles):
            assert shown.get(number) == title, (read.text, shown)
        # markers of sources this prompt does not show are not shown
        assert len(re.findall(r"\[(\d+)\]", read.text)) == sum(title in shown.values() for title in titles)


def test_three_turns_through_chat_history() -> None:
    llm = ScriptedChatModel(replies=[AIMessage(content=r) for r in REPLIES])
    chain = create_cited_rag_chain(retriever, llm, output="message")
    history: list[BaseMessage] = []
    for question, (text, refs) in zip(RESULTS, SHOWN):
        reply = chain.invoke({"question": question, "chat_history": history})
        assert_no_contradiction(llm.prompts[-1], history)
        assert (reply.text, references(reply)) == (text, refs)
        history += [HumanMessage(question), reply]
    # turn 3 reads turn 1 "[1]" (the Moon, source 1 here) and turn 2 "[2]" (Mars, source 2 here)
    assert [m.text for m in llm.prompts[-1] if isinstance(m, AIMessage)] == [
        "Moonlight is reflected sunlight [1].",
        "Mars has two moons [2]; the Sun fuses.",
    ]


def test_an_answer_in_the_history_counts_as_its_message() -> None:
    llm = ScriptedChatModel(replies=[AIMessage(content=r) for r in REPLIES[:2]])
    answers = create_cited_rag_chain(retriever, llm)
    first = answers.invoke("Moon?")
    second = answers.invoke({"question": "Mars?", "chat_history": [HumanMessage("Moon?"), first]})
    assert second.text == SHOWN[1][0]


def test_two_turns_streamed_show_the_final_numbers() -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES), output="message")
    history: list[BaseMessage] = []
    for question, (text, refs) in list(zip(RESULTS, SHOWN))[:2]:
        chunks = list(chain.stream({"question": question, "chat_history": history}))
        assert len(chunks) > 5 and "".join(c.text for c in chunks) == text
        reply = message_chunk_to_message(sum(chunks[1:], chunks[0]))
        assert references(reply) == refs
        history += [HumanMessage(question), reply]


def test_plain_text_history_hides_its_markers_from_the_model() -> None:
    llm = ScriptedChatModel(replies=[AIMessage(content=REPLIES[1])])
    chain = create_cited_rag_chain(retriever, llm, output="text")
    history = [HumanMessage("Moon?"), AIMessage("Moonlight is reflected sunlight [1].")]
    assert (
        chain.invoke({"question": "Mars?", "chat_history": history})
        == "Mars has two moons [1]; the Sun fuses [2]."
    )
    # nothing says which source [1] meant: the model does not read it as a marker
    assert llm.prompts[-1][2].text == "Moonlight is reflected sunlight."


def test_langgraph_checkpointer_node_invoking_the_chain_streams_tokens() -> None:
    graph_module = pytest.importorskip("langgraph.graph")
    memory = pytest.importorskip("langgraph.checkpoint.memory")
    llm = ScriptedChatModel(replies=[AIMessage(content=r) for r in REPLIES])
    chain = create_cited_rag_chain(retriever, llm, output="message")

    def answer(state: Any) -> dict[str, Any]:
        *history, question = state["messages"]
        return {"messages": [chain.invoke({"question": question.text, "chat_history": history})]}

    graph = graph_module.StateGraph(graph_module.MessagesState)
    graph.add_node("answer", answer)
    graph.add_edge(graph_module.START, "answer")
    app = graph.compile(checkpointer=memory.InMemorySaver())
    config = {"configurable": {"thread_id": "ana"}}
    for question, (text, refs) in zip(RESULTS, SHOWN):
        tokens = [
            m for m, _ in app.stream({"messages": [("user", question)]}, config, stream_mode="messages")
        ]
        final = app.get_state(config).values["messages"][-1]
        assert len(tokens) > 5  # streamed as a chat model streams, not one message at the end
        assert "".join(t.text for t in tokens) == final.text == text
        assert references(final) == refs
    messages = app.get_state(config).values["messages"]
    assert_no_contradiction(llm.prompts[-1], messages[:-2])


@pytest.mark.parametrize("output", ["answer", "text", "message"])
def test_astream_events_show_each_token_once_with_final_numbers(output: str) -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES[1:2]), output=output)

    async def shown() -> str:
        text = ""
        async for event in chain.astream_events("Mars?", version="v2"):
            if event["event"] == "on_chat_model_stream" and "nostream" not in event.get("tags", []):
                text += event["data"]["chunk"].text
        return text

    assert asyncio.run(shown()) == "Mars has two moons [1]; the Sun fuses [2]."


def test_runnable_with_message_history_and_the_default_output_raises() -> None:
    store: dict[str, InMemoryChatMessageHistory] = {}
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES))
    with pytest.warns(Warning):  # deprecated in langchain-core 1.x, still used
        with_history = RunnableWithMessageHistory(
            chain,
            lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
            input_messages_key="question",
            history_messages_key="chat_history",
        )
    with pytest.raises(PromptError, match='output="message"'):
        with_history.invoke({"question": "Moon?"}, {"configurable": {"session_id": "s"}})


def test_a_reloaded_conversation_keeps_its_numbers_on_the_third_turn() -> None:
    first = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES[:2]), output="message")
    history: list[BaseMessage] = []
    for question in list(RESULTS)[:2]:
        history += [HumanMessage(question), first.invoke({"question": question, "chat_history": history})]
    saved = json.dumps(messages_to_dict(history))

    # a new process: the messages from JSON, a new chain and model
    loaded = messages_from_dict(json.loads(saved))
    llm = ScriptedChatModel(replies=[AIMessage(content=REPLIES[2])])
    third = create_cited_rag_chain(retriever, llm, output="message").invoke(
        {"question": "Both?", "chat_history": loaded}
    )
    assert (third.text, references(third)) == SHOWN[2]
    assert_no_contradiction(llm.prompts[-1], loaded)
    session = CitationSession.from_messages(loaded)
    assert session.next_number == 4  # the Moon 1, Mars 2, the Sun 3: a new source would be 4


def test_a_prompt_of_yours_reads_the_history_in_this_calls_numbering() -> None:
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

    from langchain_cite import add_citations

    first = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES[:1]), output="message")
    earlier = first.invoke("Moon?")  # "Moonlight is reflected sunlight [1]." (the Moon)
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Be brief."), MessagesPlaceholder("chat_history"), ("human", "{context}\n\n{question}")]
    )
    llm = ScriptedChatModel(replies=[AIMessage(content="Mars has two moons [1].")])
    chain = add_citations(prompt, llm, output="message")
    reply = chain.invoke(
        {"documents": [MARS, MOON], "question": "Mars?", "chat_history": [HumanMessage("Moon?"), earlier]}
    )
    assert [m.text for m in llm.prompts[-1] if isinstance(m, AIMessage)] == [
        "Moonlight is reflected sunlight [2]."
    ]
    assert reply.text == "Mars has two moons [2]."  # the Moon keeps [1] for the reader; Mars is new


def test_the_standalone_question_rewrite_reads_no_markers() -> None:
    llm = ScriptedChatModel(replies=[AIMessage(content="Mars?"), AIMessage(content=REPLIES[1])])
    chain = create_cited_rag_chain(retriever, llm, output="message", condense_question=True)
    earlier = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES[:1]), output="message")
    history = [HumanMessage("Moon?"), earlier.invoke("Moon?")]
    chain.invoke({"question": "And the red planet?", "chat_history": history})
    rewrite = llm.prompts[0][-1].text
    assert "Moonlight is reflected sunlight." in rewrite and "[1]" not in rewrite  # no sources in that call


def test_an_async_langgraph_node_awaiting_ainvoke_streams_tokens() -> None:
    graph_module = pytest.importorskip("langgraph.graph")
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=REPLIES[1:2]), output="message")

    async def answer(state: Any) -> dict[str, Any]:
        return {"messages": [await chain.ainvoke(state["messages"][-1].text)]}

    graph = graph_module.StateGraph(graph_module.MessagesState)
    graph.add_node("answer", answer)
    graph.add_edge(graph_module.START, "answer")
    app = graph.compile()

    async def run() -> tuple[list[str], Any]:
        tokens = []
        final = None
        async for mode, item in app.astream(
            {"messages": [("user", "Mars?")]}, stream_mode=["messages", "values"]
        ):
            if mode == "messages":
                tokens.append(item[0].text)
            else:
                final = item["messages"][-1]
        return tokens, final

    tokens, final = asyncio.run(run())
    assert len(tokens) > 5 and "".join(tokens) == final.text == "Mars has two moons [1]; the Sun fuses [2]."
    assert references(final) == [(1, "mars.txt"), (2, "sun.txt")]


def test_a_history_of_only_the_last_messages_keeps_every_number() -> None:
    """A LangGraph node that passes only the last messages as history: turn 3 saw only turn 2 (Mars [2],
    the Sun [3]), so the Moon, [1] in turn 1, came back under a new number. Each cited message now
    carries the whole numbering so far (``response_metadata["numbering"]``)."""
    results = {
        **RESULTS,
        "Venus?": [MOON, Document(page_content="Venus is hot.", metadata={"source": "venus.txt"})],
    }
    replies = [*REPLIES[:2], "Venus is hot [2]; the Moon reflects [1]."]
    llm = ScriptedChatModel(replies=[AIMessage(content=r) for r in replies])
    chain = create_cited_rag_chain(RunnableLambda(lambda q: results[q]), llm, output="message")
    history: list[BaseMessage] = []
    for question in ("Moon?", "Mars?"):
        reply = chain.invoke({"question": question, "chat_history": history})
        history += [HumanMessage(question), reply]
    assert [e["number"] for e in history[-1].response_metadata["numbering"]] == [1, 2, 3]
    third = chain.invoke({"question": "Venus?", "chat_history": history[-2:]})
    assert third.text == "Venus is hot [4]; the Moon reflects [1]."
    assert references(third) == [(4, "venus.txt"), (1, "moon.txt")]
