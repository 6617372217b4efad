"""An agent's chat model whose output is the final answer: ``CitationSession.cited_model(llm)``.

A chat UI shows what the agent's model streams (LangGraph's ``stream_mode="messages"``). The raw model
writes ``[1, 2]``, ``【1】`` or an invalid ``[9]``; ``session.parse`` gives ``[1][2]``, ``[1]`` and drops
``[9]``. Wrapped, the model streams and returns the parsed text instead (the session's numbers,
normalised markers, invalid ones never shown) with the citations as annotations, while its own run is
tagged ``nostream`` so that its raw tokens are not shown twice. Tool calls, usage and metadata are kept.
A model bound to a structured output format (``create_agent(response_format=ProviderStrategy(...))``
binds ``response_format``) replies with the JSON of the object: that reply is passed through unchanged
(renumbering markers would rewrite the JSON's own arrays, ``[1, 2]``), and the object is cited with
``session.cite_structured(state["structured_response"])``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict

from ._generate import NOSTREAM
from ._messages import answer_chunk, as_output, cut_off, message_parts, text_chunk, without_reset

__all__ = ["CitedChatModel"]


class CitedChatModel(BaseChatModel):
    """``model``'s output parsed against ``session`` (a ``langchain_cite.CitationSession``) as it streams."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: Any
    """The chat model (or the runnable ``bind_tools`` made of it)."""
    session: Any
    """The session the agent's cited retriever tools number into."""
    structured: bool = False
    """Whether the model is bound to a structured output format: its replies pass through unchanged."""

    @property
    def _llm_type(self) -> str:
        return "cited-chat-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> CitedChatModel:
        """The wrapped model with tools bound, still cited (passed through when ``response_format`` binds a
        structured output format: the reply is the object's JSON)."""
        structured = self.structured or kwargs.get("response_format") is not None
        return CitedChatModel(
            model=self.model.bind_tools(tools, **kwargs), session=self.session, structured=structured
        )

    def invoke(self, input: Any, config: Any = None, *, stop: list[str] | None = None, **kwargs: Any) -> Any:
        """As the model's ``invoke``; streamed to a consumer, without reasoning a lone ``</think>`` ended."""
        return without_reset(super().invoke(input, config, stop=stop, **kwargs))

    async def ainvoke(
        self, input: Any, config: Any = None, *, stop: list[str] | None = None, **kwargs: Any
    ) -> Any:
        """As ``invoke``, async."""
        return without_reset(await super().ainvoke(input, config, stop=stop, **kwargs))

    def _check(self, messages: list[BaseMessage]) -> None:
        """Before the model reads them: every cited tool result among ``messages`` is this session's."""
        check = getattr(self.session, "check_tool_results", None)
        if check is not None:
            check(messages)

    def _config(self, run_manager: Any) -> dict[str, Any]:
        """The model's own run: a child of this one (traced), tagged ``nostream`` (not shown)."""
        if run_manager is None:
            return {"tags": [NOSTREAM]}
        child = CallbackManager(handlers=[], parent_run_id=run_manager.run_id)
        child.set_handlers(run_manager.inheritable_handlers)
        child.add_tags(run_manager.inheritable_tags)
        child.add_metadata(run_manager.inheritable_metadata)
        return {"callbacks": child, "tags": [NOSTREAM]}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._check(messages)
        raw = self.model.invoke(messages, self._config(run_manager), stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=self._cited(raw, kwargs))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._check(messages)
        raw = await self.model.ainvoke(messages, self._config(run_manager), stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=self._cited(raw, kwargs))])

    def _structured(self, kwargs: dict[str, Any]) -> bool:
        """Whether this call asks for a structured output format: bound by ``bind_tools`` (an agent's
        ``response_format``) or given to the call (``bind(response_format=...)``)."""
        return self.structured or kwargs.get("response_format") is not None

    def _cited(self, raw: Any, kwargs: dict[str, Any]) -> AIMessage:
        """The model's whole message as the session parses it (what ``output="message"`` gives)."""
        if self._structured(kwargs) and isinstance(raw, AIMessage):
            return raw
        if not isinstance(raw, AIMessage) or not message_parts(raw)[0].strip():
            return raw if isinstance(raw, AIMessage) else AIMessage(content=str(raw))
        return as_output(self.session.parse(raw), "message", raw)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self._check(messages)
        run = _Run(self.session, self._structured(kwargs))
        for chunk in self.model.stream(messages, self._config(run_manager), stop=stop, **kwargs):
            yield from run.feed(chunk)
        yield from run.finish()

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        self._check(messages)
        run = _Run(self.session, self._structured(kwargs))
        async for chunk in self.model.astream(messages, self._config(run_manager), stop=stop, **kwargs):
            for item in run.feed(chunk):
                yield item
        for item in run.finish():
            yield item


class _Run:
    """One streamed reply: the model's chunks added up, the session's stream over them."""

    def __init__(self, session: Any, structured: bool = False) -> None:
        self.session = session
        self.structured = structured  # a structured output format's JSON: every chunk as it is
        self.model: Any = None
        self.stream: Any = None  # made at the first text: the tools of this turn have numbered by then
        self.shown = 0
        self.reset_at: int | None = None
        self.id: str | None = None

    def feed(self, chunk: Any) -> Iterator[ChatGenerationChunk]:
        if isinstance(chunk, AIMessage) and not isinstance(chunk, AIMessageChunk):
            chunk = _as_chunk(chunk)  # a model without streaming yields its whole message
        if not isinstance(chunk, AIMessageChunk):
            return
        self.model = chunk if self.model is None else self.model + chunk
        self.id = self.id or chunk.id
        if self.structured:
            yield ChatGenerationChunk(message=chunk)
            return
        text, reasoning = message_parts(chunk)
        if not text and not reasoning:
            return
        if self.stream is None:
            self.stream = self.session.stream(display=True)
        events = self.stream.feed_reasoning(reasoning) if reasoning else []
        events += self.stream.feed(text) if text else []
        yield from self._shown(events)

    def _shown(self, events: list[Any]) -> Iterator[ChatGenerationChunk]:
        for event in events:
            if event.type == "answer_reset":
                self.reset_at = self.shown
            elif event.type == "display_delta" and event.text:
                self.shown += len(event.text)
                yield ChatGenerationChunk(message=text_chunk(event.text, id=self.id))

    def finish(self) -> Iterator[ChatGenerationChunk]:
        if self.model is None or self.structured:
            return
        if self.stream is None:  # no text: a tool call turn, kept as the model streamed it
            yield ChatGenerationChunk(message=self.model)
            return
        answer = self.stream.finish(truncated=cut_off(self.model))
        events = self.stream.pending_events()
        text = "".join(e.text for e in events if e.type == "display_delta")
        final = self.session.answer(answer)
        last = answer_chunk(final, text, self.model, id=self.id)
        if self.reset_at is not None:  # a lone </think>: what streamed before it was reasoning
            last.response_metadata["answer_reset"] = self.reset_at
        yield ChatGenerationChunk(message=last)


def _as_chunk(message: AIMessage) -> AIMessageChunk:
    """A whole message as one chunk (its tool calls as tool call chunks)."""
    calls = [
        {"name": c["name"], "args": json.dumps(c["args"]), "id": c.get("id"), "index": i}
        for i, c in enumerate(message.tool_calls)
    ]
    return AIMessageChunk(
        content=message.content,
        additional_kwargs=dict(message.additional_kwargs),
        response_metadata=dict(message.response_metadata),
        usage_metadata=message.usage_metadata,
        tool_call_chunks=calls,
        id=message.id,
    )
