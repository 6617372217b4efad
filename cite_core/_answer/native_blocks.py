"""Text blocks annotated with citations, as frameworks normalise every provider's: a ``NativeAnswer``.

LangChain 1.x ``TextContentBlock``\\ s carry ``annotations`` of type ``citation`` (``url``, ``title``,
``start_index``/``end_index`` into the block's text, ``cited_text``, ``extras``), filled by
langchain-anthropic, langchain-openai and langchain-google from their providers' fields. What
``cited_text`` holds differs: Claude's quote of the source (no indices: the whole block is the claim),
nothing for OpenAI, and Gemini's segment of the *answer* (langchain-google copies the byte offsets
unconverted). So the indices are read in the unit whose slice is ``cited_text`` when one is, UTF-8 bytes
first when the extras are Google's, else code points; a ``cited_text`` that is the answer's own text is
not a quote of the source; a span holding the annotation's URL is a link after its claim (OpenAI's),
which is the sentence it closes. ``extras["document_index"]`` (Claude's) names the source sent at that
position. LlamaIndex ``CitationBlock``\\ s reach this reader as such annotations (``llamaindex_cite``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._exceptions import ArgumentError
from .native_build import NativeAnswer, NativeCite, NativeDoc
from .native_formats import get, items, mapping, sentence_start
from .native_units import Offsets, Unit, link_shown, resolve_span, span_showing

__all__ = ["is_annotated", "read_annotated"]

_TEXT = frozenset({"text", "output_text"})
_CODEPOINTS: tuple[Unit, ...] = ("codepoint", "utf16", "utf8")
_BYTES: tuple[Unit, ...] = ("utf8", "codepoint", "utf16")


def is_annotated(content: Any) -> bool:
    """Whether a ``content`` list holds text blocks with ``annotations`` (the LangChain 1.x shape)."""
    return isinstance(content, list) and any(
        isinstance(b, Mapping) and b.get("type") in _TEXT and "annotations" in b for b in content
    )


def read_annotated(response: Mapping[str, Any], provider: str = "langchain") -> NativeAnswer:
    """``response["content"]``: text blocks and their citation annotations (others are skipped)."""
    native = NativeAnswer(provider=provider, text="")
    by_position: dict[int, int] = {}  # a document sent at a position -> its one NativeDoc
    parts: list[str] = []
    size = 0
    for bpath, block in items(response, "content", "response"):
        if not isinstance(block, Mapping) or block.get("type") not in _TEXT:
            continue  # reasoning, tool calls, images: not the answer's text
        text = get(block, "text", bpath, str, "")
        offsets = Offsets(text)
        for apath, note in items(block, "annotations", bpath):
            note = mapping(note, apath)
            if note.get("type") == "citation":
                _annotation(native, note, apath, offsets, size, by_position)
        parts.append(text)
        size += len(text)
    native.text = "".join(parts)
    return native


def _marker_after(text: str, span: tuple[int, int] | None, reference: object) -> bool:
    """Whether the display marker ``[reference]`` follows ``span`` (a message with markers in its text)."""
    return span is not None and text[span[1] :].lstrip().startswith(f"[{reference}]")


def _annotation(
    native: NativeAnswer,
    note: Mapping[str, Any],
    path: str,
    offsets: Offsets,
    base: int,
    by_position: dict[int, int],
) -> None:
    extras = get(note, "extras", path, Mapping, {})
    cited = get(note, "cited_text", path, str)
    start, end = get(note, "start_index", path, int), get(note, "end_index", path, int)
    url = get(note, "url", path, str)
    text = offsets.text
    span: tuple[int, int] | None
    if start is None and end is None:
        span = (0, len(text))  # Claude's: the citation is of the whole block
    else:
        google = any("google" in str(k) for k in extras)
        units = _BYTES if google else _CODEPOINTS  # cited_text may be a quote of the source: no search
        start, end = start or 0, -1 if end is None else end
        if cited is None and url:  # OpenAI's: the span is the link written after the claim
            span = span_showing(offsets, start, end, link_shown(url, get(note, "title", path, str)), units)
        else:
            span = resolve_span(offsets, start, end, cited, units, search=False)
    if "reference" in extras and "source_start" in extras and _marker_after(text, span, extras["reference"]):
        raise ArgumentError(
            f"{path}: this text holds its citation markers already (langchain_cite's output='message'); "
            "its answer is the chain's CitedRagAnswer, or read to_ai_message(answer) without markers"
        )
    if span is not None and cited is not None and text[span[0] : span[1]].strip() == cited.strip():
        cited = None  # the answer's own text (Gemini's segment), not a quote of the source
    if span is not None and url and url in text[span[0] : span[1]]:
        span = (sentence_start(text, span[0]), span[1])  # a link after its claim (OpenAI's): the sentence
    position = extras.get("document_index", extras.get("search_result_index"))
    doc = NativeDoc(
        key=str(note["id"]) if isinstance(note.get("id"), str) and not note["id"].startswith("lc_") else None,
        title=get(note, "title", path, str),
        url=url,
        quote=cited,
        position=position if isinstance(position, int) and not isinstance(position, bool) else None,
    )
    if doc.position is not None and doc.position in by_position:  # one document, several quotes
        index = by_position[doc.position]
        known = native.docs[index]
        if cited and cited not in (known.quote or "").split("\n\n"):
            known.quote = f"{known.quote}\n\n{cited}" if known.quote else cited
    else:
        index = len(native.docs)
        native.docs.append(doc)
        if doc.position is not None:
            by_position[doc.position] = index
    label = f"[{doc.position + 1}]" if doc.position is not None else f"[{index + 1}]"
    if span is None:
        native.invalid.append(label)
    else:
        cite = NativeCite(
            base + span[0], base + span[1], [index], [label], quote=cited, at=_quoted_at(extras)
        )
        native.cites.append(cite)


def _quoted_at(extras: Mapping[str, Any]) -> tuple[int, int] | None:
    """Where the quote is in its source, when the annotation says (this project's own: langchain_cite's
    ``source_start``/``source_end``, llamaindex_cite's and Claude's ``start_char_index``/``end_char_index``):
    a quote found twice in a source is the one there, not the first."""
    for lo, hi in (("source_start", "source_end"), ("start_char_index", "end_char_index")):
        start, end = extras.get(lo), extras.get(hi)
        if (
            isinstance(start, int)
            and isinstance(end, int)
            and not isinstance(start, bool)
            and 0 <= start <= end
        ):
            return start, end
    return None
