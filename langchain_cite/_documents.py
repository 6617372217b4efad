"""LangChain ``Document``s as cite_core sources (``number_sources`` items)."""

from __future__ import annotations

import logging
import mimetypes
from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import Any

from langchain_core.documents import Document

from cite_core import IMAGE_KEY, Source, SourceError, number_sources, page_from_metadata

__all__ = [
    "LEFT_OUT_KEY",
    "SOURCE_DOCUMENTS_KEY",
    "document_to_item",
    "documents_to_sources",
    "has_text",
    "left_out_label",
    "number_documents",
]

logger = logging.getLogger("langchain_cite")

_DOCUMENT_ID_KEYS = ("document_id", "doc_id", "source", "url", "file_path")
"""Metadata naming the original document, best first: chunks sharing it merge into one source."""
_PASSED_THROUGH = ("title", "url", "author", "context")
_INTERPRETED = frozenset(
    {
        "text",
        "page_content",
        "content",
        "pages",
        "blocks",
        "first_page",
        "page",
        "score",
        "metadata",
        "type",
        "start_index",
        "start_char_idx",
        "doc_start",
        "start_char",
        "document_id",
        *_PASSED_THROUGH,
    }
)
"""Keys cite_core reads from an item: Document metadata never reaches it under these names unconverted."""


def has_text(document: Document, index: int | None = None) -> bool:
    """Whether ``document`` has text; a ``SourceError`` naming ``page_content`` when it is not a string
    (``Document.model_construct`` or an assignment skip LangChain's own check)."""
    content = document.page_content
    if not isinstance(content, str):
        raise SourceError(f"Document.page_content must be a str, got {type(content).__name__}", index=index)
    return bool(content.strip())


_CAPTION_KEYS = ("caption", "alt", "alt_text")
_MIME_KEYS = ("mime_type", "mimetype", "content_type")


def _image_type(name: str, meta: Mapping[str, Any]) -> str | None:
    given = next((meta[k] for k in _MIME_KEYS if isinstance(meta.get(k), str)), None)
    found = given or mimetypes.guess_type(name.split("?")[0], strict=False)[0]
    return found if isinstance(found, str) and found.startswith("image/") else None


def image_of(meta: Mapping[str, Any]) -> dict[str, str] | None:
    """The image a ``Document`` stands for (LangChain has no image document: its text is the image's
    caption): metadata ``image_url`` or ``image_path``, or a ``source``/``url``/``file_path`` whose
    ``mime_type`` metadata is an image; None for a text document. A file name alone is not enough: an
    OCR loader's text of ``scan.png`` is a text document, cited by its sentences."""
    where = next(
        (meta[k] for k in ("image_url", "image_path") if isinstance(meta.get(k), str) and meta[k]), None
    )
    declared = any(isinstance(meta.get(k), str) and meta[k].startswith("image/") for k in _MIME_KEYS)
    if where is None and declared:
        where = next((meta[k] for k in ("source", "url", "file_path") if isinstance(meta.get(k), str)), None)
    if where is None:
        return None
    web = where.startswith(("https://", "http://"))
    inline = web or "://" in where or where.startswith("data:")  # a data: URL is no path to show
    found = {"url": where if web else None, "path": None if inline else where}
    found["mimetype"] = _image_type(where, meta)
    return {k: v for k, v in found.items() if v}


def _caption(document: Document) -> str | None:
    """An image document's caption when its text is empty (``caption``/``alt`` metadata), else None."""
    meta = document.metadata or {}
    if image_of(meta) is None:
        return None
    return next((meta[k] for k in _CAPTION_KEYS if isinstance(meta.get(k), str) and meta[k].strip()), None)


def document_to_item(document: Document, *, zero_based_pages: bool = True) -> dict[str, Any]:
    """One ``Document`` as a ``number_sources`` dict.

    ``page`` (0-based in LangChain's PDF loaders, unless ``zero_based_pages=False``) becomes a 1-based
    page; ``page_number`` is taken as 1-based. ``start_index`` (``add_start_index=True`` splitters) gives
    the chunk's offset in its document. The document id is the first of ``document_id``, ``doc_id``,
    ``source``, ``url``, ``file_path``; a ``source`` that is an http(s) URL is also the url. Without a
    ``title``, the file name of a local ``source`` is the title (never its absolute path). The vector
    store's chunk id (``Document.id``, Qdrant's ``_id``) is kept as ``chunk_id`` in the metadata;
    ``page_label`` (the page number printed on the page) is kept in the metadata. A document of an
    image (``image_of``) is cited whole by its text, the image's caption (or its ``caption``/``alt``
    metadata), linked to the image's URL, its ``url``/``path``/``mimetype`` under ``cite_core.IMAGE_KEY``.
    """
    text = document.page_content if has_text(document) else (_caption(document) or document.page_content)
    meta = document.metadata or {}
    item: dict[str, Any] = {"text": text}
    for key in _PASSED_THROUGH:
        value = meta.get(key)
        # a blank string is no value: PyMuPDF writes title="" and the file name must take its place
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if number or (isinstance(value, str) and value.strip()):
            item[key] = value
    if "title" not in item and (name := _file_name(meta)) is not None:
        item["title"] = name  # a loader's file path: its name, never the absolute path
    doc_id = next(
        (meta[k] for k in _DOCUMENT_ID_KEYS if isinstance(meta.get(k), (str, int)) and meta[k] != ""), None
    )
    if doc_id is not None:
        item["document_id"] = str(doc_id)
    source = meta.get("source")
    if "url" not in item and isinstance(source, str) and source.startswith(("https://", "http://")):
        item["url"] = source  # web loaders name the page by its URL
    page = page_from_metadata(meta, {"page": 0 if zero_based_pages else 1, "page_number": 1})
    if page is not None:
        item["page"] = page
    # the chunk's offset read by the same integer rule (offset 0 counts as "page" 1); splitters write -1
    # when they could not place a chunk, which gives None
    start = page_from_metadata(meta, {"start_index": 0})
    if start is not None:
        item["start_index"] = start - 1
    score = meta.get("relevance_score", meta.get("score"))
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        item["score"] = float(score)
    extra = {k: v for k, v in meta.items() if k not in _INTERPRETED}
    chunk_id = document.id if document.id is not None else meta.get("_id")
    if chunk_id is not None:
        extra["chunk_id"] = str(chunk_id)
    image = image_of(meta)
    if image is not None:  # cited whole by its caption, introduced to the model as one
        extra[IMAGE_KEY] = image
        if "url" not in item and image.get("url"):
            item["url"] = image["url"]
        item.setdefault("context", "An image; its caption or alt text:")
    item["metadata"] = extra
    return item


LEFT_OUT_KEY = "left_out"
"""Key of the labels of the ``Document``\\ s ``CitationSources`` skipped (no text, no caption)."""
SOURCE_DOCUMENTS_KEY = "source_documents"
"""Key of ``{source number: [Document, ...]}`` in ``CitationSources``' output: each source's chunks."""


def documents_to_sources(
    documents: Iterable[Document | Source | Mapping[str, Any] | str],
    *,
    merge: bool = True,
    zero_based_pages: bool = True,
) -> list[Source]:
    """Number retrieved documents 1..N in rank order, merging chunks of the same document (``merge``).

    ``Document``s are converted by ``document_to_item`` (those with no text are skipped, with a logged
    warning, before numbering); ``Source``s, dicts and strings are passed to
    ``cite_core.number_sources`` as they are.
    """
    return number_documents(documents, merge=merge, zero_based_pages=zero_based_pages)[0]


def number_documents(
    documents: Iterable[Document | Source | Mapping[str, Any] | str],
    *,
    merge: bool = True,
    zero_based_pages: bool = True,
    left_out: list[str] | None = None,
) -> tuple[list[Source], dict[int, list[Document]]]:
    """``documents_to_sources``, and the ``Document``\\ s behind each source number (rank order).

    ``left_out``: a list that gets a label (``left_out_label``) for each ``Document`` skipped for having
    neither text nor a caption, so the answer can report it (``CitedAnswer.left_out``)."""
    if isinstance(documents, (str, Document)) or not isinstance(documents, Iterable):
        raise TypeError(f"expected a list of Documents, got {type(documents).__name__}")
    items: list[Any] = []
    # Documents are unhashable: equal ones share their text and id, so only those are compared (linear)
    seen: dict[tuple[str, str | None], list[Document]] = {}
    for index, d in enumerate(documents):
        if isinstance(d, Document):
            if not has_text(d, index) and _caption(d) is None:
                logger.warning("skipped a retrieved document with no text (metadata %r)", d.metadata)
                if left_out is not None:
                    left_out.append(left_out_label(d, index))
                continue
            same = seen.setdefault((d.page_content, d.id), [])
            if any(d == kept for kept in same):
                continue  # the same Document twice (a union of retrievers): one source, as a session makes it
            same.append(d)
        items.append(d)
    if items and all(isinstance(i, Source) for i in items):
        return list(items), {}
    converted = [
        document_to_item(d, zero_based_pages=zero_based_pages) if isinstance(d, Document) else d
        for d in items
    ]
    sources = number_sources(converted, merge=merge)
    behind = {s.number: [items[i] for i in s.item_indices if isinstance(items[i], Document)] for s in sources}
    return sources, {n: docs for n, docs in behind.items() if docs}


def left_out_label(document: Document, index: int) -> str:
    """How ``CitedAnswer.left_out`` names a ``Document`` with neither text nor caption: ``Image <name>
    (no caption)`` for an image (as llamaindex_cite names one), else ``Document <name> (no text)``; the
    name is its ``title``, file name, document id or chunk id, or its rank (``#1``) when it has none."""
    meta = document.metadata or {}
    image = image_of(meta)
    where = (image or {}).get("path") or (image or {}).get("url")
    title = meta.get("title") if isinstance(meta.get("title"), str) and meta["title"].strip() else None
    ids = (meta.get(k) for k in _DOCUMENT_ID_KEYS)
    named = (
        title
        or _file_name(meta)
        or next((str(v) for v in ids if isinstance(v, (str, int)) and v != ""), None)
    )
    name = named or (str(document.id) if document.id is not None else f"#{index + 1}")
    if image is not None:
        shown = title or (PurePath(where.replace("\\", "/")).name if where and "://" not in where else where)
        return f"Image {shown or name} (no caption)"
    return f"Document {name} (no text)"


def _file_name(meta: Mapping[str, Any]) -> str | None:
    """The file name of ``metadata["source"]`` (or ``file_path``) when it names a local file."""
    for key in ("source", "file_path"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip() and "://" not in value:
            return PurePath(value.replace("\\", "/")).name or None
    return None
