"""``CiteChatEngine``: LlamaIndex's condense-plus-context chat engine, answering with citations."""

from __future__ import annotations

import asyncio
from threading import Thread
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.callbacks import trace_method
from llama_index.core.chat_engine import CondensePlusContextChatEngine
from llama_index.core.chat_engine.types import AgentChatResponse, StreamingAgentChatResponse
from llama_index.core.schema import NodeWithScore
from llama_index.core.tools import ToolOutput

from cite_core import ArgumentError, refuse_options

from ._chat_stream import AnswerMemory, CitedChatStream, achat_stream, answer_message, chat_stream
from ._conversation import Conversation, ConversationSynthesizer
from ._named import NamedSources
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
_PASSED_ON = (
    "chat_history",
    "memory",
    "system_prompt",
    "condense_prompt",
    "skip_condense",
    "node_postprocessors",
    "verbose",
)
"""``CondensePlusContextChatEngine.from_defaults``' options that CiteChatEngine uses; it ignores the rest."""
_ENTRY = "CiteChatEngine.from_defaults"


def _check_options(kwargs: dict[str, Any]) -> None:
    """The one options check (``cite_core.refuse_options`` over ``ELSEWHERE``): an ``ArgumentError``
    naming where each option goes that ``from_defaults`` takes but does not apply, and one naming the
    options it takes for a name it does not know (LlamaIndex's ``from_defaults`` takes ``**kwargs`` and
    ignores what it does not know)."""
    elsewhere = ELSEWHERE[_ENTRY]
    refuse_options(_ENTRY, kwargs, elsewhere)
    unknown = [n for n in kwargs if n not in _OPTIONS and n not in _PASSED_ON and n not in elsewhere]
    if unknown:
        raise ArgumentError(
            f"{_ENTRY} got unknown option(s) {', '.join(map(repr, unknown))} (not an option of "
            f"CiteChatEngine); it takes {', '.join((*_PASSED_ON, *_OPTIONS))}"
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
        _check_options(kwargs)
        options = {k: kwargs.pop(k) for k in list(kwargs) if k in _OPTIONS}
        for name in ELSEWHERE[_ENTRY]:  # left: None or False, the option not asked for
            kwargs.pop(name, None)
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
        # the rewrite reads the numbers the reader saw (and their titles): a follow-up may name one
        return super()._condense_question(Conversation(chat_history).for_condense(), latest_message)

    async def _acondense_question(self, chat_history: list[ChatMessage], latest_message: str) -> str:
        return await super()._acondense_question(Conversation(chat_history).for_condense(), latest_message)

    def _run_c3(  # type: ignore[override]
        self, message: str, chat_history: list[ChatMessage] | None = None, streaming: bool = False
    ) -> tuple[ConversationSynthesizer, ToolOutput, list[NodeWithScore]]:
        synthesizer, context_source, nodes = super()._run_c3(message, chat_history, streaming)
        assert isinstance(synthesizer, ConversationSynthesizer)
        found: list[NodeWithScore] = []
        for ref in self._named.missing(synthesizer.conversation, message, nodes):
            found += self._named.find(ref, self._get_nodes(ref["title"]) if self._named.unseen(ref) else [])
        return synthesizer, *self._named.joined(context_source, found, nodes)

    async def _arun_c3(  # type: ignore[override]
        self, message: str, chat_history: list[ChatMessage] | None = None, streaming: bool = False
    ) -> tuple[ConversationSynthesizer, ToolOutput, list[NodeWithScore]]:
        synthesizer, context_source, nodes = await super()._arun_c3(message, chat_history, streaming)
        assert isinstance(synthesizer, ConversationSynthesizer)
        found: list[NodeWithScore] = []
        for ref in self._named.missing(synthesizer.conversation, message, nodes):
            retrieved = await self._aget_nodes(ref["title"]) if self._named.unseen(ref) else []
            found += self._named.find(ref, retrieved)
        return synthesizer, *self._named.joined(context_source, found, nodes)

    @property
    def _named(self) -> NamedSources:
        """The nodes of the sources this engine's turns showed, by key (``reset()`` forgets them)."""
        return self.__dict__.setdefault("_named_sources", NamedSources(self._merge()))

    def _merge(self) -> bool:
        return bool(getattr(self, "_cite_options", {}).get("merge_chunks", True))

    def reset(self) -> None:
        super().reset()
        self.__dict__.pop("_named_sources", None)

    @trace_method("chat")
    def chat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        synthesizer, context_source, context_nodes = self._run_c3(message, chat_history)
        response = synthesizer.synthesize(message, context_nodes)
        self._memory.put(ChatMessage(content=message, role=MessageRole.USER))
        self._memory.put(answer_message(response, known=synthesizer.conversation.references))
        return _agent_response(response, context_source)

    @trace_method("chat")
    async def achat(self, message: str, chat_history: list[ChatMessage] | None = None) -> AgentChatResponse:
        synthesizer, context_source, context_nodes = await self._arun_c3(message, chat_history)
        response = await synthesizer.asynthesize(message, context_nodes)
        await self._memory.aput(ChatMessage(content=message, role=MessageRole.USER))
        await self._memory.aput(answer_message(response, known=synthesizer.conversation.references))
        return _agent_response(response, context_source)

    @trace_method("chat")
    def stream_chat(
        self, message: str, chat_history: list[ChatMessage] | None = None
    ) -> StreamingAgentChatResponse:
        synthesizer, context_source, context_nodes = self._run_c3(message, chat_history, streaming=True)
        response: Any = synthesizer.synthesize(message, context_nodes)
        self._memory.put(ChatMessage(content=message, role=MessageRole.USER))
        chat_response = CitedChatStream(
            chat_stream=chat_stream(
                response.response_gen, response.metadata, synthesizer.conversation.references
            ),
            sources=[context_source],
            source_nodes=response.source_nodes,  # the same list: it fills as citations resolve
        )
        # a field only in newer llama-index-core (0.14.25 lacks it); set as a plain attribute here
        chat_response.metadata = response.metadata
        memory = AnswerMemory(self._memory, response.metadata)  # the answer's text, never the reasoning
        thread = Thread(target=chat_response.write_response_to_history, args=(memory,))
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
        chat_response = CitedChatStream(
            achat_stream=achat_stream(
                response.response_gen, response.metadata, synthesizer.conversation.references
            ),
            sources=[context_source],
            source_nodes=response.source_nodes,
        )
        chat_response.metadata = response.metadata  # as in stream_chat
        chat_response.awrite_response_to_history_task = asyncio.create_task(
            chat_response.awrite_response_to_history(AnswerMemory(self._memory, response.metadata))
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
