"""Streaming responses whose tokens flow as the model writes them, with citations resolved on the way."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.base.response.schema import AsyncStreamingResponse, Response, StreamingResponse

from cite_core import (
    AnswerReset,
    Citation,
    CitationPrompt,
    CitationsDelta,
    CitationStream,
    CitedAnswer,
    DisplayDelta,
    StreamEvent,
    ThinkingDelta,
)

from ._claude import ClaudeStream
from ._convert import NumberedNodes, answer_metadata
from ._options import CitedResponse, stream_answer
from ._reasoning import CUT_OFF
from ._verify import averify_response, verify_response

__all__ = ["AsyncCitedStreamingResponse", "CitedStreamingResponse"]


class _Citer:
    """Feeds model text to a ``CitationStream`` and renders its events as display tokens.

    The tokens are the core's display deltas (the answer text with markers already renumbered: they
    concatenate to ``answer.text`` exactly); each resolved citation adds the nodes of a newly cited
    source to ``source_nodes`` at once. Reasoning (``<think>``) is neither shown nor cited.
    """

    def __init__(
        self,
        response: Any,
        numbered: NumberedNodes,
        prompt: CitationPrompt,
        threshold: float,
        stream: ClaudeStream | None = None,
        embeddings: Any = None,
        numbering: Mapping[str, Any] | None = None,
    ) -> None:
        self.response = response
        self.numbered = numbered
        self.stream: CitationStream | ClaudeStream = stream or CitationStream(
            list(prompt.sources),
            unsupported_threshold=threshold,
            display=True,
            style=prompt.style,
            embeddings=embeddings,
            **(numbering or {}),  # a conversation's numbers (CiteChatEngine)
        )
        self.raw: list[str] = []
        self.seen: set[tuple[int, str]] = set()
        self.truncated = False
        self.shown = 0  # characters of tokens yielded so far

    def feed(self, chunk: Any) -> Iterator[str]:
        """Feed a text chunk, reasoning (a ``ThinkingDelta``), or a streamed Messages API event for
        Claude's own citations."""
        if isinstance(chunk, ThinkingDelta) and isinstance(self.stream, CitationStream):
            return self.render(self.stream.feed_reasoning(chunk.thinking))
        if chunk == CUT_OFF:  # the model stopped at its token limit
            self.truncated = True
            return iter(())
        if isinstance(chunk, str):
            self.raw.append(chunk)
        return self.render(self.stream.feed(chunk))

    def finish(self) -> Iterator[str]:
        answer = self.numbered.with_left_out(self.stream.finish(truncated=self.truncated))
        yield from self.render(self.stream.pending_events())
        response = self.response
        response.answer = answer
        response.response_txt = answer.text
        response.source_nodes[:] = self.numbered.cited_nodes(answer)  # in place: others hold the list
        raw = self.stream.text if isinstance(self.stream, ClaudeStream) else self.raw
        known = {"sources": response.metadata["sources"], "dropped": response.metadata["dropped_sources"]}
        response.metadata.update(answer_metadata(answer, raw="".join(raw), **known))

    def render(self, events: Iterable[StreamEvent]) -> Iterator[str]:
        for event in events:
            if isinstance(event, DisplayDelta):
                if event.text:
                    self.shown += len(event.text)
                    yield event.text
                continue
            if isinstance(event, AnswerReset):  # the text so far was reasoning: so were its citations
                self.response.metadata["answer_reset"] = self.shown  # where the answer's tokens start
                self.response.citations.clear()
                self.response.source_nodes.clear()
                self.seen.clear()
                continue
            if not isinstance(event, CitationsDelta):
                continue  # text and thinking deltas: the display deltas carry what is shown
            citation = event.citation
            self.response.citations.append(citation)
            number = citation.document_index + 1
            for node in self.numbered.nodes_for(number, citation.reference, [citation]):
                if (number, node.node.node_id) not in self.seen:
                    self.seen.add((number, node.node.node_id))
                    self.response.source_nodes.append(node)


@dataclass
class CitedStreamingResponse(StreamingResponse):
    """A ``StreamingResponse`` of a cited answer.

    ``response_gen`` yields the answer as the model writes it, each citation marker shown as ``[n]``
    (display numbers) once it is resolved; ``citations`` grows as they resolve. Once the stream is
    consumed, ``source_nodes`` holds only the cited nodes, ``answer`` the ``CitedAnswer`` and
    ``str(response)`` its text, exactly as ``query()`` without streaming returns them.
    """

    citations: list[Citation] = field(default_factory=list)
    answer: CitedAnswer | None = None
    error: BaseException | None = None
    """What ended the stream before its answer (the model's connection, a callback), once it has."""

    @classmethod
    def start(
        cls,
        deltas: Iterable[Any],
        numbered: NumberedNodes,
        prompt: CitationPrompt,
        *,
        unsupported_threshold: float,
        stream: ClaudeStream | None = None,
        embeddings: Any = None,
        numbering: Mapping[str, Any] | None = None,
        judge: Any = None,
    ) -> CitedStreamingResponse:
        """A response that cites ``deltas`` (the model's text chunks, or Claude's events for ``stream``)
        against the sources ``prompt`` shows."""
        response = cls(response_gen=(t for t in ""), metadata=_metadata(numbered, prompt))
        citer = _Citer(response, numbered, prompt, unsupported_threshold, stream, embeddings, numbering)

        def tokens() -> Generator[str, None, None]:
            try:
                for delta in deltas:
                    yield from citer.feed(delta)
                yield from citer.finish()
            except Exception as exc:
                response.error = exc
                raise
            if judge is not None:  # after the last token: the answer has ended
                verify_response(response, judge)

        response.response_gen = tokens()
        return response

    def consume(self) -> CitedAnswer:
        """Read the rest of the stream; returns the cited answer."""
        for _ in self.response_gen:
            pass
        return stream_answer(self.answer, self.error)

    def __str__(self) -> str:
        self.consume()
        return self.response_txt or ""  # an empty answer (the notes say why), not LlamaIndex's "None"

    def get_response(self) -> Response:
        self.consume()  # a CitedResponse: an empty answer reads "" as query() gives it, not "None"
        return CitedResponse(self.response_txt, self.source_nodes, self.metadata)

    def print_response_stream(self) -> None:
        for token in self.response_gen:
            print(token, end="", flush=True)
        print()


@dataclass
class AsyncCitedStreamingResponse(AsyncStreamingResponse):
    """The async twin of ``CitedStreamingResponse`` (``aquery`` with ``streaming=True``)."""

    citations: list[Citation] = field(default_factory=list)
    answer: CitedAnswer | None = None
    error: BaseException | None = None

    @classmethod
    def start(
        cls,
        deltas: AsyncIterator[Any],
        numbered: NumberedNodes,
        prompt: CitationPrompt,
        *,
        unsupported_threshold: float,
        stream: ClaudeStream | None = None,
        embeddings: Any = None,
        numbering: Mapping[str, Any] | None = None,
        judge: Any = None,
    ) -> AsyncCitedStreamingResponse:
        """``CitedStreamingResponse.start`` over async ``deltas``."""
        response = cls(response_gen=_empty(), metadata=_metadata(numbered, prompt))
        citer = _Citer(response, numbered, prompt, unsupported_threshold, stream, embeddings, numbering)

        async def tokens() -> AsyncGenerator[str, None]:
            try:
                async for delta in deltas:
                    for token in citer.feed(delta):
                        yield token
                for token in citer.finish():
                    yield token
            except Exception as exc:
                response.error = exc
                raise
            if judge is not None:
                await averify_response(response, judge)

        response.response_gen = tokens()
        return response

    async def get_response(self) -> Response:
        await self.consume()
        return CitedResponse(self.response_txt, self.source_nodes, self.metadata)

    async def consume(self) -> CitedAnswer:
        """Read the rest of the stream; returns the cited answer."""
        async for _ in self._yield_response():
            pass
        return stream_answer(self.answer, self.error)

    async def _yield_response(self) -> AsyncGenerator[str, None]:
        async with self._lock:
            if self.answer is None:
                async for token in self.response_gen:
                    yield token
            else:
                yield self.response_txt or ""


def _metadata(numbered: NumberedNodes, prompt: CitationPrompt) -> dict[str, Any]:
    """The metadata of a cited stream before its answer is known."""
    return numbered.metadata(None, raw=None, shown=prompt.sources, dropped=prompt.dropped)


async def _empty() -> AsyncGenerator[str, None]:
    return
    yield  # pragma: no cover - makes this an async generator
