"""BaseSynthesizer's text-chunk API for ``CiteSynthesizer``: plain text chunks answered as nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.schema import NodeWithScore, TextNode

__all__ = ["TextChunkAnswers"]


class TextChunkAnswers:
    """``get_response`` / ``aget_response`` of a synthesizer whose ``synthesize`` takes nodes."""

    def get_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> str:
        """The cited answer's text over plain text chunks (each one a source)."""
        synthesizer: Any = self
        return str(
            synthesizer.synthesize(query_str, [NodeWithScore(node=TextNode(text=t)) for t in text_chunks])
        )

    async def aget_response(self, query_str: str, text_chunks: Sequence[str], **kwargs: Any) -> str:
        """The cited answer's text over plain text chunks (each one a source)."""
        synthesizer: Any = self
        nodes = [NodeWithScore(node=TextNode(text=t)) for t in text_chunks]
        return str(await synthesizer.asynthesize(query_str, nodes))
