"""Turn retrieved items into numbered sources 1..N, merging chunks of the same document."""

from __future__ import annotations

import base64
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._args import MAX_NUMBER, check_flag, check_instance, check_items, check_text, shown
from .._exceptions import ArgumentError, SourceError
from .._schema.metadata import metadata_int, metadata_problem, surrogate_problem
from .._schema.models import Source, SourceKind
from .source_build import SEGMENT_SEPARATOR, _build, _Item

__all__ = ["SEGMENT_SEPARATOR", "number_sources", "pdf_pages"]


_TEXT_KEYS = ("text", "page_content", "content")
_START_KEYS = ("start_index", "start_char_idx", "doc_start", "start_char")
_FIELDS = ("title", "url", "author", "document_id", "context")
_CONTENT_KEYS = frozenset((*_TEXT_KEYS, "pages", "blocks"))
"""Keys of an item whose values are its citable text, checked as text rather than as metadata."""


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
