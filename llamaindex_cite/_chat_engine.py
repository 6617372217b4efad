"""``CiteChatEngine``: LlamaIndex's condense-plus-context chat engine, answering with citations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from threading import Thread
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.callbacks import trace_method
from llama_index.core.chat_engine import CondensePlusContextChatEngine
from llama_index.core.chat_engine.types import AgentChatResponse, StreamingAgentChatResponse
from llama_index.core.tools import ToolOutput

from cite_core import refuse_options

from ._conversation import REFERENCES_KEY, Conversation, ConversationSynthesizer, message_references
from ._options import ELSEWHERE

__all__ = ["CiteChatEngine"]

_OPTIONS = (
    "response_mode",
    "native",
    "refine_template",
    "merge_chunks",
    "style",
    "max_prompt_tokens",
    "answer_tokens",
    "unsupported_threshold",
    "system_template",
    "user_template",
    "encoding",
)


class CiteChatEngine(CondensePlusContextChatEngine):
    """Condense the conversation to a question, retrieve, and answer with citations.

    Each turn's answer cites the nodes retrieved for that turn. The conversation keeps one numbering: a
    source an earlier answer cited shows its earlier number again, new ones get the next numbers, and
    the model reads earlier answers with their markers in the current turn's numbering (see
    docs/concepts.md). ``response.source_nodes`` holds only the cited nodes and ``response.metadata``
    the cited answer; the history stores the answer with its references in
    ``additional_kwargs["references"]``. ``chat``, ``achat``, ``stream_chat``
    and ``astream_chat`` work (streamed tokens already renumbered).
    """

    _cite_options: dict[str, Any]

    @classmethod
    def from_defaults(  # type: ignore[override]
        cls, retriever: Any, llm: Any = None, **kwargs: Any
    ) -> CiteChatEngine:
        """As ``CondensePlusContextChatEngine.from_defaults``, plus ``CiteSynthesizer``'s options."""
        refused = ELSEWHERE["CiteChatEngine.from_defaults"]  # LlamaIndex's from_defaults ignores them
        refuse_options("CiteChatEngine.from_defaults", kwargs, refused)
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in _OPTIONS}
        engine = super().from_defaults(retriever, llm=llm, **kwargs)
        assert isinstance(engine, CiteChatEngine)
        engine._cite_options = options
        return engine

    def _get_response_synthesizer(  # type: ignore[override]
        self, chat_history: list[ChatMessage], streaming: bool = False
    ) -> ConversationSynthesizer:
        prefix = (
            [ChatMessage(role=MessageRole.SYSTEM, content=self._system_prompt)] if self._system_prompt else []
        )
        synthesizer = ConversationSynthesizer(
            llm=self._llm,
            streaming=streaming,
            callback_manager=self.callback_manager,
            chat_history=[*prefix, *chat_history],
            **getattr(self, "_cite_options", {}),
        )
        synthesizer.conversation = Conversation(synthesizer.chat_history)
        return synthesizer

    def _condense_question(self, chat_history: list[ChatMessage], latest_message: str) -> str:
        # the rewrite sees no sources: earlier answers' markers would name nothing there
        return super()._condense_question(Conversation(chat_history).for_model([]), latest_message)

    async def _acondense_question(self, chat_history: list[ChatMessage], latest_message: str) -> str:
        return await super()._acondense_question(Conversation(chat_history).for_model([]), latest_message)

    @trace_method("chat")
    def chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        synthesizer, context_source, context_nodes = self._run_c3(message, chat_history)
        response = synthesizer.synthesize(message, context_nodes)
        self._memory.put(ChatMessage(content=message, role=MessageRole.USER))
        self._memory.put(_answer_message(response))
        return _agent_response(response, context_source)

    @trace_method("chat")
    async def achat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        synthesizer, context_source, context_nodes = await self._arun_c3(message, chat_history)
        response = await synthesizer.asynthesize(message, context_nodes)
        await self._memory.aput(ChatMessage(content=message, role=MessageRole.USER))
        await self._memory.aput(_answer_message(response))
        return _agent_response(response, context_source)

    @trace_method("chat")
    def stream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        synthesizer, context_source, context_nodes = self._run_c3(message, chat_history, streaming=True)
        response: Any = synthesizer.synthesize(message, context_nodes)
        self._memory.put(ChatMessage(content=message, role=MessageRole.USER))
        chat_response = StreamingAgentChatResponse(
            chat_stream=_chat_stream(response.response_gen, response.metadata),
            sources=[context_source],
            source_nodes=response.source_nodes,  # the same list: it fills as citations resolve
        )
        # a field only in newer llama-index-core (0.14.25 lacks it); set as a plain attribute here
        chat_response.metadata = response.metadata  # type: ignore[attr-defined]
        thread = Thread(target=chat_response.write_response_to_history, args=(self._memory,))
        chat_response.write_response_to_history_thread = thread
        thread.start()
        return chat_response

    @trace_method("chat")
    async def astream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        synthesizer, context_source, context_nodes = await self._arun_c3(
            message, chat_history, streaming=True
        )
        response: Any = await synthesizer.asynthesize(message, context_nodes)
        await self._memory.aput(ChatMessage(content=message, role=MessageRole.USER))
        chat_response = StreamingAgentChatResponse(
            achat_stream=_achat_stream(response.response_gen, response.metadata),
            sources=[context_source],
            source_nodes=response.source_nodes,
        )
        chat_response.metadata = response.metadata  # type: ignore[attr-defined]  # as in stream_chat
        chat_response.awrite_response_to_history_task = asyncio.create_task(
            chat_response.awrite_response_to_history(self._memory)
        )
        return chat_response


def _agent_response(response: Any, context_source: ToolOutput) -> AgentChatResponse:
    """The chat response of a turn's cited ``response``: its cited nodes and the cited answer's metadata."""
    return AgentChatResponse(
        response=str(response),
        sources=[context_source],
        source_nodes=response.source_nodes,
        metadata=response.metadata,
    )


def _answer_message(response: Any, text: str | None = None) -> ChatMessage:
    """The history message of a turn's answer: its text and which source each of its numbers meant."""
    answer = (response.metadata or {}).get("cited_answer") if hasattr(response, "metadata") else None
    references = message_references(answer)
    return ChatMessage(
        content=str(response) if text is None else text,
        role=MessageRole.ASSISTANT,
        additional_kwargs={REFERENCES_KEY: references} if references else {},
    )


class _Answered:
    """The metadata of a streamed answer, read once its stream has ended."""

    def __init__(self, metadata: dict[str, Any]) -> None:
        self.metadata = metadata


def _chat_stream(tokens: Iterator[str], metadata: dict[str, Any]) -> Generator[ChatResponse, None, None]:
    text = ""
    for token in tokens:
        text += token
        yield ChatResponse(message=ChatMessage(content=text, role=MessageRole.ASSISTANT), delta=token)
    yield ChatResponse(message=_answer_message(_Answered(metadata), text), delta="")  # the one history keeps


async def _achat_stream(
    tokens: AsyncIterator[str], metadata: dict[str, Any]
) -> AsyncGenerator[ChatResponse, None]:
    text = ""
    async for token in tokens:
        text += token
        yield ChatResponse(message=ChatMessage(content=text, role=MessageRole.ASSISTANT), delta=token)
    yield ChatResponse(message=_answer_message(_Answered(metadata), text), delta="")
