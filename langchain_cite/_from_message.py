"""An ``AIMessage`` whose text blocks carry LangChain citation annotations, as a ``CitedAnswer``.

langchain-anthropic, langchain-openai and langchain-google put their providers' citations into
LangChain 1.x's standard content blocks (``message.content_blocks``: text blocks with ``annotations``
of type ``citation``). ``from_message`` hands those blocks to ``cite_core.from_native``, which reads
their offsets in the unit that reproduces ``cited_text`` (langchain-google copies Gemini's UTF-8 byte
offsets unconverted) and matches each cited document to ``documents``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage

from cite_core import ArgumentError, CitedAnswer, Source, from_native

from ._documents import documents_to_sources

__all__ = ["from_message"]


def _blocks(message: BaseMessage) -> list[Any]:
    """The message's standard content blocks (1.x), else its content as blocks (0.3)."""
    blocks: list[Any] | None
    try:
        blocks = list(message.content_blocks)  # the provider's format translated by langchain-core
    except (AttributeError, NotImplementedError, ValueError):
        blocks = None
    if blocks is None:
        content = message.content
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return [dict(b) if isinstance(b, Mapping) else {"type": "text", "text": b} for b in blocks]


def from_message(
    message: BaseMessage,
    documents: Iterable[Document | Source | Mapping[str, Any] | str] | None = None,
    **options: Any,
) -> CitedAnswer:
    """The ``CitedAnswer`` of an ``AIMessage`` with citation annotations (any provider).

    ``documents``: the documents the model was given (in the order sent, for Claude's document
    indices); each cited one is matched by position, id, URL, title or the text quoted, and the quote
    located in it. Without them, references carry the titles and URLs of the annotations, their
    quotes marked unverified. ``options``: as for ``cite_core.from_native`` (``unsupported_threshold``,
    ``display_numbers``, ``first_new``, ``calibration``)."""
    if not isinstance(message, BaseMessage):
        raise ArgumentError(
            f"message must be a LangChain message (an AIMessage), got {type(message).__name__}"
        )
    sources = documents_to_sources(documents) if documents is not None else None
    return from_native({"content": _blocks(message)}, sources, **options)
