"""Model output in, LangChain messages out: answer and reasoning text from chunks, annotated AIMessages.

Text blocks are the answer; reasoning blocks (``reasoning``, ``thinking``) and
``additional_kwargs["reasoning_content"]`` are the model's thinking; every other block (``tool_call``,
``tool_use``, ``server_tool_use``, images, ...) is not part of the answer and is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage

from cite_core import CitedAnswer, TruncatedOutputError, reference_entries, source_key

from ._compat import content_helpers, has_content_blocks

__all__ = [
    "answer_chunk",
    "anthropic_events",
    "as_output",
    "history_message",
    "message_parts",
    "message_text",
    "to_ai_message",
]

_REASONING = frozenset({"reasoning", "thinking"})
"""Reasoning block types; each holds its text under the key named like its type."""
_TEXT = frozenset({"text", "output_text", "text_delta"})
_PROVIDER_FORMAT = frozenset({"model_provider", "output_version"})
"""Response metadata naming the format of the model's content, which ours does not have."""


def _content(output: Any) -> list[Any] | str:
    """The content of a message, a chunk or a string; a clear error for anything else."""
    if isinstance(output, str):
        return output
    if not isinstance(output, BaseMessage):
        raise OutputParserException(
            "expected the model's output (an AIMessage, an AIMessageChunk or a str), "
            f"got {type(output).__name__}"
        )
    return output.content if isinstance(output.content, (str, list)) else [output.content]


def message_parts(output: Any) -> tuple[str, str]:
    """``(answer text, reasoning text)`` of a message or chunk; tool calls and other blocks are skipped."""
    content = _content(output)
    reasoning = []
    if isinstance(output, BaseMessage):
        extra = output.additional_kwargs.get("reasoning_content")
        if isinstance(extra, str):
            reasoning.append(extra)
    if isinstance(content, str):
        return content, "".join(reasoning)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") in _TEXT:
            parts.append(block.get("text") or "")
        elif isinstance(block, Mapping) and block.get("type") in _REASONING:
            text = block.get(block["type"])
            reasoning.append(text if isinstance(text, str) else "")
    return "".join(parts), "".join(reasoning)


def cut_off(output: Any) -> bool:
    """Whether a model's message says it was cut off at its token limit (``response_metadata``), or is
    a ``ChatOpenAI`` stream that ended without a finish reason (the connection dropped)."""
    if not isinstance(output, BaseMessage):
        return False
    metadata = output.response_metadata
    reasons = (metadata.get("finish_reason"), metadata.get("stop_reason"))
    if any(isinstance(r, str) and r.lower() in TruncatedOutputError.REASONS for r in reasons):
        return True
    # OpenAI's client ends a stream whose connection closed early quietly; its last chunk says why it ended
    return (
        isinstance(output, AIMessageChunk)
        and metadata.get("model_provider") == "openai"
        and "finish_reason" not in metadata
    )


def message_text(output: Any) -> str:
    """The answer text of a message or chunk (reasoning, tool calls and other non-text blocks skipped)."""
    return message_parts(output)[0]


def anthropic_events(output: Any) -> list[dict[str, Any]]:
    """ChatAnthropic's message content (whole or streamed chunks) as Messages API streaming events.

    A whole message's blocks are numbered by position; streamed blocks carry their own ``index``.
    Blocks that are not text (thinking, tool use) are skipped.
    """
    content = _content(output)
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    events = []
    for position, block in enumerate(content):
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, Mapping) or block.get("type") not in _TEXT:
            continue
        index = block.get("index", position)
        if block.get("text"):
            delta = {"type": "text_delta", "text": block["text"]}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        for citation in block.get("citations") or []:
            delta = {"type": "citations_delta", "citation": citation}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
    return events


def _annotations(answer: CitedAnswer, markers: bool) -> list[Any]:
    """LangChain ``Citation`` annotations of every citation, spanning its claim in ``answer.text`` (when
    ``markers``) or in ``answer.plain_text``."""
    helpers = content_helpers("Citation annotations")
    by_number = {ref.number: ref for ref in answer.references}
    where = {e["number"]: e for e in reference_entries(answer)}
    annotations = []
    for claim in answer.claims:
        start, end = (claim.start, claim.end) if markers else (claim.plain_start, claim.plain_end)
        for citation in claim.citations:
            ref = by_number.get(citation.reference)
            source = ref.source if ref is not None else None
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
            extras.update(
                _where(where.get(citation.reference), citation.cited_text, extras.get("start_page_number"))
            )
            annotations.append(
                helpers.create_citation(
                    url=source.url if source is not None else None,
                    title=ref.title if ref is not None else citation.document_title,
                    start_index=start,
                    end_index=end,
                    cited_text=citation.cited_text,
                    **extras,
                )
            )
    return annotations


def _where(entry: Mapping[str, Any] | None, cited_text: str, page: Any) -> dict[str, Any]:
    """Where a citation's text is: the source's ``path`` and a ``link`` opening it at the passage (each
    left out when there is none, as LangChain leaves out empty annotation fields)."""
    if entry is None:
        return {}
    link = next(
        (p["link"] for p in entry["passages"] if p["cited_text"] == cited_text and p["page"] == page), None
    )
    return {k: v for k, v in (("path", entry["path"]), ("link", link)) if v is not None}


def _metadata(answer: CitedAnswer) -> dict[str, Any]:
    where = {e["number"]: e for e in reference_entries(answer)}
    references = [
        {
            "number": ref.number,
            "title": ref.title,
            "url": ref.url,
            "document_index": ref.source.number - 1,
            "key": source_key(ref.source),  # which source the number means, for later turns and reloads
            "pages": getattr(ref, "pages_shown", None),  # printed page labels when the documents have them
            # where the text is: the file path as the metadata gives it, the physical pages cited, and a
            # link opening the source at the first cited passage (a web URL with a text fragment)
            "path": where[ref.number]["path"],
            "page_range": where[ref.number]["page_range"],
            "link": where[ref.number]["link"],
        }
        for ref in answer.references
    ]
    metadata: dict[str, Any] = {"references": references, "invalid_markers": list(answer.invalid_markers)}
    numbering = getattr(answer, "numbering", None)
    if numbering:
        metadata["numbering"] = numbering  # the whole conversation's, so any suffix restores it
    if getattr(answer, "no_sources", False):
        metadata["no_sources"] = True
    if getattr(answer, "reasoning", ""):
        metadata["reasoning"] = answer.reasoning
    if getattr(answer, "stopped_in_reasoning", False):
        metadata["stopped_in_reasoning"] = True
    if getattr(answer, "truncated", False):
        metadata["truncated"] = True  # cut off: the notes say so
    return metadata


def _kept(model: BaseMessage | None, metadata: dict[str, Any], chunk: bool = False) -> dict[str, Any]:
    """What the model's own message carried beside its text, kept on ours: tool calls (chunks when
    streaming), usage, its response metadata (ours added to it) and additional kwargs."""
    if model is None:
        return {"response_metadata": metadata}
    # our content is standard blocks, not the provider's: its translator must not read them
    theirs = {k: v for k, v in model.response_metadata.items() if k not in _PROVIDER_FORMAT}
    kept: dict[str, Any] = {
        "response_metadata": {**theirs, **metadata},
        "additional_kwargs": dict(model.additional_kwargs),
    }
    usage = getattr(model, "usage_metadata", None)
    if usage:
        kept["usage_metadata"] = usage
    if chunk:
        kept["tool_call_chunks"] = list(getattr(model, "tool_call_chunks", None) or [])
    else:
        kept["tool_calls"] = list(getattr(model, "tool_calls", None) or [])
        kept["invalid_tool_calls"] = list(getattr(model, "invalid_tool_calls", None) or [])
    return kept


def _reasoning_block(answer: CitedAnswer, model: BaseMessage | None, **index: int) -> list[dict[str, Any]]:
    """The reasoning of a chat-model-like step (``model`` given) as a standard ``reasoning`` block after
    the text (none without reasoning)."""
    if model is None or not answer.reasoning:
        return []
    return [{"type": "reasoning", "reasoning": answer.reasoning, **index}]


def to_ai_message(
    answer: CitedAnswer, *, markers: bool = False, model: BaseMessage | None = None, **kwargs: Any
) -> AIMessage:
    """The answer as an ``AIMessage`` with one text block carrying LangChain ``Citation`` annotations.

    The text is the answer without markers (``answer.plain_text``), or with its renumbered markers
    (``answer.text``) when ``markers``; each annotation's ``start_index``/``end_index`` is the cited claim
    in that text, ``cited_text`` the exact source text, and ``extras`` hold the Anthropic-shaped location,
    the reference number and the source offsets. ``kwargs`` go to ``AIMessage`` (``response_metadata``,
    ``id``, ...). ``model``: the chat model's own message, whose tool calls, usage, response metadata
    and additional kwargs are kept (a chat-model-like step); the reasoning follows the text as a
    ``reasoning`` block. Needs langchain-core 1.x (content-block annotations).
    """
    helpers = content_helpers("to_ai_message")
    text = answer.text if markers else answer.plain_text
    block = helpers.create_text_block(text, annotations=_annotations(answer, markers) or None)
    metadata = {**_metadata(answer), **kwargs.pop("response_metadata", {})}
    content = [block, *_reasoning_block(answer, model)]
    return AIMessage(content=content, **_kept(model, metadata), **kwargs)


def without_reset(message: Any) -> Any:
    """A streamed cited message added up, without the text streamed before a lone ``</think>`` (the
    last chunk's ``response_metadata["answer_reset"]``: how many characters were reasoning): the
    answer its annotations index. Other messages as they are."""
    if not isinstance(message, AIMessage) or "answer_reset" not in message.response_metadata:
        return message
    metadata = dict(message.response_metadata)
    reset = metadata.pop("answer_reset")
    content = []
    for block in message.content if isinstance(message.content, list) else [message.content]:
        if isinstance(reset, int) and isinstance(block, dict) and block.get("type") == "text":
            block = {**block, "text": block["text"][reset:]}
            reset = None
        content.append(block)
    return message.model_copy(update={"content": content, "response_metadata": metadata})


def history_message(answer: CitedAnswer) -> AIMessage:
    """A ``CitedAnswer`` in ``chat_history`` as the message a later turn reads: ``to_ai_message`` with
    its markers, or, on langchain-core 0.3 (no content blocks), its text with the same references in
    ``response_metadata``, which is all one numbering across turns reads."""
    if has_content_blocks():
        return to_ai_message(answer, markers=True)
    return AIMessage(content=answer.text, response_metadata=_metadata(answer))


def as_output(answer: CitedAnswer, output: str, model: BaseMessage | None = None) -> Any:
    """The answer as ``output`` asks: itself (``answer``), an ``AIMessage`` with renumbered markers
    (``message``; keeping what ``model``, the chat model's message, carried) or its renumbered text."""
    if output == "message":
        return to_ai_message(answer, markers=True, model=model)
    return answer.text if output == "text" else answer


def answer_chunk(
    answer: CitedAnswer, text: str, model: BaseMessage | None = None, **kwargs: Any
) -> AIMessageChunk:
    """The last streamed chunk: the remaining ``text``, every annotation (spans in ``answer.text``), the
    reasoning, and what the model's streamed message (``model``, its chunks added up) carried."""
    helpers = content_helpers("streaming an AIMessage with citations")
    block = helpers.create_text_block(text, annotations=_annotations(answer, True) or None, index=0)
    block.pop("id", None)  # one block across chunks: ids would not merge
    extra = {"chunk_position": "last"} if "chunk_position" in AIMessageChunk.model_fields else {}
    content = [block, *_reasoning_block(answer, model, index=1)]
    return AIMessageChunk(content=content, **_kept(model, _metadata(answer), chunk=True), **extra, **kwargs)


def text_chunk(text: str, **kwargs: Any) -> AIMessageChunk:
    """A streamed chunk of answer text (one text block at index 0, so chunks add up to one block)."""
    return AIMessageChunk(content=[{"type": "text", "text": text, "index": 0}], **kwargs)
