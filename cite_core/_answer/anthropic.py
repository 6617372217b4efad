"""Claude's native citations (Anthropic's Citations API) as a ``CitedAnswer``, whole or streaming.

Given the sources as ``document`` blocks with citations enabled (``to_anthropic_documents``), Claude
answers with text blocks carrying ``citations`` (char / page / content-block locations) and, when
streaming, ``citations_delta`` events. ``from_anthropic_content`` and ``AnthropicCitationStream`` map
that to the same ``CitedAnswer`` and ``TextDelta`` / ``CitationsDelta`` events that ``parse_answer`` and
``CitationStream`` give for ``[n]`` markers, so an application can switch models without changing code.
With ``display=True`` it also yields ``DisplayDelta`` events, as ``CitationStream(..., display=True)``
does: a text block's text as it streams, less its trailing whitespace, and where the block closes its
display markers (final numbers: a block's citations get their numbers when it closes, in order) then
that whitespace. They join to ``CitedAnswer.text`` exactly, for any chunking of the events.

``from_anthropic_content(blocks, sources)`` is ``AnthropicCitationStream(sources)`` fed the blocks as
``content_block_start`` events, then finished: the two cannot disagree.

Sources sent as ``search_result`` content blocks instead of documents (what llama-index-llms-anthropic
sends) are cited by ``search_result_location`` (result index, block range, ``cited_text``), whatever the
framework. Given ``search_result_blocks``, the spans of ``Source.text`` each result's content blocks hold,
such a citation becomes the ``char_location`` of those blocks in the source of the same index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

from .._args import check_flag, check_items, check_number, check_text, shown
from .._exceptions import ArgumentError, StreamClosedError
from .._locate.localize import Corpus
from .._locate.scoring import ClaimTerms, support
from .._schema.citations import (
    DisplayNumbers,
    build_answer,
    check_display_numbers,
    citation_for_span,
    display_number,
)
from .._schema.events import display_delta
from .._schema.models import (
    Citation,
    CitationsDelta,
    CitedAnswer,
    MarkerGroup,
    Source,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingDelta,
)
from .._sources.analysis import source_terms
from .._sources.numbering import number_sources
from .._sources.terms import analyze
from .parser import DEFAULT_UNSUPPORTED_THRESHOLD

__all__ = [
    "AnthropicCitationStream",
    "SearchResultBlocks",
    "from_anthropic_content",
    "to_anthropic_documents",
]

SearchResultBlocks = Sequence[Sequence[tuple[int, int]]]
"""Per search result sent (result ``i`` is source ``i``), the half-open spans of ``Source.text`` its
content blocks hold, in order."""

_SKIPPED_BLOCKS = frozenset({"thinking", "redacted_thinking"})


def to_anthropic_documents(sources: Sequence[Source], *, citations: bool = True) -> list[dict[str, Any]]:
    """The sources as Anthropic ``document`` blocks, in order (``document_index == source.number - 1``).

    Text sources become plain-text documents (cited by characters of ``Source.text``); paged and
    block sources become custom-content documents with one block per segment (cited by blocks,
    mapped back to pages).
    """
    check_flag(citations, "citations")
    documents = []
    for source in check_items(sources, "sources", Source, "sources (Source objects)"):
        if source.kind == "text":
            body: dict[str, Any] = {"type": "text", "media_type": "text/plain", "data": source.text}
        else:
            body = {"type": "content", "content": [{"type": "text", "text": s.text} for s in source.segments]}
        block: dict[str, Any] = {"type": "document", "source": body, "citations": {"enabled": citations}}
        if source.title:
            block["title"] = source.title
        if source.context:
            block["context"] = source.context
        documents.append(block)
    return documents


def from_anthropic_content(
    content: Iterable[Any],
    sources: Sequence[Any],
    *,
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
    search_result_blocks: SearchResultBlocks | None = None,
    strict: bool = True,
) -> CitedAnswer:
    """Map a Messages API ``content`` list (dicts or SDK blocks) over ``sources`` to a ``CitedAnswer``.

    ``sources`` are the documents sent, in order (``Source`` objects or items for ``number_sources``).
    Thinking blocks are skipped; any other non-text block raises ``ArgumentError`` (a ``ValueError``)
    naming its type, unless ``strict=False``. ``search_result_blocks``: see ``AnthropicCitationStream``.
    """
    content = check_items(content, "content", what="content blocks")
    stream = AnthropicCitationStream(
        sources,
        unsupported_threshold=unsupported_threshold,
        search_result_blocks=search_result_blocks,
        strict=strict,
    )
    for index, block in enumerate(content):
        stream.feed({"type": "content_block_start", "index": index, "content_block": block})
    return stream.finish()


class AnthropicCitationStream:
    """Map streamed Messages API events: ``feed(event)`` yields events, ``finish()`` the answer.

    Understands ``content_block_start`` (a text block, with or without text and citations) and
    ``content_block_delta`` (``text_delta``, ``citations_delta``); ``content_block_stop`` closes a block,
    as does the first event of another block. Other events are ignored. Text is released at once;
    a block's citations are released when the block closes (its claim is then complete).
    """

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
        display: bool = False,
        search_result_blocks: SearchResultBlocks | None = None,
        strict: bool = True,
        display_numbers: Mapping[int, int] | None = None,
        first_new: int | None = None,
    ) -> None:
        """``display=True`` adds ``DisplayDelta`` events: the answer text with final display markers.

        ``search_result_blocks``: the sources were sent as search results, result ``i`` being source
        ``i`` with content blocks holding these spans of its text; a ``search_result_location`` then
        cites the characters of its blocks (without a valid block range, its ``cited_text`` located in
        the source). Without it, such citations name no document: reported in ``invalid_markers``.

        ``strict=False`` skips what cannot be read instead of raising ``ArgumentError``: content blocks
        other than text and thinking (server tool calls, blocks a newer SDK adds) and values that are
        neither dicts nor SDK objects. A framework adapter answering a user's query passes it: a block
        type the SDK added since must not fail the whole answer, whose text blocks still cite.

        ``display_numbers`` and ``first_new``: as for ``CitationStream``.
        """
        check_display_numbers(display_numbers, first_new)
        items = check_items(sources, "sources")
        check_number(unsupported_threshold, "unsupported_threshold")
        check_flag(display, "display")
        check_flag(strict, "strict")
        if not all(isinstance(s, Source) for s in items):
            items = number_sources(items)
        self.sources: list[Source] = items
        self._corpus = Corpus(items)
        self._threshold = unsupported_threshold
        self._index: Any = None
        self._text: list[str] = []
        self._raw: list[Mapping[str, Any]] = []
        self._plain_len = 0
        self._blocks: list[TextBlock] = []
        self._display: list[str] = []
        self._display_no: dict[int, int] = DisplayNumbers(display_numbers, first_new)
        self._invalid: list[str] = []
        self._events: list[StreamEvent] = []
        self._reasoning: list[str] = []
        self._show = display  # emit DisplayDelta events
        self._held = ""  # the open block's trailing whitespace, shown after its markers
        self._finished: CitedAnswer | None = None
        self._search_blocks = _check_search_blocks(search_result_blocks)
        self._strict = strict

    def feed(self, event: Any) -> list[StreamEvent]:
        """Add one streaming event (a dict or an SDK event); returns the events it completes."""
        if self._finished is not None:
            raise StreamClosedError("AnthropicCitationStream.feed called after finish()")
        event = _as_dict(event, self._strict, "event")
        kind = event.get("type")
        if kind == "content_block_start":
            block = _as_dict(event.get("content_block") or {}, self._strict, "content block")
            btype = block.get("type", "text")
            if btype == "thinking":
                self._think(self._text_of(block, "thinking"))
                return self._take()
            if btype in _SKIPPED_BLOCKS:
                return []
            if btype != "text":
                if not self._strict:
                    return []
                raise ArgumentError(
                    f"expected text content from the model, got a {shown(btype)} content block"
                )
            self._open(event.get("index"))
            self._add_text(self._text_of(block, "text"))
            self._raw.extend(
                self._citation(c) for c in check_items(block.get("citations") or [], "citations")
            )
        elif kind == "content_block_delta":
            delta = _as_dict(event.get("delta") or {}, self._strict, "delta")
            dtype = delta.get("type")
            if dtype == "text_delta":
                self._open(event.get("index"))
                self._add_text(self._text_of(delta, "text"))
            elif dtype == "thinking_delta":
                self._think(self._text_of(delta, "thinking"))
            elif dtype == "citations_delta":
                self._open(event.get("index"))
                self._raw.append(self._citation(delta.get("citation") or {}))
        elif kind == "content_block_stop":
            self._close()
        return self._take()

    def finish(self, *, truncated: bool = False) -> CitedAnswer:
        """Close the last block and return the cited answer; ``truncated``: the response was cut off
        (``stop_reason="max_tokens"``), said by ``CitedAnswer.truncated`` and a note."""
        if self._finished is None:
            check_flag(truncated, "truncated")
            self._close()
            self._finished = build_answer(
                self._display,
                self._blocks,
                self._display_no,
                {i + 1: s for i, s in enumerate(self.sources)},
                invalid=self._invalid,
                threshold=self._threshold,
                reasoning="".join(self._reasoning),
                truncated=truncated,
            )
        return self._finished

    def pending_events(self) -> list[StreamEvent]:
        """Events produced by ``finish()`` (the citations of the last block)."""
        return self._take()

    # -- blocks ----------------------------------------------------------------------------------

    def _text_of(self, block: Mapping[str, Any], key: str) -> str:
        """A text field of a block: a str, or (``strict=False``) nothing when it is not one."""
        value = block.get(key)
        if value is not None and not isinstance(value, str) and not self._strict:
            return ""
        return check_text(value, key, optional=True, surrogates=True) or ""

    def _citation(self, value: Any) -> dict[str, Any]:
        """A citation as a dict; its ``cited_text`` a str (``strict=False``: dropped when it is not)."""
        raw = _as_dict(value, self._strict, "citation")
        cited = raw.get("cited_text")
        if cited is not None and not isinstance(cited, str):
            if self._strict:
                check_text(cited, "cited_text", optional=True)
            raw = {**raw, "cited_text": None}
        return raw

    def _open(self, index: Any) -> None:
        if index != self._index:
            self._close()
            self._index = index

    def _think(self, text: str) -> None:
        """Claude's thinking: to ``CitedAnswer.reasoning``, streamed as ``ThinkingDelta`` events."""
        if text:
            self._reasoning.append(text)
            self._events.append(ThinkingDelta(thinking=text))

    def _add_text(self, text: str) -> None:
        if text:
            self._text.append(text)
            self._events.append(TextDelta(text=text))
            if self._show:
                whole = self._held + text
                body = whole.rstrip()
                self._held = whole[len(body) :]
                if body:
                    self._events.append(display_delta(body))

    def _close(self) -> None:
        text, raw = "".join(self._text), self._raw
        self._text, self._raw, self._index, self._held = [], [], None, ""
        if not text and not raw:
            return
        start = self._plain_len
        self._plain_len += len(text)
        citations = [c for c in (self._convert(r, text) for r in raw) if c is not None]
        self._display.append(text)
        if citations:
            body = text.rstrip()
            numbers = dict.fromkeys(c.reference for c in citations)
            markers = " " + "".join(f"[{n}]" for n in numbers)
            self._display[-1] = body + markers + text[len(body) :]
            # the markers follow the claim, before its trailing whitespace (a block of its own)
            group = MarkerGroup(numbers=list(numbers), citations=citations, lead=" ")
            self._blocks.append(
                TextBlock(text=body, citations=citations, marker_text=markers, marker_groups=[group])
            )
            if len(body) < len(text):
                self._blocks.append(TextBlock(text=text[len(body) :]))
        else:
            self._blocks.append(TextBlock(text=text))
        for citation in citations:
            self._events.append(
                CitationsDelta(citation=citation, claim_start=start, claim_end=self._plain_len)
            )
        if self._show:  # the rest of the block as shown: its markers, then the whitespace held back
            rest = self._display[-1][len(text.rstrip()) :]
            if rest:
                self._events.append(display_delta(rest))

    def _take(self) -> list[StreamEvent]:
        events, self._events = self._events, []
        return events

    # -- citations -------------------------------------------------------------------------------

    def _convert(self, raw: Mapping[str, Any], claim: str) -> Citation | None:
        if raw.get("type") == "search_result_location" and self._search_blocks is not None:
            raw = _search_result_chars(raw, self.sources, self._search_blocks)
        index = raw.get("document_index")
        if not _is_index(index) or not 0 <= index < len(self.sources):
            # a JSON ``true`` is no index (not 1); the marker shows what was sent, bounded in length
            self._invalid.append(f"[{shown(index + 1 if _is_index(index) else index)}]")
            return None
        source = self.sources[index]
        span = _span(source, raw)
        if span is None:  # pages, blocks or characters the source does not have: reported, never guessed
            self._invalid.append(f"[{index + 1}]")
            return None
        start, end = span
        cited = source.text[start:end]
        reference = display_number(self._display_no, index + 1)
        score = support(ClaimTerms.from_text(claim, self._corpus.stats), analyze(cited), source_terms(source))
        return citation_for_span(source, start, end, reference=reference, support=score)


def _as_dict(value: Any, strict: bool, name: str) -> dict[str, Any]:
    """A dict of a Mapping or an Anthropic SDK object; anything else raises, or is empty if not ``strict``."""
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dict(dump())
    if not strict:
        return {}
    raise ArgumentError(f"{name}: expected a dict or an Anthropic SDK object, got {type(value).__name__}")


def _search_result_chars(
    raw: Mapping[str, Any], sources: Sequence[Source], blocks: SearchResultBlocks
) -> dict[str, Any]:
    """A ``search_result_location`` as the ``char_location`` of its blocks in the source of its index
    (an index that names no source stays, to be reported as an invalid marker)."""
    index = raw.get("search_result_index")
    mapped: dict[str, Any] = {"type": "char_location", "document_index": index}
    mapped["cited_text"] = raw.get("cited_text") or ""
    if not _is_index(index) or not 0 <= index < min(len(sources), len(blocks)):
        return mapped
    spans = blocks[index]
    first, end = raw.get("start_block_index"), raw.get("end_block_index")
    if _is_index(first) and 0 <= first < len(spans):
        last = min(end, len(spans)) - 1 if _is_index(end) and end > first else first
        start, stop = spans[first][0], spans[last][1]
        text = sources[index].text
        mapped.update(start_char_index=start, end_char_index=stop, cited_text=text[start:stop])
    return mapped  # without a valid block range, _span locates ``cited_text`` in the source


def _span(source: Source, raw: Mapping[str, Any]) -> tuple[int, int] | None:
    """The cited range in ``Source.text`` (``cited_text`` located exactly when the indices disagree)."""
    kind, cited = raw.get("type"), raw.get("cited_text") or ""
    segments = source.segments
    fallback: tuple[int, int] | None = None
    if kind == "char_location":
        start, end = raw.get("start_char_index"), raw.get("end_char_index")
        if _is_index(start) and _is_index(end) and 0 <= start < end <= len(source.text):
            if not cited or source.text[start:end] == cited:
                return start, end
            fallback = (start, end)
        # indices outside the document and a ``cited_text`` it does not hold point at nothing in it:
        # an invalid marker, never the whole source
        return _find(source.text, cited, 0, len(source.text)) or fallback
    elif kind == "page_location":
        p0, p1 = raw.get("start_page_number"), raw.get("end_page_number")
        p0 = p0 if _is_index(p0) else -1
        p1 = p1 if _is_index(p1) and p1 > p0 else p0 + 1
        chosen = [s for s in segments if s.page is not None and p0 <= s.page < p1]
        if not chosen:  # pages the source does not have
            return None
        lo, hi = chosen[0].start, chosen[-1].end
    elif kind == "content_block_location":
        b0, b1 = raw.get("start_block_index"), raw.get("end_block_index")
        if not _is_index(b0) or not 0 <= b0 < len(segments):
            return None
        b1 = b1 if _is_index(b1) and b1 > b0 else b0 + 1
        lo, hi = segments[b0].start, segments[min(b1, len(segments)) - 1].end
    else:
        return None  # web search results and other locations do not point into a source
    return _find(source.text, cited, lo, hi) or fallback or (lo, hi)


def _check_search_blocks(value: Any) -> list[list[tuple[int, int]]] | None:
    """``search_result_blocks`` as lists of ``(start, end)`` pairs of ints, ``0 <= start <= end``
    (``ArgumentError`` naming the first wrong entry), or None."""
    if value is None:
        return None
    results = check_items(value, "search_result_blocks", what="lists of (start, end) spans")
    checked = []
    for i, spans in enumerate(results):
        name = f"search_result_blocks[{i}]"
        pairs = []
        for j, span in enumerate(check_items(spans, name, what="(start, end) spans")):
            if (
                isinstance(span, (str, bytes))
                or not isinstance(span, Sequence)
                or len(span) != 2
                or not all(_is_index(x) for x in span)
                or not 0 <= span[0] <= span[1]
            ):
                raise ArgumentError(
                    f"{name}[{j}] must be a (start, end) pair of ints 0 <= start <= end, got {shown(span)}"
                )
            pairs.append((span[0], span[1]))
        checked.append(pairs)
    return checked


def _is_index(value: Any) -> TypeGuard[int]:
    """An index as JSON gives one: an ``int``, not a ``bool`` (``true`` is not 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _find(text: str, cited: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Where ``cited`` (or it stripped) first occurs in ``text[lo:hi]``, or None."""
    for needle in dict.fromkeys((cited, cited.strip())):
        found = text.find(needle, lo, hi) if needle else -1
        if found >= 0:
            return found, found + len(needle)
    return None
