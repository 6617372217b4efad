"""Claude's own citations through ``llama-index-llms-anthropic``, mapped by cite_core to a ``CitedAnswer``.

llama-index-llms-anthropic sends citable content to Claude as ``search_result`` blocks (LlamaIndex's
``CitableBlock``) with citations enabled; Claude then cites ranges of their text blocks
(``search_result_location``: result index, block range, ``cited_text``). Each shown source becomes one
search result whose blocks are its sentences, so Claude cites sentences (as it does in plain-text
documents). ``cite_core.from_anthropic_content`` / ``AnthropicCitationStream``, given those sentence spans
(``search_result_blocks``), make each citation the ``char_location`` of its sentences in the source and
do the rest, as on the LangChain side.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock

from cite_core import (
    AnthropicCitationStream,
    CitedAnswer,
    Source,
    StreamEvent,
    TextDelta,
    from_anthropic_content,
    split_sentences,
)

__all__ = ["ClaudeSources", "ClaudeStream", "is_claude"]


def is_claude(llm: Any) -> bool:
    """Whether ``llm`` is llama-index-llms-anthropic's ``Anthropic`` (only checked once it is imported)."""
    anthropic = getattr(sys.modules.get("llama_index.llms.anthropic"), "Anthropic", None)
    return anthropic is not None and isinstance(llm, anthropic)


class ClaudeSources:
    """The shown sources as Claude search results of sentence blocks, and Claude's citations mapped back."""

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = list(sources)
        self.spans = [split_sentences(s.text) or [(0, len(s.text))] for s in self.sources]
        """Per source, the half-open sentence spans of its text: its search result's blocks, in order."""

    def messages(self, question: str, history: Sequence[ChatMessage] = ()) -> list[ChatMessage]:
        """The chat messages: the history, then one user message with the search results and the question."""
        from llama_index.core.base.llms.types import CitableBlock  # llama-index-core >= 0.12.46

        results: list[Any] = [
            CitableBlock(
                title=source.title or f"Source {source.number}",
                source=source.url or source.document_id or f"source-{source.number}",
                content=[TextBlock(text=source.text[start:end]) for start, end in spans],
            )
            for source, spans in zip(self.sources, self.spans)
        ]
        user = ChatMessage(role=MessageRole.USER, blocks=[*results, TextBlock(text=question)])
        return [*history, user]

    def answer(self, response: Any, *, unsupported_threshold: float) -> tuple[CitedAnswer, str]:
        """The ``CitedAnswer`` of a whole ``AnthropicChatResponse`` (its raw Messages API response), and
        Claude's text as written."""
        raw = getattr(response, "raw", None)
        content = raw.get("content") if isinstance(raw, Mapping) else getattr(raw, "content", None)
        if not isinstance(content, Sequence):  # no raw response: the text alone, uncited
            content = [{"type": "text", "text": response.message.content or ""}]
        answer = from_anthropic_content(
            content,
            self.sources,
            unsupported_threshold=unsupported_threshold,
            search_result_blocks=self.spans,
            strict=False,  # see ClaudeStream
        )
        return answer, answer.plain_text


class ClaudeStream:
    """``AnthropicCitationStream(..., display=True)`` over the streamed events: its display deltas join to
    the answer's text, markers in place with their final numbers.

    The core maps the ``search_result_location`` citations (``search_result_blocks``) and, with
    ``strict=False``, skips blocks other than text and thinking (server tool calls, a block type a newer
    SDK adds) and events it cannot read, where it would raise: they carry no citable text, and a user's
    query must not fail on them.
    """

    def __init__(self, claude: ClaudeSources, *, unsupported_threshold: float) -> None:
        self.claude = claude
        self.inner = AnthropicCitationStream(
            claude.sources,
            unsupported_threshold=unsupported_threshold,
            display=True,
            search_result_blocks=claude.spans,
            strict=False,
        )
        self.text: list[str] = []
        """Claude's text as it came (no markers)."""

    def feed(self, raw: Any) -> list[StreamEvent]:
        """Add one streamed event; returns the core's events (display deltas included)."""
        return self._seen(self.inner.feed(raw))

    def finish(self, *, truncated: bool = False) -> CitedAnswer:
        """Close the last block; returns the cited answer (``truncated``: the reply was cut off)."""
        return self.inner.finish(truncated=truncated)

    def pending_events(self) -> list[StreamEvent]:
        """The events ``finish()`` produced."""
        return self._seen(self.inner.pending_events())

    def _seen(self, events: list[StreamEvent]) -> list[StreamEvent]:
        self.text.extend(e.text for e in events if isinstance(e, TextDelta))
        return events
