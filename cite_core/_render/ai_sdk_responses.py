"""A streaming response object (LlamaIndex's) read as stream events for ``to_ai_sdk_stream``.

LlamaIndex hands out a response whose ``response_gen`` (or ``async_response_gen()``) yields display
tokens, whose ``citations`` list grows as they resolve (a query response), and whose ``metadata`` gets
``cited_answer`` once the stream ends and ``answer_reset`` (how many characters of the tokens were
reasoning) when a lone ``</think>`` showed that the text so far was not the answer. This module turns
it into the events ``to_ai_sdk_stream`` reads: the tokens, each newly resolved citation, an
``AnswerReset`` at its place, then the response itself (its answer). It knows no framework: it reads
those attributes only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from .._exceptions import ArgumentError
from .._schema.models import AnswerReset, Citation

__all__ = ["Cited", "ResponseTokens", "aresponse_items", "is_response", "response_items"]


class Cited:
    """A citation a streaming response resolved (its ``citations`` list grows as the tokens come)."""

    def __init__(self, citation: Citation) -> None:
        self.citation = citation


def is_response(items: Any) -> bool:
    """Whether ``items`` is a streaming response object rather than a stream of events."""
    return (
        hasattr(items, "response_gen") and not isinstance(items, Mapping) and not hasattr(items, "__iter__")
    )


class ResponseTokens:
    """The events of a response's tokens, one token at a time.

    The reset is placed by its count, not by when it is seen: a chat engine's tokens are read from a
    queue that the answer's stream fills ahead of the reader."""

    def __init__(self, response: Any) -> None:
        self.response = response
        metadata = getattr(response, "metadata", None)
        self.metadata = metadata if isinstance(metadata, Mapping) else {}
        self.shown = 0
        self.applied: int | None = None
        self.cited = 0

    def step(self, token: Any) -> list[Any]:
        """The events up to and including ``token``."""
        if not isinstance(token, str):
            raise ArgumentError(f"items: a response's tokens must be str, got {type(token).__name__}")
        out: list[Any] = []
        citations = getattr(self.response, "citations", None)  # resolved so far (a query response)
        if isinstance(citations, list):
            self.cited = min(self.cited, len(citations))  # cleared by an answer reset
            out += [Cited(c) for c in citations[self.cited :]]
            self.cited = len(citations)
        reset = self.metadata.get("answer_reset")
        if isinstance(reset, int) and reset != self.applied and reset < self.shown + len(token):
            head = token[: max(reset - self.shown, 0)]
            out += [head, AnswerReset()] if head else [AnswerReset()]
            self.applied = reset
            self.shown, token = self.shown + len(head), token[len(head) :]
        self.shown += len(token)
        return [*out, token]

    def end(self) -> list[Any]:
        """The events after the last token: a reset at the very end (nothing of the answer was shown),
        then the response itself."""
        reset = self.metadata.get("answer_reset")
        return (
            [AnswerReset(), self.response]
            if isinstance(reset, int) and reset != self.applied
            else [self.response]
        )


def response_items(response: Any) -> Iterator[Any]:
    """The events of a (sync) streaming response, ending with the response."""
    tokens = response.response_gen
    if hasattr(tokens, "__aiter__"):
        raise ArgumentError(
            "items: an async streaming response: use 'async for line in ato_ai_sdk_stream(...)'"
        )
    reader = ResponseTokens(response)
    for token in tokens:
        yield from reader.step(token)
    yield from reader.end()


async def aresponse_items(response: Any) -> AsyncIterator[Any]:
    """The events of an async streaming response (``async_response_gen()``, or an async
    ``response_gen``), or of a sync one, ending with the response."""
    reader = ResponseTokens(response)
    method = getattr(response, "async_response_gen", None)
    tokens = method() if callable(method) else response.response_gen
    if hasattr(tokens, "__aiter__"):
        async for token in tokens:
            for item in reader.step(token):
                yield item
    else:
        for token in tokens:
            for item in reader.step(token):
                yield item
    for item in reader.end():
        yield item
