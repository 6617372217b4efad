"""Turn retrieved items into numbered sources 1..N, merging chunks of the same document."""

from __future__ import annotations

import base64
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .._args import MAX_NUMBER, check_flag, check_instance, check_items, check_text, shown
from .._exceptions import ArgumentError, SourceError
from .._schema.metadata import metadata_int, metadata_problem, surrogate_problem
from .._schema.models import Segment, Source, SourceKind
from .._schema.source import built_source

__all__ = ["SEGMENT_SEPARATOR", "number_sources", "pdf_pages"]

SEGMENT_SEPARATOR = "\n\n"
"""What joins the segments of a source in ``Source.text``."""

_TEXT_KEYS = ("text", "page_content", "content")
_START_KEYS = ("start_index", "start_char_idx", "doc_start", "start_char")
_FIELDS = ("title", "url", "author", "document_id", "context")
_CONTENT_KEYS = frozenset((*_TEXT_KEYS, "pages", "blocks"))
"""Keys of an item whose values are its citable text, checked as text rather than as metadata."""


@dataclass
class _Item:
    """One validated input item before numbering."""

    index: int
    kind: SourceKind
    texts: list[str]
    fields: dict[str, str | None]
    metadata: dict[str, Any]
    doc_start: int | None = None
    page: int | None = None
    first_page: int = 1
    score: float | None = None
    mergeable: bool = False
    merged: list[_Item] = field(default_factory=list)
    segments: tuple[Segment, ...] | None = None


def number_sources(items: Iterable[Any], *, merge: bool = True, start: int = 1) -> list[Source]:
    """Number retrieved items ``start``, ``start + 1``, ... (1..N by default) in the given (rank) order.

    ``items`` may hold strings, dicts (``text`` plus ``title``, ``url``, ``author``, ``page``,
    ``document_id``, ``context``, a start index, any other metadata; or ``pages=[...]`` for a paged
    document; or ``blocks=[...]`` for custom content), Anthropic ``document`` blocks, and ``Source``
    objects. With ``merge`` (the default), text chunks sharing a ``document_id`` become one source at
    the rank of their best chunk, each chunk keeping its own offsets, when what the reader sees of
    the document (title, url, author, a ``path``/``source``/``file_path``/``file_name`` in the
    metadata) agrees too; chunks that disagree stay separate sources (metadata is untrusted).
    ``Source.item_indices`` says which items each source was built from. ``start`` is the first number
    given (a session continuing after the sources it already holds).
    """
    items = check_items(items, "items", error=SourceError)
    if isinstance(start, bool) or not isinstance(start, int) or not 1 <= start <= MAX_NUMBER:
        raise SourceError(f"start must be an integer >= 1 (at most {MAX_NUMBER}), got {shown(start)}")
    check_flag(merge, "merge")
    parsed = [_parse_item(i, item) for i, item in enumerate(items)]
    groups: list[_Item] = []
    by_doc: dict[tuple[str | None, ...], _Item] = {}
    for item in parsed:
        key = _merge_key(item)
        if merge and item.mergeable and key is not None:
            head = by_doc.get(key)
            if head is not None:
                head.merged.append(item)
                continue
            by_doc[key] = item
        groups.append(item)
    sources = [_build(number, group) for number, group in enumerate(groups, start=start)]
    per_document = Counter(s.document_id for s in sources if s.document_id is not None)
    for source in sources:
        if source.document_id is not None and (not merge or per_document[source.document_id] > 1):
            source._by_text = True
    return sources


_SHOWN_PATH_KEYS = ("path", "source", "file_path", "file_name")
"""Metadata keys that name a chunk's file to the reader (the CLI, LangChain and LlamaIndex loaders)."""


def _merge_key(item: _Item) -> tuple[str | None, ...] | None:
    """What chunks must share to merge: ``document_id`` and everything that identifies the document to
    the reader (title, url, author, source path). Metadata is untrusted: a chunk that copies a trusted
    chunk's ``document_id`` but shows another title or URL stays a source of its own, so its text is
    never shown under the trusted title."""
    doc = item.fields.get("document_id")
    if doc is None:
        return None
    shown = [item.metadata.get(k) for k in _SHOWN_PATH_KEYS]
    paths = [v if v is None or isinstance(v, str) else repr(v) for v in shown]
    return (doc, item.fields.get("title"), item.fields.get("url"), item.fields.get("author"), *paths)


def _parse_item(index: int, item: Any) -> _Item:
    if isinstance(item, Source):
        return _from_source(index, item)
    if isinstance(item, str):
        return _Item(index, "text", [_check_text(item, index)], _no_fields(), {}, mergeable=False)
    if isinstance(item, Mapping):
        if item.get("type") == "document":
            return _from_document_block(index, item)
        return _from_dict(index, item)
    raise SourceError(
        f"expected a str, a dict with 'text' or a Source, got {type(item).__name__}", index=index
    )


def _no_fields() -> dict[str, str | None]:
    return dict.fromkeys(_FIELDS)


def _check_text(text: Any, index: int, what: str = "text") -> str:
    if not isinstance(text, str):
        raise SourceError(f"{what} must be a str, got {type(text).__name__}", index=index)
    if not text.strip():
        raise SourceError(f"{what} is empty", index=index)
    problem = surrogate_problem(text, what)
    if problem:
        raise SourceError(problem, index=index)
    return text


def _field(value: Any, name: str, index: int) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SourceError(f"'{name}' must be a string, got {type(value).__name__}", index=index)
    if isinstance(value, float) and not math.isfinite(value):
        raise SourceError(f"'{name}' must be a string, got {shown(value)}", index=index)
    text = str(value).strip()
    problem = surrogate_problem(text, f"'{name}'")
    if problem:
        raise SourceError(problem, index=index)
    return text or None


def _int(value: Any, name: str, index: int, minimum: int) -> int:
    number = metadata_int(value)
    if number is None:
        raise SourceError(f"'{name}' must be an integer, got {shown(value)}", index=index)
    if number < minimum:
        raise SourceError(f"'{name}' must be >= {minimum}, got {number}", index=index)
    return number


def _finite(number: float) -> bool:
    """Whether ``number`` is a finite float or an int a float can hold (``2**4000`` cannot)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _check_one_content(data: dict[str, Any], index: int) -> None:
    """An item gives its citable content one way: ``pages`` or ``blocks`` beside a text (or each other,
    or ``page`` beside ``pages``) would leave one of them uncited in its metadata without a word."""
    structured = [k for k in ("pages", "blocks") if k in data]
    others = [k for k in (*_TEXT_KEYS, "page") if k in data] if structured else []
    if len(structured) > 1 or others:
        named = ", ".join(f"'{k}'" for k in (*structured, *others))
        hint = (
            " (the first page's number is 'first_page')" if "page" in others and "pages" in structured else ""
        )
        raise SourceError(f"an item gives its content one way; this one has {named}{hint}", index=index)


def _from_dict(index: int, item: Mapping[str, Any]) -> _Item:
    data = dict(item)
    nested = data.pop("metadata", None) or {}
    if not isinstance(nested, Mapping):
        raise SourceError(f"'metadata' must be a dict, got {type(nested).__name__}", index=index)
    problem = metadata_problem({**nested, **{k: v for k, v in data.items() if k not in _CONTENT_KEYS}})
    if problem:
        raise SourceError(problem, index=index)
    # a nested 'metadata' dict (a framework's metadata, passed as it is) may name the descriptive
    # fields; everything else in it is kept as plain metadata and never read as structure ('text',
    # 'pages', a 0-based 'page', ...)
    nested = dict(nested)
    fields = {name: _field(data.pop(name, nested.pop(name, None)), name, index) for name in _FIELDS}
    score = data.pop("score", None)
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise SourceError(f"'score' must be a number, got {shown(score)}", index=index)
    if score is not None and not _finite(score):
        raise SourceError(f"'score' must be a finite number, got {shown(score)}", index=index)
    _check_one_content(data, index)
    if "pages" in data:
        pages = data.pop("pages")
        if isinstance(pages, (str, bytes)) or not isinstance(pages, Sequence) or not pages:
            raise SourceError("'pages' must be a non-empty list of page texts", index=index)
        texts = [_check_page(p, index, n) for n, p in enumerate(pages, start=1)]
        first = _int(data.pop("first_page", 1), "first_page", index, 1)
        return _Item(index, "pages", texts, fields, {**nested, **data}, first_page=first, score=score)
    if "blocks" in data:
        blocks = data.pop("blocks")
        if isinstance(blocks, (str, bytes)) or not isinstance(blocks, Sequence) or not blocks:
            raise SourceError("'blocks' must be a non-empty list of texts", index=index)
        texts = [_block_text(b, index, n) for n, b in enumerate(blocks)]
        return _Item(index, "blocks", texts, fields, {**nested, **data}, score=score)
    key = next((k for k in _TEXT_KEYS if k in data), None)
    if key is None:
        raise SourceError(
            f"a dict item needs a 'text' key (or 'pages' or 'blocks'); keys: {sorted(data)}", index=index
        )
    text = _check_text(data.pop(key), index, f"'{key}'")
    start_key = next((k for k in _START_KEYS if data.get(k) is not None), None)
    doc_start = _int(data.pop(start_key), start_key, index, 0) if start_key else None
    page = data.pop("page", None)
    page = _int(page, "page", index, 1) if page is not None else None
    kind: SourceKind = "pages" if page is not None else "text"
    return _Item(
        index,
        kind,
        [text],
        fields,
        {**nested, **data},
        doc_start=doc_start,
        page=page,
        score=score,
        mergeable=True,
    )


def _check_page(page: Any, index: int, number: int) -> str:
    if not isinstance(page, str):
        raise SourceError(f"page {number} must be a str, got {type(page).__name__}", index=index)
    problem = surrogate_problem(page, f"page {number}")
    if problem:
        raise SourceError(problem, index=index)
    return page


def _block_text(block: Any, index: int, number: int) -> str:
    if isinstance(block, Mapping):
        if block.get("type", "text") != "text":
            raise SourceError(
                f"content block {number} has type {shown(block.get('type'))}; only text blocks can be cited",
                index=index,
            )
        block = block.get("text")
    return _check_text(block, index, f"content block {number}")


def _from_document_block(index: int, item: Mapping[str, Any]) -> _Item:
    """An Anthropic ``{"type": "document", "source": {...}}`` block."""
    source = item.get("source")
    if not isinstance(source, Mapping):
        raise SourceError("document block needs a 'source' dict", index=index)
    fields = _no_fields()
    fields["title"] = _field(item.get("title"), "title", index)
    fields["context"] = _field(item.get("context"), "context", index)
    stype = source.get("type")
    if stype == "text":
        return _Item(index, "text", [_check_text(source.get("data"), index, "source.data")], fields, {})
    if stype == "content":
        content = source.get("content")
        if isinstance(content, str):
            content = [content]
        if not isinstance(content, Sequence) or not content:
            raise SourceError("source.content must be a non-empty list of text blocks", index=index)
        return _Item(index, "blocks", [_block_text(b, index, n) for n, b in enumerate(content)], fields, {})
    if stype == "base64" and source.get("media_type") == "application/pdf":
        try:
            raw = base64.b64decode(source.get("data") or "", validate=True)
        except ValueError as exc:
            raise SourceError(f"source.data is not valid base64: {exc}", index=index) from exc
        return _Item(index, "pages", pdf_pages(raw), fields, {})
    raise SourceError(
        f"unsupported document source type {shown(stype)} "
        "(use 'text', 'content' or base64 'application/pdf')",
        index=index,
    )


def _from_source(index: int, source: Source) -> _Item:
    fields = {name: getattr(source, name) for name in _FIELDS}
    texts = [s.text for s in source.segments]
    return _Item(
        index, source.kind, texts, fields, dict(source.metadata), score=source.score, segments=source.segments
    )


def pdf_pages(pdf: bytes | str) -> list[str]:
    """The text of each page of a PDF (a path or its bytes), via pypdf (``cite-anything[pdf]``)."""
    from .._exceptions import require

    check_instance(pdf, "pdf", (bytes, bytearray, str), "the bytes of a PDF or its path (str)")
    if isinstance(pdf, str):
        check_text(pdf, "pdf")  # a path: a lone surrogate names no file
        if "\x00" in pdf:  # nor does a NUL (open() raises ValueError)
            raise ArgumentError("pdf is a path holding a NUL character, which names no file")
    pypdf = require("pypdf", "pdf", "Reading PDF files")
    import io

    try:
        with open(pdf, "rb") if isinstance(pdf, str) else io.BytesIO(pdf) as stream:
            reader = pypdf.PdfReader(stream)
            pages = [page.extract_text() or "" for page in reader.pages]
    except (OSError, pypdf.errors.PdfReadError) as exc:
        raise SourceError(f"cannot read PDF: {str(exc)[:200]}") from exc
    if not any(p.strip() for p in pages):
        raise SourceError("the PDF has no extractable text (scanned images need OCR first)")
    return pages


def _build(number: int, item: _Item) -> Source:
    owners: list[tuple[int, ...]] = []  # the input items behind each segment
    if item.segments is not None:
        segments = list(item.segments)
    elif item.kind == "blocks":
        segments = _layout([(t, None, None, i) for i, t in enumerate(item.texts)])
    elif item.kind == "pages" and item.page is None:
        segments = _layout([(t, None, item.first_page + i, None) for i, t in enumerate(item.texts)])
    else:
        pieces, owners = _chunks(item)
        segments = _layout(pieces)
    metadata = dict(item.metadata)
    for extra in item.merged:
        for key, value in extra.metadata.items():
            metadata.setdefault(key, value)
    if item.merged:
        metadata["merged_chunks"] = 1 + len(item.merged)
    printed = _page_labels(item)
    by_segment = None
    if printed:
        metadata["page_labels"] = printed
    elif owners and not any(seg.page for seg in segments):
        by_segment = _segment_labels(item, owners)
        if by_segment:
            metadata["segment_page_labels"] = by_segment
    scores = [s for s in (item.score, *(m.score for m in item.merged)) if s is not None]
    kind = item.kind
    if item.merged and any(m.kind != kind for m in item.merged):
        kind = "text"  # a document mixing paged and unpaged chunks is cited by characters
    text = SEGMENT_SEPARATOR.join(s.text for s in segments)
    score = max(scores) if scores else None
    if not (printed or by_segment) and _known_valid(item, metadata, score):
        source = built_source(number, text, kind, tuple(segments), item.fields, metadata, score)
    else:
        source = _validated(item, number, text, kind, segments, metadata, score)
    source._item_indices = (item.index, *(m.index for m in item.merged))
    if item.merged and len(owners) == len(segments):  # one item: every segment is its (kept lazily)
        source._segment_items = tuple(owners)
    return source


def _known_valid(item: _Item, metadata: dict[str, Any], score: Any) -> bool:
    """Whether the values of ``item``'s Source are what validation would keep as they are, so that it
    is built without (``built_source``; about 4 of a dict item's 16 µs): values this module checked and
    made (not a ``Source``'s, whose fields can be assigned anything), exact ``str``s, a plain score, and
    the metadata its item's (the caller adds no page labels), which is the dict ``metadata_problem``
    passed less the keys taken as fields: a part of a valid dict is valid)."""
    return (
        item.segments is None
        and not item.merged
        and (score is None or type(score) is int or type(score) is float)
        and all(v is None or type(v) is str for v in item.fields.values())
        and all(type(k) is str for k in metadata)
    )


def _validated(
    item: _Item, number: int, text: str, kind: SourceKind, segments: list[Segment], metadata: dict, score: Any
) -> Source:
    try:
        return Source(
            number=number,
            text=text,
            kind=kind,
            segments=tuple(segments),
            metadata=metadata,
            score=score,
            **item.fields,
        )
    except ValidationError as exc:  # e.g. merged chunks whose metadata together exceed the size bound
        problems = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise SourceError(problems, index=item.index) from exc


def _page_labels(item: _Item) -> dict[str, str]:
    """The printed label (``i``, ``xii``, ``7``) of each physical page of a paged item and the items
    merged into it, from their ``page_label`` metadata: ``{"3": "1"}`` (JSON keys are strings)."""
    labels: dict[str, str] = {}
    for part in (item, *item.merged):
        label = part.metadata.get("page_label")
        if part.page is not None and isinstance(label, str) and label.strip():
            labels.setdefault(str(part.page), label.strip())
    return labels


def kept_segments_metadata(source: Source, kept: Sequence[int]) -> dict[str, Any]:
    """``source.metadata`` for a part of it holding only the segments at ``kept`` (in order): its
    per-segment entries (``segment_page_labels``) follow the segments, so an index still names the
    same chunk; a copy, the source's own metadata is left as it is."""
    labels = source.metadata.get("segment_page_labels")
    if not isinstance(labels, list) or len(labels) != len(source.segments):
        return source.metadata
    return {**source.metadata, "segment_page_labels": [labels[i] for i in kept]}


def _segment_labels(item: _Item, owners: list[tuple[int, ...]]) -> list[str | None]:
    """Of a source without page numbers whose chunks carry a printed ``page_label`` (LlamaIndex's
    ``PDFReader`` writes no page number): the label of each segment, None where its chunks have none;
    empty when no chunk has one. The chunks of one segment share their label (``_chunks`` coalesces
    only those). Shown beside the references (never a page number: ``page_location`` needs the
    physical page)."""
    label_of = {}
    for part in (item, *item.merged):
        label = part.metadata.get("page_label")
        if isinstance(label, str) and label.strip():
            label_of[part.index] = label.strip()
    if not label_of:
        return []
    return [label_of.get(indices[0]) for indices in owners]


def _chunks(
    item: _Item,
) -> tuple[list[tuple[str, int | None, int | None, int | None]], list[tuple[int, ...]]]:
    """The chunks of a (possibly merged) text item, in document order, overlapping ones coalesced, and
    the indices of the input items behind each."""
    parts = [item, *item.merged]
    if all(p.doc_start is not None for p in parts):
        parts.sort(key=lambda p: (p.page or 0, p.doc_start or 0))
        out: list[list[Any]] = []
        for p in parts:
            text, start = p.texts[0], p.doc_start or 0  # every doc_start is set in this branch
            # chunks of two printed pages stay two segments: each keeps its own label
            if out and out[-1][3] == p.page and out[-1][4] == p.metadata.get("page_label"):
                prev_text, prev_start = out[-1][0], out[-1][1]
                prev_end = prev_start + len(prev_text)
                if start <= prev_end and prev_text[start - prev_start :] == text[: prev_end - start]:
                    out[-1][0] = (
                        prev_text + text[prev_end - start :] if start + len(text) > prev_end else prev_text
                    )
                    out[-1][2] = (*out[-1][2], p.index)
                    continue
            out.append([text, start, (p.index,), p.page, p.metadata.get("page_label")])
        return [(t, s, pg, None) for t, s, _, pg, _ in out], [owners for _, _, owners, _, _ in out]
    if all(p.page is not None for p in parts):
        parts.sort(key=lambda p: p.page or 0)
    return [(p.texts[0], p.doc_start, p.page, None) for p in parts], [(p.index,) for p in parts]


def _layout(pieces: list[tuple[str, int | None, int | None, int | None]]) -> list[Segment]:
    segments, offset = [], 0
    for text, doc_start, page, block in pieces:
        segments.append(Segment(text=text, start=offset, doc_start=doc_start, page=page, block=block))
        offset += len(text) + len(SEGMENT_SEPARATOR)
    return segments
