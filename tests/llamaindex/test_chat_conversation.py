"""CiteChatEngine keeps one numbering over a conversation (issue 22): the model reads earlier answers with
their markers in the current turn's numbering, the reader sees a source with the number it had before,
with chat, stream_chat (one character per delta) and a conversation reloaded from saved ChatMessages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms import CustomLLM
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import Field

from llamaindex_cite import CitationSession, CiteChatEngine

HARBOUR = TextNode(text="The harbour was dredged in 1931 so steamers could dock.", id_="harbour")
MARKET = TextNode(text="The fish market moved to the new quay in 1933.", id_="market")
CHURCH = TextNode(text="The church was rebuilt in stone in 1890.", id_="church")
TURNS = [[HARBOUR, CHURCH], [MARKET, HARBOUR], [CHURCH, MARKET]]
REPLIES = [
    "It was dredged [1].",
    "The market moved [1] after the dredging [2].",
    "The church [1]; the market [2].",
]
SHOWN = [
    "It was dredged [1].",
    "The market moved [2] after the dredging [1].",
    "The church [3]; the market [2].",
]
READ_ON_TURN_3 = ["It was dredged.", "The market moved [2] after the dredging."]  # HARBOUR is not shown


class TurnRetriever(BaseRetriever):
    def __init__(self, turns: list[list[TextNode]]) -> None:
        super().__init__()
        self.turns = list(turns)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [NodeWithScore(node=n, score=1.0) for n in self.turns.pop(0)]


class ScriptedChatLLM(CustomLLM):
    replies: list[str] = Field(default_factory=list)
    prompts: list[Sequence[ChatMessage]] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True)

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self.prompts.append(messages)
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self.replies.pop(0)))

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Iterator[ChatResponse]:  # type: ignore[override]
        self.prompts.append(messages)
        reply = self.replies.pop(0)
        message = ChatMessage(role=MessageRole.ASSISTANT, content=reply)
        return (ChatResponse(message=message, delta=char) for char in reply)

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append([ChatMessage(role=MessageRole.USER, content=prompt)])  # the question rewrite
        return CompletionResponse(text="Market?")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        yield CompletionResponse(text="")


def earlier_answers(prompt: Sequence[ChatMessage]) -> list[str]:
    return [str(m.content) for m in prompt if m.role == MessageRole.ASSISTANT]


def engine(
    turns: list[list[TextNode]], replies: list[str], **kwargs: Any
) -> tuple[CiteChatEngine, ScriptedChatLLM]:
    llm = ScriptedChatLLM(replies=list(replies))
    return CiteChatEngine.from_defaults(TurnRetriever(turns), llm=llm, skip_condense=True, **kwargs), llm


@pytest.mark.parametrize("streaming", [False, True])
def test_three_turns_keep_one_numbering(streaming: bool) -> None:
    chat, llm = engine(TURNS, REPLIES)
    for question, shown in zip(["Harbour?", "Market?", "Church?"], SHOWN):
        if streaming:
            reply = chat.stream_chat(question)
            tokens = list(reply.response_gen)  # the history is written when the stream ends
            assert len(tokens) > 5 and "".join(tokens) == shown
        else:
            assert chat.chat(question).response == shown
    assert earlier_answers(llm.prompts[-1]) == READ_ON_TURN_3
    assert earlier_answers(llm.prompts[1]) == ["It was dredged [2]."]  # the harbour is source 2 on turn 2
    assert [m.content for m in chat.chat_history if m.role == MessageRole.ASSISTANT] == SHOWN


def test_a_reloaded_chat_keeps_its_numbers_on_the_third_turn() -> None:
    chat, _ = engine(TURNS[:2], REPLIES[:2])
    chat.chat("Harbour?")
    chat.chat("Market?")
    saved = json.dumps([m.model_dump(mode="json") for m in chat.chat_history])

    history = [ChatMessage.model_validate(m) for m in json.loads(saved)]
    memory = ChatMemoryBuffer.from_defaults(chat_history=list(history))
    again, llm = engine(TURNS[2:], REPLIES[2:], memory=memory)
    assert again.chat("Church?").response == SHOWN[2]
    assert earlier_answers(llm.prompts[-1]) == READ_ON_TURN_3
    assert CitationSession.from_messages(history).next_number == 3


def test_the_question_rewrite_reads_the_numbers_the_reader_saw() -> None:
    llm = ScriptedChatLLM(replies=list(REPLIES[:2]))
    chat = CiteChatEngine.from_defaults(TurnRetriever(TURNS[:2]), llm=llm)  # condenses follow-ups
    chat.chat("Harbour?")
    assert chat.chat("And then?").response == SHOWN[1]
    rewrite = str(llm.prompts[1][0].content)
    # a follow-up may name a number (issue 31): the rewrite reads them, with what each one names
    assert "It was dredged [1].\n(Sources: [1] harbour)" in rewrite


@pytest.mark.parametrize("aio", [False, True])
def test_a_lone_closing_think_tag_never_reaches_the_history(aio: bool) -> None:
    # issue 31: an R1-style answer (its reasoning, then a lone </think>) streamed through stream_chat left
    # the reasoning in the turn's response and in the message the memory kept
    chat, _ = engine(TURNS[:1], ["Source [2] is the church, surely.</think>\n\nIt was dredged [1]."])
    if aio:

        async def run() -> tuple[str, Any]:
            reply = await chat.astream_chat("Harbour?")
            return "".join([t async for t in reply.async_response_gen()]), reply

        tokens, reply = asyncio.run(run())
    else:
        reply = chat.stream_chat("Harbour?")
        tokens = "".join(reply.response_gen)
    assert tokens.endswith("It was dredged [1].")  # a token stream cannot take back what it sent
    assert str(reply) == reply.response == "It was dredged [1]."
    assert [m.content for m in chat.chat_history] == ["Harbour?", "It was dredged [1]."]
    assert chat.chat_history[-1].additional_kwargs["references"][0]["number"] == 1


@pytest.mark.parametrize("streaming", [False, True])
def test_a_history_trimmed_to_its_last_turn_gives_no_number_again(streaming: bool) -> None:
    # issue 31: a memory that keeps only the last messages lost the numbers of older answers: the church,
    # cited as [2] on turn 1, was not in turn 2's answer, so turn 3 gave [2] to the market
    turns = [[HARBOUR, CHURCH], [HARBOUR], [MARKET]]
    chat, _ = engine(turns, ["It was dredged [1]; the church [2].", "Dredged [1].", "The market moved [1]."])
    chat.chat("Harbour and church?")
    if streaming:
        "".join(chat.stream_chat("Harbour?").response_gen)
    else:
        chat.chat("Harbour?")
    last_turn = chat.chat_history[-2:]
    assert last_turn[-1].additional_kwargs["numbering"] == [
        {"number": 1, "key": "doc:harbour", "title": "harbour"},
        {"number": 2, "key": "doc:church", "title": "church"},
    ]
    trimmed, _ = engine(
        turns[2:], ["The market moved [1]."], memory=ChatMemoryBuffer.from_defaults(chat_history=last_turn)
    )
    assert trimmed.chat("Market?").response == "The market moved [3]."
