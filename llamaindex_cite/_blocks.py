"""LlamaIndex citation blocks in and out: a ``ChatResponse``'s ``CitationBlock``\\ s as a
``CitedAnswer``, and a cited answer as ``ChatMessage`` blocks (``TextBlock`` then its
``CitationBlock``\\ s) for LlamaIndex UIs.

llama-index-llms-anthropic puts each Claude citation after the text block it supports, as a
``CitationBlock`` (the quoted text, the source, its title, the result index and block range). They are
handed to ``cite_core.from_native`` as citation annotations of that text block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, CitationBlock, MessageRole, TextBlock
from llama_index.core.schema import NodeWithScore

from cite_core import ArgumentError, CitedAnswer, from_native

from ._convert import number_nodes

__all__ = ["from_chat_response", "to_chat_message"]


def _annotation(block: CitationBlock) -> dict[str, Any]:
    cited = block.cited_content
    note: dict[str, Any] = {
        "type": "citation",
        "title": block.title,
        "extras": dict(block.additional_location_info),
    }
    if isinstance(cited, TextBlock):
        note["cited_text"] = cited.text
    if block.source.startswith(("http://", "https://")):
        note["url"] = block.source
    elif block.source:
        note["id"] = block.source
    return note


def from_chat_response(
    response: Any, nodes: Sequence[NodeWithScore] | None = None, **options: Any
) -> CitedAnswer:
    """The ``CitedAnswer`` of a ``ChatResponse`` (or ``ChatMessage``) whose blocks hold ``CitationBlock``\\ s.

    ``nodes``: the nodes sent (in order: a citation's ``search_result_index`` names the node at that
    position); each cited one is matched by position, id, URL, title or quoted text. ``options``: as
    for ``cite_core.from_native``."""
    message = getattr(response, "message", response)
    if not isinstance(message, ChatMessage):
        raise ArgumentError(
            f"response must be a ChatResponse or a ChatMessage, got {type(response).__name__}"
        )
    content: list[dict[str, Any]] = []
    leading: list[dict[str, Any]] = []  # citations before any text: of the text block that follows
    for block in message.blocks:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text, "annotations": leading})
            leading = []
        elif isinstance(block, CitationBlock):
            (content[-1]["annotations"] if content else leading).append(_annotation(block))
    if leading:  # citations and no text at all: they cite nothing (a span outside the text: reported)
        content.append(
            {
                "type": "text",
                "text": "",
                "annotations": [{**n, "start_index": 0, "end_index": 1} for n in leading],
            }
        )
    sources = number_nodes(list(nodes), merge=False).sources if nodes is not None else None
    return from_native({"content": content}, sources, **options)


def to_chat_message(answer: Any) -> ChatMessage:
    """A cited answer (a ``CitedAnswer``, or a cited ``Response`` holding one in ``metadata``) as an
    assistant ``ChatMessage``: each block's text, then one ``CitationBlock`` per citation (the cited text,
    the source's URL or label, its title, and ``document_index``, ``reference``, ``start_char_index``,
    ``end_char_index`` as location info)."""
    if not isinstance(answer, CitedAnswer):
        metadata = getattr(answer, "metadata", None) or {}
        answer = metadata.get("cited_answer") if isinstance(metadata, dict) else None
        if not isinstance(answer, CitedAnswer):
            raise ArgumentError("answer must be a CitedAnswer or a cited Response (metadata['cited_answer'])")
    by_number = {ref.number: ref.source for ref in answer.references}
    blocks: list[Any] = []
    for block in answer.content:
        if block.text:
            blocks.append(TextBlock(text=block.text))
        for citation in block.citations or []:
            source = by_number[citation.reference]
            location = {"document_index": citation.document_index, "reference": citation.reference}
            location.update(start_char_index=citation.source_start, end_char_index=citation.source_end)
            blocks.append(
                CitationBlock(
                    cited_content=TextBlock(text=citation.cited_text),
                    source=source.url or source.document_id or source.label,
                    title=source.label,
                    additional_location_info=location,
                )
            )
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks)
