"""Issue 11 item 4: LangChain-native output. ``output="message"`` gives an AIMessage with renumbered
markers and Citation annotations (streamed as renumbered chunks), ``output="text"`` a string, and
``add_citations`` turns an existing ``prompt | llm | StrOutputParser()`` chain into a citing one."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from langchain_cite import add_citations, create_cited_rag_chain

from .conftest import needs_content_blocks

pytestmark = needs_content_blocks  # annotations need langchain-core 1.x

MOON = Document(page_content="The Moon reflects sunlight.", metadata={"title": "Moon"})
SUN = Document(page_content="Hydrogen fuses into helium in the Sun's core.", metadata={"title": "Sun"})
RAW = "The Sun fuses hydrogen [2]. The Moon reflects sunlight [1]."
SHOWN = "The Sun fuses hydrogen [1]. The Moon reflects sunlight [2]."
retriever = RunnableLambda(lambda question: [MOON, SUN])


def message_chain():  # type: ignore[no-untyped-def]
    return create_cited_rag_chain(retriever, FakeListChatModel(responses=[RAW]), output="message")


def check_message(message: AIMessage) -> None:
    assert message.text == SHOWN
    [block] = message.content_blocks
    notes = block["annotations"]
    claims = [SHOWN[n["start_index"] : n["end_index"]] for n in notes]
    assert claims == ["The Sun fuses hydrogen", "The Moon reflects sunlight"]
    assert [n["title"] for n in notes] == ["Sun", "Moon"]
    assert [n["extras"]["reference"] for n in notes] == [1, 2]
    assert notes[0]["cited_text"] == SUN.page_content
    assert [r["number"] for r in message.response_metadata["references"]] == [1, 2]


def test_invoke_returns_an_annotated_message_with_renumbered_markers() -> None:
    check_message(message_chain().invoke("How do the Sun and Moon shine?"))


def test_stream_yields_renumbered_chunks_one_char_at_a_time() -> None:
    chunks = list(message_chain().stream("How do the Sun and Moon shine?"))
    assert len(chunks) > 20 and all(isinstance(c, AIMessageChunk) for c in chunks)
    shown = ""
    for chunk in chunks:
        shown += chunk.text
        assert "[2]" not in shown or "[1]" in shown  # no raw [2] before [1]: renumbered as it streams
    assert shown == SHOWN
    assert all(not b.get("annotations") for c in chunks[:-1] for b in c.content)
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    check_message(total)
    assert len({c.id for c in chunks}) == 1


async def test_astream_matches_stream() -> None:
    chunks = [c async for c in message_chain().astream("How?")]
    assert "".join(c.text for c in chunks) == SHOWN


def test_text_output_streams_strings() -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[RAW] * 2), output="text")
    pieces = list(chain.stream("How?"))
    assert all(isinstance(p, str) for p in pieces) and len(pieces) > 20
    assert "".join(pieces) == SHOWN == chain.invoke("How?")


def test_add_citations_keeps_the_output_a_string() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer briefly."), ("human", "Context:\n{context}\n\nQuestion: {question}")]
    )
    llm = FakeListChatModel(responses=[RAW] * 4)
    before = {"context": retriever, "question": RunnablePassthrough()} | prompt | llm | StrOutputParser()
    after = {"documents": retriever, "question": RunnablePassthrough()} | add_citations(prompt, llm)
    assert before.invoke("How?") == RAW
    assert after.invoke("How?") == SHOWN
    pieces = list(after.stream("How?"))
    assert all(isinstance(p, str) for p in pieces) and "".join(pieces) == SHOWN


def test_add_citations_puts_the_instructions_in_the_system_message() -> None:
    prompts = []

    def model(messages):  # type: ignore[no-untyped-def]
        prompts.append(messages)
        return AIMessage(content=RAW)

    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{context}\n\n{question}")])
    chain = {"documents": retriever, "question": RunnablePassthrough()} | add_citations(
        prompt, RunnableLambda(model)
    )
    assert chain.invoke("How?") == SHOWN
    system, human = prompts[0]
    assert "square brackets" in system.text and system.text.endswith("Be brief.")
    assert '<source number="2" title="Sun">' in human.text


def test_langgraph_messages_stream_shows_renumbered_markers() -> None:
    graph_module = pytest.importorskip("langgraph.graph")
    from langgraph.graph import MessagesState

    chain = message_chain()

    def answer(state: MessagesState) -> dict:
        return {"messages": [chain.invoke(state["messages"][-1].text)]}

    builder = graph_module.StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(graph_module.START, "answer")
    graph = builder.compile()
    streamed = list(graph.stream({"messages": [("user", "How?")]}, stream_mode="messages"))
    texts = [message.text for message, _ in streamed]
    # chain.invoke in a node streams its renumbered tokens, as a chat model's invoke does (issue 22)
    assert len(texts) > 5 and "".join(texts) == SHOWN


def test_langgraph_messages_stream_of_a_streaming_node() -> None:
    graph_module = pytest.importorskip("langgraph.graph")
    from langgraph.graph import MessagesState

    chain = message_chain()

    def answer(state: MessagesState) -> dict:
        message = None
        for chunk in chain.stream(state["messages"][-1].text):
            message = chunk if message is None else message + chunk
        return {"messages": [message]}

    builder = graph_module.StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(graph_module.START, "answer")
    graph = builder.compile()
    streamed = [m for m, meta in graph.stream({"messages": [("user", "How?")]}, stream_mode="messages")]
    assert len(streamed) > 20  # token by token
    assert "".join(m.text for m in streamed if isinstance(m, AIMessageChunk)) == SHOWN
    assert all("fuses hydrogen [2]" not in m.text for m in streamed)  # the raw model stream is hidden
