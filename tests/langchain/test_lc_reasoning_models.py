"""Reasoning models and chat-model-like output through LangChain (issue 23 items 1, 2 and 4): a lone
</think>, a model cut off while thinking, and output="message" keeping what the chat model returned."""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.runnables import RunnableLambda

from cite_core import AnswerReset, answer_notes
from langchain_cite import CitationOutputParser, create_cited_rag_chain

from .conftest import needs_content_blocks

FUSION = Document(page_content="Hydrogen fuses into helium in the core.", metadata={"title": "Fusion"})
MOON = Document(page_content="The Moon reflects sunlight.", metadata={"title": "Moon"})
R1 = "Okay, source [2] is about the moon, [1] about fusion. I cite [1].\n</think>\n\nHydrogen fuses [1]."


def chain_for(llm, **options):  # type: ignore[no-untyped-def]
    return create_cited_rag_chain(RunnableLambda(lambda q: [FUSION, MOON]), llm, **options)


def test_text_before_a_lone_closing_tag_is_reasoning_whole_and_streamed() -> None:
    whole = chain_for(FakeListChatModel(responses=[R1])).invoke("How?")
    assert whole.text == "Hydrogen fuses [1]." and [r.source.number for r in whole.references] == [1]
    assert whole.reasoning.startswith("Okay, source [2]") and whole.invalid_markers == []
    items = list(chain_for(FakeListChatModel(responses=[R1])).stream("How?"))  # one character at a time
    assert items[-1] == whole
    [reset] = [i for i, item in enumerate(items) if isinstance(item, AnswerReset)]
    after = items[reset + 1 : -1]
    assert "".join(e.text for e in after if e.type == "text_delta") == whole.plain_text
    assert [e.citation for e in after if e.type == "citations_delta"] == whole.citations


def test_a_model_cut_off_while_thinking_gives_an_empty_answer_that_says_why() -> None:
    answer = chain_for(FakeListChatModel(responses=["<think>Source [2] is about the moon, and"])).invoke(
        "How?"
    )
    assert answer.text == "" and answer.citations == [] and answer.stopped_in_reasoning
    assert answer.reasoning == "Source [2] is about the moon, and"
    assert [n.kind for n in answer_notes(answer)] == ["stopped_in_reasoning"]


@needs_content_blocks
def test_a_message_cut_off_while_thinking_says_so_in_its_metadata() -> None:
    llm = FakeListChatModel(responses=["<think>Source [2] is about the moon, and"])
    message = chain_for(llm, output="message").invoke("How?")
    assert message.text == "" and message.response_metadata["stopped_in_reasoning"] is True


TOOL_CALL = {"name": "search", "args": {"q": "fusion"}, "id": "call_1", "type": "tool_call"}
USAGE = {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}


@needs_content_blocks
def test_output_message_keeps_what_the_chat_model_returned() -> None:
    model = AIMessage(
        content="Hydrogen fuses [1].",
        tool_calls=[TOOL_CALL],
        usage_metadata=USAGE,
        response_metadata={"model_name": "m-1", "finish_reason": "stop"},
        additional_kwargs={"reasoning_content": "Source [2] is the moon."},
    )
    message = CitationOutputParser(output="message").invoke({"sources": [FUSION, MOON], "message": model})
    assert message.text == "Hydrogen fuses [1]."
    assert message.tool_calls == [TOOL_CALL] and message.usage_metadata == USAGE
    assert (
        message.response_metadata["model_name"] == "m-1"
        and message.response_metadata["finish_reason"] == "stop"
    )
    assert message.response_metadata["references"][0]["title"] == "Fusion"
    assert message.additional_kwargs["reasoning_content"] == "Source [2] is the moon."
    assert {"type": "reasoning", "reasoning": "Source [2] is the moon."} in message.content
    assert [a["cited_text"] for a in message.content[0]["annotations"]] == [FUSION.page_content]


@needs_content_blocks
def test_output_message_stream_keeps_what_the_chat_model_streamed() -> None:
    chunks = [
        AIMessageChunk(content="", additional_kwargs={"reasoning_content": "Source [2] "}),
        AIMessageChunk(content="", additional_kwargs={"reasoning_content": "is the moon."}),
        AIMessageChunk(content="Hydrogen fu"),
        AIMessageChunk(content="ses [1].", response_metadata={"model_name": "m-1", "finish_reason": "stop"}),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "search", "args": '{"q": "fusion"}', "id": "call_1", "index": 0}],
        ),
        AIMessageChunk(content="", usage_metadata=USAGE),
    ]
    parser = CitationOutputParser(output="message")
    inputs = [{"sources": [FUSION, MOON]}, *({"message": c} for c in chunks)]
    streamed = list(parser.transform(iter(inputs)))
    total = streamed[0]
    for chunk in streamed[1:]:
        total = total + chunk
    assert total.text == "Hydrogen fuses [1]."
    assert total.tool_calls == [TOOL_CALL] and total.usage_metadata == USAGE
    assert total.response_metadata["model_name"] == "m-1"
    assert total.additional_kwargs["reasoning_content"] == "Source [2] is the moon."
    assert (
        next(b for b in total.content if b.get("type") == "reasoning")["reasoning"]
        == "Source [2] is the moon."
    )
    whole = parser.invoke({"sources": [FUSION, MOON], "message": sum(chunks[1:], chunks[0])})
    assert whole.tool_calls == total.tool_calls and whole.usage_metadata == total.usage_metadata


@needs_content_blocks
def test_a_lone_closing_tag_never_reaches_the_message_a_langgraph_node_stores() -> None:
    """Under stream_mode="messages" the node's invoke streams; the chunks added up held the reasoning
    before the lone </think> as answer text, with the annotations pointing into it. The last chunk says
    where the answer starts (``response_metadata["answer_reset"]``) and the stored message is the answer."""
    import pytest

    graph_module = pytest.importorskip("langgraph.graph")
    chain = chain_for(FakeListChatModel(responses=[R1]), output="message")
    expected = chain_for(FakeListChatModel(responses=[R1]), output="message").invoke("How?")

    def answer(state: dict) -> dict:  # type: ignore[type-arg]
        return {"messages": [chain.invoke(state["messages"][-1].text)]}

    graph = graph_module.StateGraph(graph_module.MessagesState)
    graph.add_node("answer", answer)
    graph.add_edge(graph_module.START, "answer")
    app = graph.compile()
    parts = list(app.stream({"messages": [("user", "How?")]}, stream_mode=["messages", "values"]))
    tokens = [part[0] for mode, part in parts if mode == "messages"]
    stored = [part for mode, part in parts if mode == "values"][-1]["messages"][-1]
    assert stored.text == expected.text == "Hydrogen fuses [1]."
    assert "</think>" not in stored.text and "answer_reset" not in stored.response_metadata
    [annotation] = [
        a for block in stored.content if block.get("type") == "text" for a in block["annotations"]
    ]
    assert stored.text[annotation["start_index"] : annotation["end_index"]] == "Hydrogen fuses"
    streamed = "".join(t.text for t in tokens)
    assert streamed[tokens[-1].response_metadata["answer_reset"] :] == stored.text  # what a UI can drop


def test_a_text_stream_says_where_a_lone_closing_tag_restarted_the_answer() -> None:
    """output="text" streamed the reasoning before a lone </think> as answer text, and a node invoking
    the chain under stream_mode="messages" stored it: an ``AnswerResetText`` ("", joined) marks it."""
    import pytest

    from langchain_cite import AnswerResetText

    graph_module = pytest.importorskip("langgraph.graph")
    texts = list(chain_for(FakeListChatModel(responses=[R1]), output="text").stream("How?"))
    [reset] = [i for i, t in enumerate(texts) if isinstance(t, AnswerResetText)]
    assert "".join(texts[reset + 1 :]) == "Hydrogen fuses [1]." and texts[reset] == ""
    chain = chain_for(FakeListChatModel(responses=[R1]), output="text")

    def answer(state: dict) -> dict:  # type: ignore[type-arg]
        # .content, not .text: a method on langchain-core 0.3 (scripts/test-langchain-versions.sh)
        return {"messages": [AIMessage(content=chain.invoke(state["messages"][-1].content))]}

    graph = graph_module.StateGraph(graph_module.MessagesState)
    graph.add_node("answer", answer)
    graph.add_edge(graph_module.START, "answer")
    parts = list(graph.compile().stream({"messages": [("user", "How?")]}, stream_mode=["messages", "values"]))
    assert [part for mode, part in parts if mode == "values"][-1]["messages"][
        -1
    ].content == "Hydrogen fuses [1]."
