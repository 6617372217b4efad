"""``CitationOutputParser``: model output in, citation events and the final ``CitedAnswer`` out, streaming."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Union, cast

from langchain_core.exceptions import OutputParserException
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    CitationsDelta,
    CitationStream,
    CitedAnswer,
    Source,
    TextDelta,
    ThinkingDelta,
)
from cite_core._anthropic import AnthropicCitationStream

from ._documents import documents_to_sources
from ._messages import anthropic_events, message_text

__all__ = ["CitationOutputParser", "CitedRagAnswer", "StreamItem"]


class CitedRagAnswer(CitedAnswer):
    """A ``CitedAnswer`` that also knows every source shown to the model (cited or not)."""

    sources: list[Source] = Field(default_factory=list, exclude=True)
    """The numbered sources of this run; ``references`` are the cited ones among them."""

    @property
    def no_sources(self) -> bool:
        """Whether the retriever returned nothing: the model was told so and the answer cites nothing."""
        return not self.sources


StreamItem = Union[TextDelta, CitationsDelta, ThinkingDelta, CitedRagAnswer]
"""What ``CitationOutputParser`` streams: text and citation events, then the finished answer."""


class CitationOutputParser(RunnableSerializable[Any, StreamItem]):
    """Parse model output into citation events and a ``CitedRagAnswer``; it streams as the model writes.

    The input is a dict holding the sources of this run and the model's output, the shape that
    ``CitationSources() | RunnablePassthrough.assign(message=prompt | llm)`` produces::

        {"sources": [...], "message": AIMessage | AIMessageChunk | str, "native": False, ...}

    ``sources`` may be the ``Source``s from ``CitationSources`` (the numbering the model saw) or the
    retrieved ``Document``s (numbered here the same way). ``native=True`` reads Claude's own
    ``citations`` (ChatAnthropic given document blocks) instead of ``[n]`` markers.

    ``invoke`` returns the answer; ``stream`` yields ``TextDelta`` and ``CitationsDelta`` events as the
    model writes, then the answer, equal to ``invoke``'s.
    """

    sources_key: str = "sources"
    """Input key holding the sources of this run."""
    message_key: str = "message"
    """Input key holding the model's output (a message, message chunks or a string)."""
    native_key: str = "native"
    """Input key that, when true, reads Claude's native ``citations`` instead of markers."""
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD
    """Citations with a lower support score are listed in ``answer.unsupported_citations``."""
    name: str | None = "CitationOutputParser"

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @property
    def OutputType(self) -> Any:
        return StreamItem

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> CitedRagAnswer:
        return cast(CitedRagAnswer, self._call_with_config(self._parse, input, config, run_type="parser"))

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> CitedRagAnswer:
        answer = await self._acall_with_config(self._aparse, input, config, run_type="parser")
        return cast(CitedRagAnswer, answer)

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[StreamItem]:
        yield from self._transform_stream_with_config(input, self._transform, config, run_type="parser")

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[StreamItem]:
        async for item in self._atransform_stream_with_config(
            input, self._atransform, config, run_type="parser"
        ):
            yield item

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[StreamItem]:
        yield from self.transform(iter([input]), config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[StreamItem]:
        async def once() -> AsyncIterator[Any]:
            yield input

        async for item in self.atransform(once(), config, **kwargs):
            yield item

    # -- implementation ------------------------------------------------------------------------

    def _parse(self, input: Any) -> CitedRagAnswer:
        run = _Run(self)
        run.feed(input)
        return run.finish()[-1]  # type: ignore[return-value]

    async def _aparse(self, input: Any) -> CitedRagAnswer:
        return self._parse(input)

    def _transform(self, input: Iterator[Any]) -> Iterator[StreamItem]:
        run = _Run(self)
        for chunk in input:
            yield from run.feed(chunk)
        yield from run.finish()

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[StreamItem]:
        run = _Run(self)
        async for chunk in input:
            for item in run.feed(chunk):
                yield item
        for item in run.finish():
            yield item


class _Run:
    """The state of one parse: sources and mode from the input dict, then the core stream."""

    def __init__(self, parser: CitationOutputParser) -> None:
        self.parser = parser
        self.sources: list[Source] | None = None
        self.native = False
        self.pending: list[Any] = []
        self.stream: CitationStream | AnthropicCitationStream | None = None

    def feed(self, chunk: Any) -> list[StreamItem]:
        parser = self.parser
        if not isinstance(chunk, Mapping):
            raise OutputParserException(
                f"{parser.name} needs the sources of this run with the model output: give it a dict "
                f"{{{parser.sources_key!r}: [...], {parser.message_key!r}: <model output>}} (for example "
                f"CitationSources() | RunnablePassthrough.assign({parser.message_key}=prompt | llm)), "
                f"got {type(chunk).__name__}"
            )
        if parser.native_key in chunk:
            self.native = bool(chunk[parser.native_key])
        if parser.sources_key in chunk and self.stream is None:
            self.sources = documents_to_sources(chunk[parser.sources_key] or [])
        if parser.message_key in chunk:
            self.pending.append(chunk[parser.message_key])
        return self._drain() if self.sources is not None else []

    def finish(self) -> list[StreamItem]:
        if self.sources is None:
            keys = "a message" if self.pending else "nothing"
            raise OutputParserException(
                f"{self.parser.name} got {keys} but no {self.parser.sources_key!r}: pass the sources of this "
                "run in the input dict (CitationSources puts them there)"
            )
        items = self._drain()
        stream = self._stream()
        answer = stream.finish()
        items.extend(stream.pending_events())
        items.append(CitedRagAnswer.model_construct(**dict(answer), sources=self.sources))
        return items

    def _stream(self) -> CitationStream | AnthropicCitationStream:
        if self.stream is None:
            threshold = self.parser.unsupported_threshold
            kind = AnthropicCitationStream if self.native else CitationStream
            self.stream = kind(self.sources or [], unsupported_threshold=threshold)
        return self.stream

    def _drain(self) -> list[StreamItem]:
        stream, pending, self.pending = self._stream(), self.pending, []
        items: list[StreamItem] = []
        for output in pending:
            if isinstance(stream, AnthropicCitationStream):
                for event in anthropic_events(output):
                    items.extend(stream.feed(event))
            else:
                _refuse_native(output)
                items.extend(stream.feed(message_text(output)))
        return items


def _refuse_native(output: Any) -> None:
    content = getattr(output, "content", None)
    if isinstance(content, list) and any(isinstance(b, Mapping) and b.get("citations") for b in content):
        raise OutputParserException(
            "the model answered with Anthropic citations but this run expects [n] markers: set native=True "
            "on CitationSources (create_cited_rag_chain does so for ChatAnthropic)"
        )
