"""A scripted chat model with structured output: tool calling (LangChain's default
``with_structured_output``) or JSON mode (the pattern of the partner packages), streamed one character
at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from pydantic import PrivateAttr


class StructuredScriptedModel(BaseChatModel):
    """Replies with ``replies`` in order: each the JSON text of a structured answer. With tool calling the
    JSON is the arguments of a call to the schema's tool; in JSON mode it is the message text (in a
    ```json fence when ``fenced``). Streams one character per chunk; records every prompt."""

    replies: list[str]
    fenced: bool = False
    _position: list[int] = PrivateAttr(default_factory=lambda: [0])
    _prompts: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _json_mode: bool = PrivateAttr(default=False)

    @property
    def _llm_type(self) -> str:
        return "structured-scripted"

    @property
    def prompts(self) -> list[list[BaseMessage]]:
        return self._prompts

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, Any]:
        names = [
            t.get("title", "answer") if isinstance(t, dict) else getattr(t, "__name__", "answer")
            for t in tools
        ]
        return self.bind(tool_names=names)

    def with_structured_output(self, schema: Any, *, include_raw: bool = False, **kwargs: Any) -> Any:
        if kwargs.get("method") != "json_mode":
            return super().with_structured_output(schema, include_raw=include_raw, **kwargs)
        json_model = self.model_copy()
        json_model._json_mode = True
        json_model._position = self._position
        json_model._prompts = self._prompts
        return json_model | PydanticOutputParser(pydantic_object=schema)

    def _next(self, messages: list[BaseMessage]) -> str:
        self._prompts.append(list(messages))
        reply = self.replies[self._position[0] % len(self.replies)]
        self._position[0] += 1
        return reply

    def _text(self, reply: str) -> str:
        return f"```json\n{reply}\n```" if self.fenced else reply

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next(messages)
        if self._json_mode:
            message = AIMessage(content=self._text(reply), id="reply-1")
        else:
            name = (kwargs.get("tool_names") or ["answer"])[0]
            try:
                args = json.loads(reply)
            except json.JSONDecodeError:
                message = AIMessage(
                    content="",
                    invalid_tool_calls=[{"name": name, "args": reply, "id": "call-1", "error": "bad JSON"}],
                )
            else:
                message = AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])
        message.usage_metadata = {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30}
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._next(messages)
        name = (kwargs.get("tool_names") or ["answer"])[0]
        text = self._text(reply) if self._json_mode else reply
        for i, char in enumerate(text):
            if self._json_mode:
                chunk = AIMessageChunk(content=char)
            else:
                first = i == 0
                chunk = AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": name if first else None,
                            "args": char,
                            "id": "call-1" if first else None,
                            "index": 0,
                        }
                    ],
                )
            yield ChatGenerationChunk(message=chunk)
