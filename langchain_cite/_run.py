"""One parse of ``CitationOutputParser``: sources and mode from the input dict, model output through the
core stream, and what the parser emits for its ``output`` (events, text or message chunks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk, BaseMessage

from cite_core import AnthropicCitationStream, CitationStream, FlagCalibration, Source

from ._answer import CitedRagAnswer, rag_answer
from ._documents import LEFT_OUT_KEY, SOURCE_DOCUMENTS_KEY, number_documents
from ._messages import answer_chunk, anthropic_events, cut_off, message_parts, text_chunk

if TYPE_CHECKING:
    from ._parser import CitationOutputParser

__all__ = ["ParseRun"]


class ParseRun:
    """The state of one parse: sources and mode from the input dict, then the core stream.

    ``feed`` and ``finish`` return what the parser streams for its ``output``: core events, text, or
    message chunks (``finish`` ends with the answer itself in ``answer`` mode).
    """

    def __init__(self, parser: CitationOutputParser) -> None:
        self.parser = parser
        self.sources: list[Source] | None = None
        self.native = False
        self.style: Any = "markers"
        self.documents: Mapping[int, list[Any]] = {}
        self.pending: list[Any] = []
        self.numbering: dict[str, Any] = {}
        self.known: list[Any] = []
        """Every number the conversation gave before this call (its cited messages carry it on)."""
        self.left_out: list[str] = []
        """Labels of the documents given that could not be sources (no text, no caption): reported."""
        self.tokens: list[Any] = []
        """The message chunks of the last ``feed`` or ``finish``, for the parser's chat model run."""
        self.stream: CitationStream | AnthropicCitationStream | None = None
        self.answer: CitedRagAnswer | None = None
        self.model: BaseMessage | None = None
        """The chat model's message (its streamed chunks added up): what it carried besides text is kept."""
        self.shown = 0
        """Characters of display text streamed so far."""
        self.reset_at: int | None = None
        """How many of them a lone ``</think>`` showed to be reasoning (the answer starts after them)."""
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
        self.style = chunk.get("citation_style", self.style)  # CitationSources' prompt style
        for key in ("display_numbers", "first_new"):  # a conversation's numbers (CitationSources)
            if chunk.get(key) is not None:
                self.numbering[key] = chunk[key]
        if isinstance(chunk.get("conversation_numbering"), list):
            self.known = chunk["conversation_numbering"]
        if isinstance(chunk.get(LEFT_OUT_KEY), list):  # CitationSources' skipped documents
            self.left_out = [str(label) for label in chunk[LEFT_OUT_KEY]]
        if parser.sources_key in chunk and self.stream is None:
            skipped: list[str] = []
            self.sources, documents = number_documents(chunk[parser.sources_key] or [], left_out=skipped)
            self.left_out = [*self.left_out, *(s for s in skipped if s not in self.left_out)]
            self.documents = documents or self.documents
        if isinstance(chunk.get(SOURCE_DOCUMENTS_KEY), Mapping):
            self.documents = chunk[SOURCE_DOCUMENTS_KEY]
        if parser.message_key in chunk:
            self.pending.append(chunk[parser.message_key])
            self._keep(chunk[parser.message_key])
        self.tokens = []
        if self.sources is None:
            return []
        events = self._drain()
        self._count(events)
        return self._shown(events)

    def finish(self) -> list[Any]:
        if self.sources is None:
            keys = "a message" if self.pending else "nothing"
            raise OutputParserException(
                f"{self.parser.name} got {keys} but no {self.parser.sources_key!r}: pass the sources of this "
                "run in the input dict (CitationSources puts them there)"
            )
        events = self._drain()
        stream = self._stream()
        answer = stream.finish(truncated=cut_off(self.model))
        if self.left_out:  # never dropped silently: the answer's left_out note names them
            answer = answer.model_copy(update={"left_out": [*answer.left_out, *self.left_out]})
        events.extend(stream.pending_events())
        final = self.answer = rag_answer(answer, self.sources, self.documents, self.known)
        text = "".join(e.text for e in events if e.type == "display_delta")
        self._count(events)
        if self.parser.output == "message":
            last = answer_chunk(final, text, self.model, id=self.message_id)
            if self.reset_at is not None:  # what was streamed before is not the answer: see _streaming
                last.response_metadata["answer_reset"] = self.reset_at
            self.tokens = [last]
            return self.tokens
        self.tokens = [text_chunk(text, id=self.message_id)] if text else []
        if self.parser.output == "answer":
            return [*self._shown(events, tokens=False), final]
        return _texts(events)

    def _keep(self, output: Any) -> None:
        """Add up the model's messages (chunks merge their tool calls, usage and metadata)."""
        if isinstance(output, AIMessageChunk) and isinstance(self.model, AIMessageChunk):
            self.model = self.model + output
        elif isinstance(output, BaseMessage):
            self.model = output

    def _shown(self, events: list[Any], *, tokens: bool = True) -> list[Any]:
        """What the parser streams of these core events; ``tokens``: what its chat model run reports
        (the text as shown, final numbers in place), whatever the output."""
        texts = [e.text for e in events if e.type == "display_delta" and e.text]
        if tokens:
            self.tokens = [text_chunk(t, id=self.message_id) for t in texts]
        output = self.parser.output
        if output == "answer":
            kinds = ("text_delta", "display_delta", "citations_delta", "answer_reset")
            return [e for e in events if e.type in kinds]  # display deltas: what to_ai_sdk_stream shows
        return _texts(events) if output == "text" else self.tokens

    def _count(self, events: list[Any]) -> None:
        """Count the display text streamed; an answer reset marks where the answer starts."""
        for event in events:
            if event.type == "display_delta":
                self.shown += len(event.text)
            elif event.type == "answer_reset":
                self.reset_at = self.shown

    def _stream(self) -> CitationStream | AnthropicCitationStream:
        if self.stream is None:
            options: dict[str, Any] = {
                "unsupported_threshold": calibrated(
                    self.parser.unsupported_threshold, self.parser.calibration
                ),
                **self.numbering,
            }
            options["display"] = True  # the text as shown (markers with final numbers), for every output
            if self.native:
                self.stream = AnthropicCitationStream(self.sources or [], **options)
            else:
                embeddings = self.parser.embeddings
                options["style"] = self.style
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


class AnswerResetText(str):
    """An empty string a text stream yields where a lone ``</think>`` showed that the text streamed
    before it was reasoning: joined, it changes nothing; a consumer that can take text back drops what
    it showed before it (``CitedChain.invoke`` does, so a stored answer never holds the reasoning)."""

    __slots__ = ()


def _texts(events: list[Any]) -> list[str]:
    """The display texts of ``events``, in order, an ``AnswerResetText`` where the answer restarted."""
    texts: list[str] = []
    for event in events:
        if event.type == "display_delta" and event.text:
            texts.append(event.text)
        elif event.type == "answer_reset":
            texts.append(AnswerResetText())
    return texts


def calibrated(threshold: float, calibration: FlagCalibration | None) -> float:
    """The flag threshold of a parse: the calibration's (checked by the core) when one is given."""
    return threshold if calibration is None else calibration.threshold_for(threshold)


def _refuse_native(output: Any) -> None:
    content = getattr(output, "content", None)
    if isinstance(content, list) and any(isinstance(b, Mapping) and b.get("citations") for b in content):
        raise OutputParserException(
            "the model answered with Anthropic citations but this run expects [n] markers: set native=True "
            "on CitationSources (create_cited_rag_chain does so for ChatAnthropic)"
        )
