"""``from_native``: a provider's own citations, from its raw response, as a ``CitedAnswer``.

The provider is told by the payload's shape: ``candidates`` (Gemini ``generateContent``), ``output``
(OpenAI Responses), ``choices`` with ``citations`` or ``search_results`` (Perplexity), ``choices`` whose
message content is a list of chunks (Mistral), other ``choices`` (OpenAI Chat Completions), ``message``
with ``citations`` or content items (Cohere v2 chat), a ``content`` list of blocks (Anthropic
Messages), or text blocks with ``annotations`` (LangChain 1.x's normalised citations of any provider,
``native_blocks``). Claude's citations go through ``from_anthropic_content`` and Perplexity's ``[n]`` markers
through ``parse_answer``: one reading each, whichever entry point is used. See docs/providers.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._args import check_items, check_number
from .._exceptions import ArgumentError
from .._schema.citations import check_display_numbers
from .._schema.models import CitedAnswer, Source
from .._sources.numbering import number_sources
from .anthropic import AnthropicCitationStream
from .calibrate import FlagCalibration, resolve_threshold
from .native_blocks import is_annotated, read_annotated
from .native_build import NativeDoc, build_native, holds, match_source, unverified_source
from .native_formats import (
    first_message,
    get,
    items,
    mapping,
    read_cohere,
    read_gemini,
    read_mistral,
    read_openai_chat,
    read_openai_responses,
)
from .parser import DEFAULT_UNSUPPORTED_THRESHOLD, parse_answer

__all__ = ["detect_provider", "from_native"]


def _as_mapping(response: Any) -> Mapping[str, Any]:
    if isinstance(response, Mapping):
        return response
    dump = getattr(response, "model_dump", None) or getattr(response, "to_dict", None)
    if callable(dump):  # a provider SDK's response object
        value = dump()
        if isinstance(value, Mapping):
            return value
    raise ArgumentError(f"response: expected a provider's response as a dict, got {type(response).__name__}")


def detect_provider(response: Any) -> str:
    """Which provider's response shape ``response`` has: ``anthropic``, ``openai-responses``,
    ``openai-chat``, ``gemini``, ``cohere``, ``mistral``, ``perplexity``, or ``annotated`` (a ``content``
    list of text blocks with LangChain 1.x citation ``annotations``); ``ArgumentError`` if none."""
    data = _as_mapping(response)
    if "candidates" in data:
        return "gemini"
    if "output" in data and data.get("object", "response") == "response":
        return "openai-responses"
    if "choices" in data:
        if "citations" in data or "search_results" in data:
            return "perplexity"
        message, _ = first_message(data)
        return "mistral" if isinstance(message.get("content"), list) else "openai-chat"
    if isinstance(data.get("message"), Mapping):
        return "cohere"
    if is_annotated(data.get("content")):
        return "annotated"
    if isinstance(data.get("content"), list):
        return "anthropic"
    raise ArgumentError(
        "response: not a response shape this library reads (expected one of the keys 'candidates', "
        f"'output', 'choices', 'message' or 'content'; got {sorted(map(str, data))[:8]})"
    )


_READERS = {
    "openai-responses": read_openai_responses,
    "openai-chat": read_openai_chat,
    "gemini": read_gemini,
    "cohere": read_cohere,
    "mistral": read_mistral,
    "annotated": read_annotated,
}


def from_native(
    response: Any,
    sources: Sequence[Any] | None = None,
    *,
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
    display_numbers: Mapping[int, int] | None = None,
    first_new: int | None = None,
    calibration: FlagCalibration | None = None,
) -> CitedAnswer:
    """A provider's raw response (a dict, or an SDK object with ``model_dump``) as a ``CitedAnswer``.

    ``sources``: the documents the model was given (``Source``\\ s or items for ``number_sources``);
    each document the provider names is matched to one by id, URL, title or the text it quotes, and
    its quote located in that source's text. Without them (or for a document none matches: a web
    result) a reference gets the title and URL the provider gave, its quote marked unverified
    (``metadata["native_citation"]["quote_verified"]`` is False). ``display_numbers``/``first_new``: as
    for ``parse_answer`` (a conversation's numbers; ``CitationSession.from_native`` passes them);
    ``calibration``: a flag threshold chosen on your own examples (``calibrate_flag``), as for
    ``parse_answer``.
    A payload that is not a known response shape, or a field of the wrong type, raises
    ``ArgumentError`` naming the field.
    """
    check_number(unsupported_threshold, "unsupported_threshold")
    unsupported_threshold = resolve_threshold(unsupported_threshold, calibration)
    check_display_numbers(display_numbers, first_new)
    data = _as_mapping(response)
    provider = detect_provider(data)
    given: list[Source] | None = None
    if sources is not None:
        given = check_items(sources, "sources")
        if not all(isinstance(s, Source) for s in given):
            given = number_sources(given)
    numbering: dict[str, Any] = {"display_numbers": display_numbers, "first_new": first_new}
    if provider == "anthropic":
        return _anthropic(data, given, unsupported_threshold, numbering)
    if provider == "perplexity":
        return _perplexity(data, given, unsupported_threshold, numbering)
    native = _READERS[provider](data)
    return build_native(
        native, given, threshold=unsupported_threshold, display_numbers=display_numbers, first_new=first_new
    )


def _perplexity(
    data: Mapping[str, Any], given: list[Source] | None, threshold: float, numbering: dict[str, Any]
) -> CitedAnswer:
    """``[n]`` in the text names ``citations[n-1]`` (a URL), described by the ``search_results`` entry
    of that URL (title, snippet): the text is parsed as any ``[n]`` answer over those sources."""
    message, path = first_message(data)
    text = get(message, "content", path, str, "")
    results: dict[str, Mapping[str, Any]] = {}
    ordered: list[Mapping[str, Any]] = []
    for rpath, result in items(data, "search_results", "response"):
        result = mapping(result, rpath)
        url = get(result, "url", rpath, str)
        ordered.append(result)
        if url:
            results.setdefault(url, result)
    urls = [
        get({"url": u}, "url", f"response.citations[{i}]", str)
        for i, (_, u) in enumerate(items(data, "citations", "response"))
    ]
    described = [results.get(u, {"url": u}) for u in urls] if urls else ordered
    sources: list[Source] = []
    display_numbers, first_new = numbering["display_numbers"], numbering["first_new"]
    fixed: dict[int, int] = {}
    for number, result in enumerate(described, start=1):
        snippet = result.get("snippet")
        doc = NativeDoc(
            title=result.get("title") if isinstance(result.get("title"), str) else None,
            url=result.get("url") if isinstance(result.get("url"), str) else None,
            quote=snippet if isinstance(snippet, str) and snippet else None,
        )
        found = match_source(doc, given) if given else None
        if found is not None and display_numbers and found.number in display_numbers:
            fixed[number] = display_numbers[found.number]  # the given source's number, by citation index
        sources.append(
            found.model_copy(update={"number": number})
            if found is not None
            else unverified_source(number, doc, "perplexity")
        )
    return parse_answer(
        text, sources, unsupported_threshold=threshold, display_numbers=fixed or None, first_new=first_new
    )


def _anthropic(
    data: Mapping[str, Any], given: list[Source] | None, threshold: float, numbering: dict[str, Any]
) -> CitedAnswer:
    """Claude's citations through ``AnthropicCitationStream`` (what ``from_anthropic_content`` runs).
    Without ``sources``, each cited document (by index) becomes a source of the passages quoted from
    it, unverified; a web search result (``web_search_result_location``: no index, a URL) is matched
    to a source by URL or title, else becomes one."""
    content = get(data, "content", "response", list, [])
    sources, content = _anthropic_inputs(content, given)
    stream = AnthropicCitationStream(sources, unsupported_threshold=threshold, strict=False, **numbering)
    for index, block in enumerate(content):
        stream.feed({"type": "content_block_start", "index": index, "content_block": block})
    return stream.finish()


_WEB = 1_000_000
"""Placeholder document indices of web results (``_WEB + k``) until they are numbered after the documents."""


class _ClaudeInputs:
    """The sources to read Claude's ``content`` against, and ``content`` with each citation that needs
    it rewritten as a character citation of its quote in them."""

    def __init__(self, given: list[Source] | None) -> None:
        self.given = given
        self.sources = list(given or [])
        self.quotes: dict[int, list[str]] = {}  # document index (or web placeholder) -> its quotes
        self.titles: dict[int, str | None] = {}
        self.web: dict[tuple[str | None, str | None], int] = {}  # (url, title) -> placeholder

    def _quote(self, index: int, cited: str, title: str | None) -> None:
        kept = self.quotes.setdefault(index, [])
        if cited and cited not in kept:
            kept.append(cited)
        self.titles.setdefault(index, title)

    def citation(self, citation: Mapping[str, Any], path: str) -> Mapping[str, Any]:
        cited = get(citation, "cited_text", path, str, "")
        title = get(citation, "document_title", path, str) or get(citation, "title", path, str)
        if citation.get("type") == "web_search_result_location":
            doc = NativeDoc(title=title, url=get(citation, "url", path, str))
            found = match_source(doc, self.given) if self.given else None
            if found is not None:
                index = self.sources.index(found)
            else:
                index = self.web.setdefault((doc.url, doc.title), _WEB + len(self.web))
                self._quote(index, cited, title)
        elif self.given is None:
            index = get(citation, "document_index", path, int)
            index = get(citation, "search_result_index", path, int) if index is None else index
            if index is not None and index >= 0:
                self._quote(index, cited, title)
        else:
            index = get(citation, "document_index", path, int)
            given = self.given
            if (
                index is None
                or not cited.strip()
                or not 0 <= index < len(given)
                or holds(given[index], cited)
            ):
                return citation
            # the quote is not in the document at that index: if another holds it, the index was stale
            other = next((i for i, s in enumerate(given) if holds(s, cited)), None)
            if other is None:
                return citation
            index = other
        return {"type": "char_location", "document_index": index, "cited_text": cited}

    def finish(self, content: list[dict[str, Any]]) -> list[Source]:
        if self.given is None:
            count = max([i for i in self.quotes if i < _WEB], default=-1) + 1
            for i in range(count):
                doc = NativeDoc(title=self.titles.get(i), quote="\n\n".join(self.quotes.get(i, [])) or None)
                self.sources.append(unverified_source(i + 1, doc, "anthropic"))
        final = {}  # web results go after the documents
        for (url, title), placeholder in self.web.items():
            final[placeholder] = len(self.sources)
            doc = NativeDoc(title=title, url=url, quote="\n\n".join(self.quotes.get(placeholder, [])) or None)
            self.sources.append(unverified_source(len(self.sources) + 1, doc, "anthropic"))
        for block in content:
            for citation in block.get("citations") or []:
                if citation.get("document_index") in final:
                    citation["document_index"] = final[citation["document_index"]]
        return self.sources


def _anthropic_inputs(content: list[Any], given: list[Source] | None) -> tuple[list[Source], list[Any]]:
    """The sources to read ``content`` against, and ``content`` rewritten (see ``_ClaudeInputs``)."""
    inputs = _ClaudeInputs(given)
    rewritten = []
    for i, block in enumerate(content):
        bpath = f"response.content[{i}]"
        block = dict(mapping(block, bpath))
        citations = [dict(inputs.citation(mapping(c, p), p)) for p, c in items(block, "citations", bpath)]
        if citations:
            block["citations"] = citations
        rewritten.append(block)
    return inputs.finish(rewritten), rewritten
