"""``CitationOutputParser``: model output in, citation events and the final ``CitedAnswer`` out, streaming."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Literal
from uuid import uuid4

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    AnthropicCitationStream,
    CitationsDelta,
    CitationStream,
    Source,
    TextDelta,
)

from ._answer import CitedRagAnswer, rag_answer
from ._chatrun import achat_run, atoken, chat_run, result, token
from ._compat import content_helpers
from ._documents import SOURCE_DOCUMENTS_KEY, number_documents
from ._messages import (
    answer_chunk,
    anthropic_events,
    message_parts,
    text_chunk,
    to_ai_message,
)

__all__ = ["CitationOutputParser", "Output", "StreamItem"]


StreamItem = TextDelta | CitationsDelta | CitedRagAnswer
"""What ``CitationOutputParser`` streams by default: text and citation events, then the finished answer."""

Output = Literal["answer", "message", "text"]
"""``answer``: a ``CitedRagAnswer`` (streams events); ``message``: an ``AIMessage`` with annotations (streams
``AIMessageChunk``\\ s); ``text``: the answer text with renumbered markers (streams ``str``)."""


class CitationOutputParser(RunnableSerializable[Any, StreamItem]):
    """Parse model output into citation events and a ``CitedRagAnswer``; it streams as the model writes.

    The input is a dict holding the sources of this run and the model's output, the shape that
    ``CitationSources() | RunnablePassthrough.assign(message=prompt | llm)`` produces::

        {"sources": [...], "message": AIMessage | AIMessageChunk | str, "native": False, ...}

    ``sources`` may be the ``Source``s from ``CitationSources`` (the numbering the model saw) or the
    retrieved ``Document``s (numbered here the same way). ``native=True`` reads Claude's own
    ``citations`` (ChatAnthropic given document blocks) instead of ``[n]`` markers.

    ``invoke`` returns the answer; ``stream`` yields ``TextDelta`` and ``CitationsDelta`` events as the
    model writes, then the answer, equal to ``invoke``'s. With ``output="message"``, ``invoke`` returns
    an ``AIMessage`` (renumbered markers, LangChain ``Citation`` annotations) and ``stream`` yields
    ``AIMessageChunk``\\ s of the renumbered text, the annotations on the last one; with
    ``output="text"`` both give the renumbered text.
    """

    sources_key: str = "sources"
    """Input key holding the sources of this run."""
    message_key: str = "message"
    """Input key holding the model's output (a message, message chunks or a string)."""
    native_key: str = "native"
    """Input key that, when true, reads Claude's native ``citations`` instead of markers."""
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD
    """Citations with a lower support score are listed in ``answer.unsupported_citations``."""
    output: Output = "answer"
    """What ``invoke`` returns and ``stream`` yields (see the class docstring)."""
    embeddings: Any = Field(default=None, exclude=True)
    """An embedding model (LangChain ``Embeddings``) mixed into localisation and support; lexical if None."""
    name: str | None = "CitationOutputParser"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.output == "message":
            content_helpers('CitationOutputParser(output="message")')

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        """The public module path (``langchain_cite``), for ``dumps`` / ``loads``."""
        return ["langchain_cite"]

    @property
    def OutputType(self) -> Any:
        return {"answer": StreamItem, "message": AIMessage, "text": str}[self.output]

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> CitedRagAnswer:
        return self._call_with_config(self._parse, input, config, run_type="parser")

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> CitedRagAnswer:
        return await self._acall_with_config(self._aparse, input, config, run_type="parser")

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

    def _parse(self, input: Any) -> Any:
        run = _Run(self)
        run.feed(input)
        run.finish()
        answer = run.answer
        if self.output == "message":
            return to_ai_message(answer, markers=True)
        return answer.text if self.output == "text" else answer

    async def _aparse(self, input: Any) -> Any:
        return self._parse(input)

    def _transform(
        self, input: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[Any]:
        run = _Run(self)
        chat = chat_run(run_manager) if self.output == "message" else None
        for chunk in input:
            for item in run.feed(chunk):
                token(chat, item)
                yield item
        for item in run.finish():
            token(chat, item)
            yield item
        if chat is not None:
            chat.on_llm_end(result(to_ai_message(run.answer, markers=True, id=run.message_id)))

    async def _atransform(
        self, input: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> AsyncIterator[Any]:
        run = _Run(self)
        chat = await achat_run(run_manager) if self.output == "message" else None
        async for chunk in input:
            for item in run.feed(chunk):
                await atoken(chat, item)
                yield item
        for item in run.finish():
            await atoken(chat, item)
            yield item
        if chat is not None:
            await chat.on_llm_end(result(to_ai_message(run.answer, markers=True, id=run.message_id)))


class _Run:
    """The state of one parse: sources and mode from the input dict, then the core stream.

    ``feed`` and ``finish`` return what the parser streams for its ``output``: core events, text, or
    message chunks (``finish`` ends with the answer itself in ``answer`` mode).
    """

    def __init__(self, parser: CitationOutputParser) -> None:
        self.parser = parser
        self.sources: list[Source] | None = None
        self.native = False
        self.documents: Mapping[int, list[Any]] = {}
        self.pending: list[Any] = []
        self.stream: CitationStream | AnthropicCitationStream | None = None
        self.answer: CitedRagAnswer | None = None
        self.message_id = f"cited-{uuid4()}"
        """One id for every streamed chunk and the final message, so chat UIs merge them."""

    def feed(self, chunk: Any) -> list[Any]:
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
            self.sources, documents = number_documents(chunk[parser.sources_key] or [])
            self.documents = documents or self.documents
        if isinstance(chunk.get(SOURCE_DOCUMENTS_KEY), Mapping):
            self.documents = chunk[SOURCE_DOCUMENTS_KEY]
        if parser.message_key in chunk:
            self.pending.append(chunk[parser.message_key])
        return self._shown(self._drain()) if self.sources is not None else []

    def finish(self) -> list[Any]:
        if self.sources is None:
            keys = "a message" if self.pending else "nothing"
            raise OutputParserException(
                f"{self.parser.name} got {keys} but no {self.parser.sources_key!r}: pass the sources of this "
                "run in the input dict (CitationSources puts them there)"
            )
        events = self._drain()
        stream = self._stream()
        answer = stream.finish()
        events.extend(stream.pending_events())
        final = self.answer = rag_answer(answer, self.sources, self.documents)
        if self.parser.output == "answer":
            return [*self._shown(events), final]
        text = "".join(e.text for e in events if e.type == "display_delta")
        if self.native:  # Claude's own citations: the display text is known once the answer is
            text = final.text
        if self.parser.output == "text":
            return [text] if text else []
        return [answer_chunk(final, text, id=self.message_id)]

    def _shown(self, events: list[Any]) -> list[Any]:
        """What the parser streams of these core events."""
        output = self.parser.output
        if output == "answer":
            return [e for e in events if e.type in ("text_delta", "citations_delta")]
        if self.native:
            return []
        texts = [e.text for e in events if e.type == "display_delta" and e.text]
        return texts if output == "text" else [text_chunk(t, id=self.message_id) for t in texts]

    def _stream(self) -> CitationStream | AnthropicCitationStream:
        if self.stream is None:
            options: dict[str, Any] = {"unsupported_threshold": self.parser.unsupported_threshold}
            if self.native:
                self.stream = AnthropicCitationStream(self.sources or [], **options)
            else:
                if self.parser.output != "answer":
                    options["display"] = True
                embeddings = self.parser.embeddings
                self.stream = CitationStream(self.sources or [], embeddings=embeddings, **options)
        return self.stream

    def _drain(self) -> list[Any]:
        stream, pending, self.pending = self._stream(), self.pending, []
        events: list[Any] = []
        for output in pending:
            if isinstance(stream, AnthropicCitationStream):
                for event in anthropic_events(output):
                    events.extend(stream.feed(event))
                continue
            _refuse_native(output)
            text, reasoning = message_parts(output)
            if reasoning:
                events.extend(stream.feed_reasoning(reasoning))
            if text:
                events.extend(stream.feed(text))
        return events


def _refuse_native(output: Any) -> None:
    content = getattr(output, "content", None)
    if isinstance(content, list) and any(isinstance(b, Mapping) and b.get("citations") for b in content):
        raise OutputParserException(
            "the model answered with Anthropic citations but this run expects [n] markers: set native=True "
            "on CitationSources (create_cited_rag_chain does so for ChatAnthropic)"
        )
