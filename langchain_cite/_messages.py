"""Model output in, LangChain messages out: text and Anthropic events from chunks, annotated AIMessages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.content import create_citation, create_text_block

from cite_core import CitedAnswer

__all__ = ["anthropic_events", "message_text", "to_ai_message"]

_SKIPPED = frozenset({"thinking", "redacted_thinking", "reasoning"})
"""Content blocks that are not part of the answer: skipped, never an error."""
_TEXT = frozenset({"text", "output_text", "text_delta"})


def _describe(output: Any) -> str:
    if isinstance(output, BaseMessage):
        if isinstance(output.content, list):
            kinds = sorted(
                {b.get("type", "?") if isinstance(b, Mapping) else type(b).__name__ for b in output.content}
            )
            return f"{type(output).__name__} with content blocks {kinds}"
        return f"{type(output).__name__} with {type(output.content).__name__} content"
    return type(output).__name__


def _blocks(output: Any) -> list[Any] | str:
    """The content of a message, a chunk or a string; a clear error for anything else."""
    if isinstance(output, str):
        return output
    if not isinstance(output, BaseMessage):
        raise OutputParserException(
            f"expected the model's output (an AIMessage, an AIMessageChunk or a str), got {_describe(output)}"
        )
    tool_calls = getattr(output, "tool_calls", None) or getattr(output, "tool_call_chunks", None)
    if tool_calls:
        names = sorted({str(c.get("name")) for c in tool_calls if c.get("name")})
        raise OutputParserException(f"the model called tools {names} instead of answering in text")
    return output.content if isinstance(output.content, (str, list)) else [output.content]


def _non_text(block: Any) -> OutputParserException:
    kind = block.get("type", "?") if isinstance(block, Mapping) else type(block).__name__
    return OutputParserException(f"the model returned a {kind!r} content block; only text can be cited")


def message_text(output: Any) -> str:
    """The answer text of a message or chunk (reasoning skipped); raises naming any non-text content."""
    content = _blocks(output)
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") in _TEXT:
            parts.append(block.get("text") or "")
        elif not (isinstance(block, Mapping) and block.get("type") in _SKIPPED):
            raise _non_text(block)
    return "".join(parts)


def anthropic_events(output: Any) -> list[dict[str, Any]]:
    """ChatAnthropic's message content (whole or streamed chunks) as Messages API streaming events.

    A whole message's blocks are numbered by position; streamed blocks carry their own ``index``.
    """
    content = _blocks(output)
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    events = []
    for position, block in enumerate(content):
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, Mapping) or block.get("type") not in _TEXT | _SKIPPED:
            raise _non_text(block)
        if block["type"] in _SKIPPED:
            continue
        index = block.get("index", position)
        if block.get("text"):
            delta = {"type": "text_delta", "text": block["text"]}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        for citation in block.get("citations") or []:
            delta = {"type": "citations_delta", "citation": citation}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
    return events


def to_ai_message(answer: CitedAnswer, **kwargs: Any) -> AIMessage:
    """The answer as an ``AIMessage`` with one text block carrying LangChain ``Citation`` annotations.

    The text is the answer without markers (``answer.plain_text``); each annotation's
    ``start_index``/``end_index`` is the cited claim in that text, ``cited_text`` the exact source
    text, and ``extras`` hold the Anthropic-shaped location, the reference number and the source
    offsets. ``kwargs`` go to ``AIMessage`` (``response_metadata``, ``id``, ...).
    """
    by_number = {ref.number: ref.source for ref in answer.references}
    annotations: list[Any] = []
    start = 0
    for block in answer.content:
        end = start + len(block.text)
        for citation in block.citations or []:
            source = by_number.get(citation.reference)
            extras = {
                **citation.to_anthropic(),
                "reference": citation.reference,
                "support": citation.support,
                "source_start": citation.source_start,
                "source_end": citation.source_end,
            }
            extras["location_type"] = extras.pop("type")
            extras.pop("cited_text")
            extras.pop("document_title")
            if source is not None and source.document_id:
                extras["document_id"] = source.document_id
            annotations.append(
                create_citation(
                    url=source.url if source is not None else None,
                    title=source.label if source is not None else citation.document_title,
                    start_index=start,
                    end_index=end,
                    cited_text=citation.cited_text,
                    **extras,
                )
            )
        start = end
    text_block = create_text_block(answer.plain_text, annotations=annotations or None)
    references = [
        {"number": ref.number, "title": ref.title, "url": ref.url, "document_index": ref.source.number - 1}
        for ref in answer.references
    ]
    metadata = {"references": references, "invalid_markers": list(answer.invalid_markers)}
    if getattr(answer, "no_sources", False):
        metadata["no_sources"] = True
    metadata.update(kwargs.pop("response_metadata", {}))
    return AIMessage(content=[dict(text_block)], response_metadata=metadata, **kwargs)
