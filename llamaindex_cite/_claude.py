"""Claude's own citations through ``llama-index-llms-anthropic``, mapped by cite_core to a ``CitedAnswer``.

llama-index-llms-anthropic sends citable content to Claude as ``search_result`` blocks (LlamaIndex's
``CitableBlock``) with citations enabled; Claude then cites ranges of their text blocks
(``search_result_location``: result index, block range, ``cited_text``). Each shown source becomes one
search result whose blocks are its sentences, so Claude cites sentences (as it does in plain-text
documents), and each citation becomes the ``char_location`` of those sentences in the source:
``cite_core.from_anthropic_content`` / ``AnthropicCitationStream`` do the rest, as on the LangChain side.
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

_KEPT_BLOCKS = frozenset({"text", "thinking", "redacted_thinking"})


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

    def citation(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """A ``search_result_location`` as the ``char_location`` of its sentences (others unchanged)."""
        citation = dict(raw)
        if citation.get("type") != "search_result_location":
            return citation
        index, first, end = (
            citation.get("search_result_index"),
            citation.get("start_block_index"),
            citation.get("end_block_index"),
        )
        mapped: dict[str, Any] = {"type": "char_location", "document_index": index}
        mapped["cited_text"] = citation.get("cited_text") or ""
        if not isinstance(index, int) or not 0 <= index < len(self.sources):
            return mapped  # cite_core reports it as an invalid marker
        spans = self.spans[index]
        if isinstance(first, int) and 0 <= first < len(spans):
            last = min(end, len(spans)) - 1 if isinstance(end, int) and end > first else first
            start, stop = spans[first][0], spans[last][1]
            text = self.sources[index].text
            mapped.update(start_char_index=start, end_char_index=stop, cited_text=text[start:stop])
        return mapped  # without a valid block range, cite_core locates ``cited_text`` in the source

    def content(self, blocks: Sequence[Any]) -> list[dict[str, Any]]:
        """A Messages API ``content`` list with its citations mapped (blocks other than text and
        thinking, such as server tool calls, left out)."""
        out = []
        for block in map(_plain, blocks):
            if block.get("type") in _KEPT_BLOCKS:
                block["citations"] = [self.citation(_plain(c)) for c in block.get("citations") or []]
                out.append(block)
        return out

    def event(self, raw: Any) -> dict[str, Any]:
        """A streamed Messages API event with its citation mapped."""
        event = _plain(raw)
        if event.get("type") == "content_block_delta":
            delta = _plain(event.get("delta"))
            if delta.get("type") == "citations_delta":
                delta["citation"] = self.citation(_plain(delta.get("citation")))
            event["delta"] = delta
        elif event.get("type") == "content_block_start":
            event["content_block"] = (self.content([event.get("content_block") or {}]) or [{}])[0]
        return event

    def answer(self, response: Any, *, unsupported_threshold: float) -> tuple[CitedAnswer, str]:
        """The ``CitedAnswer`` of a whole ``AnthropicChatResponse`` (its raw Messages API response), and
        Claude's text as written."""
        content = _plain(getattr(response, "raw", None)).get("content")
        if not isinstance(content, Sequence):  # no raw response: the text alone, uncited
            content = [{"type": "text", "text": response.message.content or ""}]
        blocks = self.content(content)
        answer = from_anthropic_content(blocks, self.sources, unsupported_threshold=unsupported_threshold)
        return answer, "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")


class ClaudeStream:
    """``AnthropicCitationStream(..., display=True)`` over streamed events with their citations mapped:
    its display deltas join to the answer's text, markers in place with their final numbers."""

    def __init__(self, claude: ClaudeSources, *, unsupported_threshold: float) -> None:
        self.claude = claude
        self.inner = AnthropicCitationStream(
            claude.sources, unsupported_threshold=unsupported_threshold, display=True
        )
        self.text: list[str] = []
        """Claude's text as it came (no markers)."""

    def feed(self, raw: Any) -> list[StreamEvent]:
        """Add one streamed event; returns the core's events (display deltas included)."""
        return self._seen(self.inner.feed(self.claude.event(raw)))

    def finish(self) -> CitedAnswer:
        """Close the last block; returns the cited answer."""
        return self.inner.finish()

    def pending_events(self) -> list[StreamEvent]:
        """The events ``finish()`` produced."""
        return self._seen(self.inner.pending_events())

    def _seen(self, events: list[StreamEvent]) -> list[StreamEvent]:
        self.text.extend(e.text for e in events if isinstance(e, TextDelta))
        return events


def _plain(value: Any) -> dict[str, Any]:
    """A dict of a Mapping or an Anthropic SDK object (empty for anything else)."""
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    return dict(dump()) if callable(dump) else {}
