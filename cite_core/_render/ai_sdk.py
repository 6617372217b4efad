"""A cited answer's stream as the Vercel AI SDK's UI message stream (Server-Sent Events).

React and Next.js chat UIs (``useChat``) read this protocol: ``data: {json}\\n\\n`` lines of parts,
``start``, ``text-start`` / ``text-delta`` / ``text-end`` (deltas of one ``id`` joined are the text),
``reasoning-start`` / ``reasoning-delta`` / ``reasoning-end``, ``source-url`` (``sourceId``, ``url``,
``title``) or ``source-document`` (``sourceId``, ``mediaType``, ``title``), custom ``data-*`` parts,
``finish``, then ``data: [DONE]``. The response carries the header ``x-vercel-ai-ui-message-stream: v1``
(``AI_SDK_HEADERS``).

``to_ai_sdk_stream`` reads this library's events, ending with the ``CitedAnswer``: the text deltas it
sends join to ``answer.text`` exactly (markers included, renumbered). It streams the display deltas
(``CitationStream(..., display=True)``, LangChain's ``stream()`` with ``output="answer"``, LlamaIndex's
display tokens as ``str``, or a LlamaIndex streaming response itself) as they come. A stream of plain
``TextDelta`` events only has no markers in it (its deltas join to ``plain_text``, not ``answer.text``),
so its text is sent when the answer is complete, with a warning on the ``cite_core`` logger: a UI that
showed plain text live would have to take it back to add the markers. Each reference gets one source
part as soon as it is first cited (``sourceId`` is its display number, as the ``[n]`` in the text; a
``source-document`` carries the source's media type), each citation a ``data-citation`` part (its
number and quoted text), and a verified answer a ``data-verification`` part (the judge's verdicts).
"""

from __future__ import annotations

import json
import logging
import mimetypes
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from .._args import check_items, check_text
from .._exceptions import ArgumentError
from .._schema.models import (
    AnswerReset,
    Citation,
    CitationsDelta,
    CitedAnswer,
    DisplayDelta,
    Reference,
    Source,
    TextDelta,
    ThinkingDelta,
)
from .._schema.source import IMAGE_KEY
from .._schema.verdicts import VerificationDelta
from .ai_sdk_responses import Cited, aresponse_items, is_response, response_items

__all__ = ["AI_SDK_HEADERS", "ato_ai_sdk_stream", "to_ai_sdk_stream"]

AI_SDK_HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The headers of a UI message stream response."""

logger = logging.getLogger("cite_core")


def _sse(part: dict[str, Any] | str) -> str:
    data = part if isinstance(part, str) else json.dumps(part, ensure_ascii=False, separators=(",", ":"))
    return f"data: {data}\n\n"


def _citation_part(citation: Citation) -> str:
    data = {
        "reference": citation.reference,
        "citedText": citation.cited_text,
        "title": citation.document_title,
    }
    return _sse({"type": "data-citation", "data": data})


def _media_type(source: Source) -> tuple[str, str | None]:
    """A source's media type (an image's own, else guessed from its file name; ``text/plain`` when
    nothing names one: the text is what was cited) and its file name when it has one."""
    meta = source.metadata
    names = [meta.get(k) for k in ("file_name", "file_path", "source", "path")] + [source.document_id]
    for name in names:
        if isinstance(name, str) and name.strip():
            guessed, _ = mimetypes.guess_type(name.strip(), strict=False)
            if guessed:
                return guessed, name.strip().replace("\\", "/").rsplit("/", 1)[-1]
    image = meta.get(IMAGE_KEY)
    if isinstance(image, Mapping):
        mimetype = image.get("mimetype")
        return (mimetype if isinstance(mimetype, str) and "/" in mimetype else "image/*"), None
    return "text/plain", None


def _source_part(number: int, source: Source) -> dict[str, Any]:
    """A ``source-url`` part for a source with a URL, else a ``source-document`` part."""
    title = source.label
    if source.url:
        return {"type": "source-url", "sourceId": str(number), "url": source.url, "title": title}
    media, filename = _media_type(source)
    part = {"type": "source-document", "sourceId": str(number), "mediaType": media, "title": title}
    return {**part, "filename": filename} if filename else part


def _verification_part(answer: CitedAnswer, delta: VerificationDelta | None) -> str | None:
    """The ``data-verification`` part of a verified answer: the judge and each cited claim's verdict."""
    verification = answer.verification or (delta.verification if delta is not None else None)
    if verification is None:
        return None
    claims = []
    for claim, verdict in zip(answer.claims, verification.verdicts or [None] * len(answer.claims)):
        markers = "".join(f"[{n}]" for n in dict.fromkeys(c.reference for c in claim.citations))
        level = verdict.model_dump(mode="json") if verdict is not None else None
        claims.append({"markers": markers, "claim": claim.text, "verdict": level})
    data = {
        "judge": verification.judge,
        "calls": verification.calls,
        "problem": verification.problem,
        "claims": claims,
    }
    return _sse({"type": "data-verification", "data": data})


class _Writer:
    def __init__(self, message_id: str, sources: dict[int, Source]) -> None:
        self.message_id = message_id
        self.sources = sources  # by source number (document_index + 1)
        self.parts = 0  # text parts opened so far: the current one's id is f"text-{parts}"
        self.open = False
        self.thinking = False
        self.sent: list[str] = []
        self.shown: set[int] = set()
        self.cited = False  # citation events seen (else the answer's citations are sent at the end)
        self.plain = False  # plain TextDelta events seen (their text is not the answer's: sent at the end)
        self.verified: VerificationDelta | None = None
        self.done = False  # the answer was read: the stream is complete

    def text(self, delta: str) -> Iterator[str]:
        if self.thinking:
            yield from self.end_reasoning()
        if not self.open:
            self.parts += 1
            self.open = True
            yield _sse({"type": "text-start", "id": f"text-{self.parts}"})
        if delta:
            self.sent.append(delta)
            yield _sse({"type": "text-delta", "id": f"text-{self.parts}", "delta": delta})

    def end_text(self) -> Iterator[str]:
        if self.open:
            self.open = False
            yield _sse({"type": "text-end", "id": f"text-{self.parts}"})

    def reasoning(self, delta: str) -> Iterator[str]:
        if not self.thinking:
            self.thinking = True
            yield _sse({"type": "reasoning-start", "id": f"reasoning-{self.parts}"})
        yield _sse({"type": "reasoning-delta", "id": f"reasoning-{self.parts}", "delta": delta})

    def end_reasoning(self) -> Iterator[str]:
        if self.thinking:
            self.thinking = False
            yield _sse({"type": "reasoning-end", "id": f"reasoning-{self.parts}"})

    def citation(self, citation: Citation, source: Source | None) -> Iterator[str]:
        number = citation.reference
        if number not in self.shown and source is not None:
            self.shown.add(number)
            yield _sse(_source_part(number, source))
        yield _citation_part(citation)

    def reference(self, ref: Reference) -> Iterator[str]:
        if ref.number not in self.shown:
            self.shown.add(ref.number)
            yield _sse(_source_part(ref.number, ref.source))

    def start(self) -> str:
        return _sse({"type": "start", "messageId": self.message_id})

    def item(self, item: Any) -> Iterator[str]:
        """The parts of one stream item; the answer ends the stream (``done``)."""
        answer = _answer_of(item)
        if answer is not None:
            self.done = True
            yield from self.finish(answer)
        elif isinstance(item, (DisplayDelta, str)):
            yield from self.text(item if isinstance(item, str) else item.text)
        elif isinstance(item, (CitationsDelta, Cited)):
            self.cited = True
            yield from self.citation(item.citation, self.sources.get(item.citation.document_index + 1))
        elif isinstance(item, ThinkingDelta):
            yield from self.reasoning(item.thinking)
        elif isinstance(item, AnswerReset):
            yield from self.end_text()
            self.sent = []
            self.cited = False  # the citations sent were the reasoning's: the answer's are sent
        elif isinstance(item, VerificationDelta):
            self.verified = item
        elif isinstance(item, TextDelta):  # plain text has no markers: the answer's text is sent at the end
            self.plain = True
        else:
            raise ArgumentError(f"items: expected stream events and a CitedAnswer, got {type(item).__name__}")

    def missing(self) -> None:
        raise ArgumentError(
            "items: the stream ended without its CitedAnswer (call finish() and pass its answer)"
        )

    def finish(self, answer: CitedAnswer) -> Iterator[str]:
        sent = "".join(self.sent)
        if not answer.text.startswith(sent):
            raise ArgumentError(
                "items: the text events do not add up to the answer's text (events of another answer, "
                "or display deltas mixed with another stream's)"
            )
        if self.plain and not sent and answer.text:
            logger.warning(
                "to_ai_sdk_stream: plain TextDelta events carry no markers, so the answer's text is sent "
                "once complete; stream display deltas (CitationStream(display=True)) to show it live"
            )
        if len(answer.text) > len(sent) or not self.parts:
            yield from self.text(answer.text[len(sent) :])
        for ref in answer.references:
            yield from self.reference(ref)
        if not self.cited:  # an answer alone (from_native), or plain events: its citations now
            for citation in answer.citations:
                yield _citation_part(citation)
        verification = _verification_part(answer, self.verified)
        if verification is not None:
            yield verification
        yield from self.end_reasoning()
        yield from self.end_text()
        yield _sse({"type": "finish", "finishReason": "length"} if answer.truncated else {"type": "finish"})
        yield _sse("[DONE]")


def _answer_of(item: Any) -> CitedAnswer | None:
    if isinstance(item, CitedAnswer):
        return item
    answer = getattr(item, "answer", None)  # a response object holding the answer (LlamaIndex)
    if not isinstance(answer, CitedAnswer):  # a chat engine's: in its metadata
        metadata = getattr(item, "metadata", None)
        answer = metadata.get("cited_answer") if isinstance(metadata, Mapping) else None
    return answer if isinstance(answer, CitedAnswer) else None


def to_ai_sdk_stream(
    items: Iterable[Any], *, sources: Iterable[Source] = (), message_id: str | None = None
) -> Iterator[str]:
    """The AI SDK UI message stream of ``items`` as SSE lines (``data: {...}\\n\\n``), ending with
    ``data: [DONE]``.

    ``items``: this library's stream events (``DisplayDelta``, ``TextDelta``, ``CitationsDelta``,
    ``ThinkingDelta``, ``AnswerReset``, ``VerificationDelta``; display tokens as ``str``), ending with the
    ``CitedAnswer`` (or an object whose ``answer`` or ``metadata["cited_answer"]`` is one); or a
    streaming response object itself (LlamaIndex's ``CitedStreamingResponse``, a ``CiteChatEngine``
    streamed turn): its ``response_gen`` tokens, then its answer, its ``metadata["answer_reset"]``
    read as an ``AnswerReset``. ``sources``: the sources the events cite, so that a reference
    first cited while streaming gets its URL in its source part at once (without them, references get
    their parts when the answer arrives). After an ``AnswerReset`` the text streamed before it was
    reasoning: its text part is closed and the answer starts a new one, whose deltas join to
    ``answer.text``. Items after the answer, or no answer, raise ``ArgumentError``.
    """
    known, message_id = _checked(items, sources, message_id)
    if is_response(items):
        items = response_items(items)
    elif isinstance(items, (str, bytes, bytearray, Mapping)) or not isinstance(items, Iterable):
        raise ArgumentError(
            "items must be an iterable of stream events ending with a CitedAnswer, "
            f"got {type(items).__name__}"
        )
    return _parts(items, _Writer(message_id, known))


async def ato_ai_sdk_stream(
    items: AsyncIterable[Any] | Iterable[Any],
    *,
    sources: Iterable[Source] = (),
    message_id: str | None = None,
) -> AsyncIterator[str]:
    """``to_ai_sdk_stream`` for an async web server: ``items`` may also be an async iterable of events
    (a LangChain chain's ``astream()``) or an async streaming response (LlamaIndex's ``aquery`` with
    ``streaming=True``, a chat engine's ``astream_chat`` turn)."""
    known, message_id = _checked(items, sources, message_id)
    writer = _Writer(message_id, known)
    stream: AsyncIterable[Any]
    if is_response(items):
        stream = aresponse_items(items)
    elif isinstance(items, AsyncIterable):
        stream = items
    elif isinstance(items, Iterable) and not isinstance(items, (str, bytes, bytearray, Mapping)):
        stream = _aiter(items)
    else:
        raise ArgumentError(
            "items must be an (async) iterable of stream events ending with a CitedAnswer, "
            f"got {type(items).__name__}"
        )
    yield writer.start()
    async for item in stream:
        for line in writer.item(item):
            yield line
        if writer.done:
            return
    writer.missing()


async def _aiter(items: Iterable[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def _checked(items: Any, sources: Iterable[Source], message_id: str | None) -> tuple[dict[int, Source], str]:
    """The sources by number (given, else those a response shows in ``metadata["sources"]``) and the id."""
    if is_response(items) and not sources:
        shown = getattr(items, "metadata", None) or {}
        if isinstance(shown, Mapping):  # the sources the model was shown (LlamaIndex's)
            sources = [s for s in shown.get("sources") or () if isinstance(s, Source)]
    known = check_items(sources, "sources", Source, "sources (Source objects)")
    check_text(message_id, "message_id", optional=True)
    return {s.number: s for s in known}, message_id or f"msg-{uuid.uuid4().hex}"


def _parts(items: Iterable[Any], writer: _Writer) -> Iterator[str]:
    yield writer.start()
    for item in items:
        yield from writer.item(item)
        if writer.done:
            return
    writer.missing()
