"""Reasoning that LlamaIndex LLMs return beside the answer text: ``ThinkingBlock``\\ s of a whole reply
and ``thinking_delta`` of streamed ones (llama-index-llms-openai's ``reasoning_content``, Ollama's
thinking). It goes to ``CitedAnswer.reasoning``, never into the answer or its citations."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from cite_core import ThinkingDelta

__all__ = ["adeltas", "areplayed", "deltas", "replayed", "reply_parts"]


def reply_parts(reply: Any) -> tuple[str, str]:
    """``(answer text, reasoning)`` of a whole ``ChatResponse``."""
    message = reply.message
    reasoning = [
        block.content or ""
        for block in getattr(message, "blocks", ())
        if getattr(block, "block_type", None) == "thinking"
    ]
    return message.content or "", "".join(reasoning)


def _thinking_delta(response: Any) -> str:
    """The reasoning delta of a streamed ``ChatResponse`` (on the response, or on its message)."""
    for kwargs in (response.additional_kwargs, getattr(response.message, "additional_kwargs", None)):
        delta = kwargs.get("thinking_delta") if isinstance(kwargs, dict) else None
        if isinstance(delta, str) and delta:
            return delta
    return ""


def _parts(response: Any) -> Iterator[str | ThinkingDelta]:
    thinking = _thinking_delta(response)
    if thinking:
        yield ThinkingDelta(thinking=thinking)
    if response.delta:
        yield response.delta


def deltas(responses: Iterable[Any]) -> Iterator[str | ThinkingDelta]:
    """A stream of ``ChatResponse``\\ s as text deltas and ``ThinkingDelta``\\ s (the reasoning)."""
    for response in responses:
        yield from _parts(response)


async def adeltas(responses: AsyncIterator[Any]) -> AsyncIterator[str | ThinkingDelta]:
    """``deltas`` of an async stream."""
    async for response in responses:
        for part in _parts(response):
            yield part


def replayed(text: str, reasoning: str) -> list[str | ThinkingDelta]:
    """A whole reply as the parts of a stream (its reasoning first)."""
    return [ThinkingDelta(thinking=reasoning), text] if reasoning else [text]


async def areplayed(text: str, reasoning: str) -> AsyncIterator[str | ThinkingDelta]:
    """``replayed`` as an async stream."""
    for part in replayed(text, reasoning):
        yield part
