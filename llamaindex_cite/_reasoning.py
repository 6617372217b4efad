"""Reasoning that LlamaIndex LLMs return beside the answer text: ``ThinkingBlock``\\ s of a whole reply
and ``thinking_delta`` of streamed ones (llama-index-llms-openai's ``reasoning_content``, Ollama's
thinking). It goes to ``CitedAnswer.reasoning``, never into the answer or its citations. Also whether a
reply stopped at the model's token limit (``cut_off``), and whether the last call that ended in this
context did (``watch_cut_off``, ``last_cut_off``: what ``CitePostprocessor.cite()`` reads)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from cite_core import ThinkingDelta, TruncatedOutputError

__all__ = [
    "CUT_OFF",
    "adeltas",
    "areplayed",
    "cut_off",
    "deltas",
    "last_cut_off",
    "noted_cut_off",
    "replayed",
    "reply_parts",
    "watch_cut_off",
]

CUT_OFF = "\x00cut off"
"""The part a stream ends with when the model was cut off at its token limit (not model text: it never
reaches the parser as text; ``_Citer.feed`` reads it as ``finish(truncated=True)``)."""


def cut_off(response: Any) -> bool:
    """Whether a ``ChatResponse`` (whole, or the last of a stream) says the model stopped at its token
    limit: the raw OpenAI-compatible ``finish_reason="length"``, Anthropic's ``stop_reason="max_tokens"``."""
    raw = getattr(response, "raw", None)
    reasons: list[Any] = []
    for choice in _field(raw, "choices") or ():
        reasons.append(_field(choice, "finish_reason"))
    reasons += [_field(raw, "stop_reason"), _field(_field(raw, "delta"), "stop_reason")]
    return any(isinstance(r, str) and r.lower() in TruncatedOutputError.REASONS for r in reasons)


_LAST_CUT_OFF: ContextVar[bool | None] = ContextVar("cite_last_cut_off", default=None)
"""Whether the last LLM call that ended in this context stopped at its token limit (None: none ended
since ``watch_cut_off()``). A lazily started stream's call is no ticket's once ``cite()`` took the stream,
so the tokens ``cite()`` wraps read its end here, in the context that reads them."""


def noted_cut_off(response: Any) -> bool:
    """``cut_off(response)`` of a call that ended, noted for ``last_cut_off()`` in this context."""
    truncated = cut_off(response)
    _LAST_CUT_OFF.set(truncated)
    return truncated


def watch_cut_off() -> None:
    """Forget the calls that ended before: ``last_cut_off()`` then tells of calls ending from now on."""
    _LAST_CUT_OFF.set(None)


def last_cut_off() -> bool:
    """Whether an LLM call that ended since ``watch_cut_off()`` (the last) stopped at its token limit."""
    return bool(_LAST_CUT_OFF.get())


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


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
    if cut_off(response):
        yield CUT_OFF


def deltas(responses: Iterable[Any]) -> Iterator[str | ThinkingDelta]:
    """A stream of ``ChatResponse``\\ s as text deltas and ``ThinkingDelta``\\ s (the reasoning)."""
    for response in responses:
        yield from _parts(response)


async def adeltas(responses: AsyncIterator[Any]) -> AsyncIterator[str | ThinkingDelta]:
    """``deltas`` of an async stream."""
    async for response in responses:
        for part in _parts(response):
            yield part


def replayed(text: str, reasoning: str, truncated: bool = False) -> list[str | ThinkingDelta]:
    """A whole reply as the parts of a stream (its reasoning first; ``CUT_OFF`` last when cut off)."""
    parts: list[str | ThinkingDelta] = [ThinkingDelta(thinking=reasoning), text] if reasoning else [text]
    return [*parts, CUT_OFF] if truncated else parts


async def areplayed(text: str, reasoning: str, truncated: bool = False) -> AsyncIterator[str | ThinkingDelta]:
    """``replayed`` as an async stream."""
    for part in replayed(text, reasoning, truncated):
        yield part
