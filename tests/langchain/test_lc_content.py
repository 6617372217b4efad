"""Issue 11 items 1 and 2: reasoning kept out of the answer, non-text blocks skipped (never an error)."""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.runnables import RunnableLambda

from langchain_cite import CitationOutputParser, CitedRagAnswer, create_cited_rag_chain

from .conftest import needs_content_blocks

FUSION = Document(page_content="Hydrogen fuses into helium in the core.", metadata={"title": "Fusion"})
MOON = Document(page_content="The Moon reflects sunlight.", metadata={"title": "Moon"})
THINKING = "<think>Source [2] is about the moon, [1] about fusion.</think>\n\nHydrogen fuses [1]."


def chain_for(llm, **options):  # type: ignore[no-untyped-def]
    return create_cited_rag_chain(RunnableLambda(lambda q: [FUSION, MOON]), llm, **options)


def check_thinking_answer(answer: CitedRagAnswer) -> None:
    assert answer.text == "Hydrogen fuses [1]."
    assert [ref.source.number for ref in answer.references] == [1]
    assert len(answer.citations) == 1 and answer.citations[0].cited_text == FUSION.page_content
    assert "the moon" in answer.reasoning and "<think>" not in answer.text


def test_inline_think_section_is_not_cited_whole() -> None:
    check_thinking_answer(chain_for(FakeListChatModel(responses=[THINKING])).invoke("How?"))


def test_inline_think_section_is_not_cited_streamed_one_char_at_a_time() -> None:
    items = list(chain_for(FakeListChatModel(responses=[THINKING])).stream("How?"))
    check_thinking_answer(items[-1])
    shown = "".join(i.text for i in items if getattr(i, "type", None) == "text_delta")
    assert shown == items[-1].plain_text and "moon" not in shown


@needs_content_blocks
def test_inline_think_section_is_not_in_the_message_stream() -> None:
    chunks = list(chain_for(FakeListChatModel(responses=[THINKING]), output="message").stream("How?"))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert "".join(c.content[0]["text"] for c in chunks) == "Hydrogen fuses [1]."


def test_reasoning_content_blocks_go_to_reasoning() -> None:
    message = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "Source [2] is off topic."},
            {"type": "thinking", "thinking": " Use [1]."},
            {"type": "text", "text": "Hydrogen fuses [1]."},
        ]
    )
    answer = CitationOutputParser().invoke({"sources": [FUSION, MOON], "message": message})
    assert answer.text == "Hydrogen fuses [1]." and answer.invalid_markers == []
    assert answer.reasoning == "Source [2] is off topic. Use [1]."


def test_reasoning_content_in_additional_kwargs_streamed() -> None:
    parts = [
        AIMessageChunk(content="", additional_kwargs={"reasoning_content": "Maybe [2]"}),
        AIMessageChunk(content="", additional_kwargs={"reasoning_content": ", no: [1]."}),
        *[AIMessageChunk(content=c) for c in "Hydrogen fuses [1]."],
    ]
    inputs = [{"sources": [FUSION, MOON]}, *({"message": p} for p in parts)]
    items = list(CitationOutputParser().transform(iter(inputs)))
    answer = items[-1]
    assert answer.text == "Hydrogen fuses [1]." and answer.reasoning == "Maybe [2], no: [1]."
    assert [ref.source.number for ref in answer.references] == [1]


def test_tool_and_other_non_text_blocks_are_skipped() -> None:
    message = AIMessage(
        content=[
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "sun"}},
            {"type": "tool_use", "id": "t1", "name": "search", "input": {"query": "sun"}},
            {"type": "tool_call", "id": "t2", "name": "search", "args": {"query": "sun"}},
            {"type": "image", "url": "https://example.org/x.png"},
            {"type": "text", "text": "Hydrogen fuses [1]."},
        ],
        tool_calls=[{"name": "search", "args": {"query": "sun"}, "id": "t2"}],
    )
    answer = chain_for(GenericFakeChatModel(messages=iter([message]))).invoke("How?")
    assert answer.text == "Hydrogen fuses [1]." and len(answer.citations) == 1


def test_a_tool_call_without_text_gives_an_empty_answer() -> None:
    call = AIMessage(content="", tool_calls=[{"name": "search", "args": {}, "id": "1"}])
    answer = CitationOutputParser().invoke({"sources": [FUSION], "message": call})
    assert answer.text == "" and answer.references == []
