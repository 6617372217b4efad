"""A streamed chat turn of ``CiteChatEngine``: its tokens, and the history message and final text it leaves.

The tokens are the cited answer's display deltas. Once a model that opens its thinking in the chat
template writes a lone ``</think>``, the tokens streamed before it were its reasoning: a token stream
cannot take them back, but the turn's final ``response`` and the message its memory keeps are the cited
answer's text, never the reasoning (LlamaIndex would keep the concatenated tokens).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.chat_engine.types import StreamingAgentChatResponse

from ._conversation import NUMBERING_KEY, REFERENCES_KEY, message_references, numbering

__all__ = ["AnswerMemory", "CitedChatStream", "achat_stream", "answer_message", "chat_stream"]


def _answer_text(metadata: Any) -> str | None:
    answer = (metadata or {}).get("cited_answer")
    return answer.text if answer is not None else None


def answer_message(
    response: Any, text: str | None = None, known: Mapping[int, Mapping[str, Any]] | None = None
) -> ChatMessage:
    """The history message of a turn's answer: its text, which source each of its numbers meant, and
    every number the conversation gave so far (``known`` before this turn, and this answer's)."""
    answer = (response.metadata or {}).get("cited_answer") if hasattr(response, "metadata") else None
    references = message_references(answer)
    every = numbering(known or {}, references)
    extra = {REFERENCES_KEY: references} if references else {}
    return ChatMessage(
        content=str(response) if text is None else text,
        role=MessageRole.ASSISTANT,
        additional_kwargs={**extra, NUMBERING_KEY: every} if every else extra,
    )


class CitedChatStream(StreamingAgentChatResponse):
    """``StreamingAgentChatResponse`` whose final ``response`` is the cited answer's text."""

    metadata: dict[str, Any]

    def __str__(self) -> str:
        text = super().__str__()
        answer = _answer_text(getattr(self, "metadata", None)) if self.is_done else None
        return text if answer is None else answer

    @property
    def response_gen(self) -> Generator[str, None, None]:
        yield from super().response_gen
        self._settle()

    async def async_response_gen(self) -> AsyncGenerator[str, None]:
        async for token in super().async_response_gen():
            yield token
        self._settle()

    def _settle(self) -> None:
        answer = _answer_text(getattr(self, "metadata", None))
        if answer is not None:
            self.response = answer


class AnswerMemory:
    """The engine's memory as a streamed turn writes its answer to it: the cited answer's text."""

    def __init__(self, memory: Any, metadata: dict[str, Any]) -> None:
        self.memory = memory
        self.metadata = metadata

    def put(self, message: ChatMessage) -> None:
        self.memory.put(self._settled(message))

    async def aput(self, message: ChatMessage) -> None:
        await self.memory.aput(self._settled(message))

    def _settled(self, message: ChatMessage) -> ChatMessage:
        answer = _answer_text(self.metadata)
        if answer is not None and message.content != answer:
            message.content = answer
        return message


class _Answered:
    """The metadata of a streamed answer, read once its stream has ended."""

    def __init__(self, metadata: dict[str, Any]) -> None:
        self.metadata = metadata


def chat_stream(
    tokens: Iterator[str], metadata: dict[str, Any], known: Mapping[int, Mapping[str, Any]]
) -> Generator[ChatResponse, None, None]:
    text = ""
    for token in tokens:
        text += token
        yield ChatResponse(message=ChatMessage(content=text, role=MessageRole.ASSISTANT), delta=token)
    yield ChatResponse(
        message=answer_message(_Answered(metadata), text, known), delta=""
    )  # the one history keeps


async def achat_stream(
    tokens: AsyncIterator[str], metadata: dict[str, Any], known: Mapping[int, Mapping[str, Any]]
) -> AsyncGenerator[ChatResponse, None]:
    text = ""
    async for token in tokens:
        text += token
        yield ChatResponse(message=ChatMessage(content=text, role=MessageRole.ASSISTANT), delta=token)
    yield ChatResponse(message=answer_message(_Answered(metadata), text, known), delta="")
