"""A scripted tool-calling chat model: replies from a list, streams text one character at a time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr


class ScriptedChatModel(BaseChatModel):
    """Returns ``replies`` in order (tool calls included); ``bind_tools`` returns the same script.

    Every prompt it receives is recorded in ``prompts``. Streaming yields the text one character per
    chunk, then one chunk with the tool calls.
    """

    replies: list[AIMessage]
    _position: list[int] = PrivateAttr(default_factory=lambda: [0])
    _prompts: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def prompts(self) -> list[list[BaseMessage]]:
        return self._prompts

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self  # the script already knows which tools it calls

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        self._prompts.append(list(messages))
        reply = self.replies[self._position[0] % len(self.replies)]
        self._position[0] += 1
        return reply

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._next(messages)
        content = reply.content if isinstance(reply.content, str) else ""
        for char in content:
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=char))
            if run_manager is not None:
                run_manager.on_llm_new_token(char, chunk=chunk)
            yield chunk
        if isinstance(reply.content, list):
            yield ChatGenerationChunk(message=AIMessageChunk(content=reply.content))
        if reply.tool_calls:
            calls = [
                {"name": c["name"], "args": _json(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(reply.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=calls))


def _json(args: dict[str, Any]) -> str:
    import json

    return json.dumps(args)


def tool_call(name: str, query: str, call_id: str) -> AIMessage:
    """An AIMessage calling tool ``name`` with ``{"query": query}``."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": {"query": query}, "id": call_id}])
