"""Where a node is in its document: its physical page (what ``page_location`` carries; a printed label is
only shown), whether its offsets index its own text, the text of its metadata (title, file name) and the
file metadata its reference reads (the path it shows)."""

from __future__ import annotations

import math
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Any

from cite_core import page_from_metadata

__all__ = ["file_metadata", "file_name", "in_document", "metadata_text", "physical_page"]

_PAGE_KEYS = {"page_number": 1, "source": 1, "page": 0}
"""Node metadata read, in order, for the physical page, with the number it gives the first page (PyMuPDF
writes the 1-based page as ``source``; LangChain's PDF loaders write the 0-based ``page``)."""
_FORWARDED = ("file_name", "file_path", "page_label")
"""Node metadata a source keeps for its reference (the renderers read the path and the page label)."""


def physical_page(meta: dict[str, Any], doc_id: str) -> int | None:
    """The 1-based physical page of a node: from its page metadata, else from its position in its file
    (``SimpleDirectoryReader(filename_as_id=True)`` names the documents of a PDF, one per page,
    ``<file_path>_part_<i>`` with ``i`` from 0; of a PDF only), else None. A ``page_label`` (what
    ``PDFReader`` writes) is never the page, not even a number: the page labelled ``1`` may be the third
    (after ``i``, ``ii``); it is only shown."""
    path = meta.get("file_path")
    # only a PDF's parts are its pages: other readers split a file into parts too (sections of a
    # Markdown file, sheets), and "p. 2" of a Markdown file would send the reader to a page that is not there
    is_pdf = isinstance(path, str) and path.lower().endswith(".pdf")
    prefix = f"{path}_part_" if is_pdf else None
    position = doc_id[len(prefix) :] if prefix and doc_id.startswith(prefix) else None
    return page_from_metadata(meta, _PAGE_KEYS) or page_from_metadata({"part": position}, {"part": 0})


def in_document(start: int, end: Any, text: str) -> bool:
    """Whether the node's text is its document's ``[start:end]``, so citations can give document offsets.
    Not when a postprocessor replaced the text and kept the offsets (``MetadataReplacementPostProcessor``
    puts a sentence window in place of the sentence): the citations then index the node's own text."""
    return not isinstance(end, int) or end - start == len(text)


def metadata_text(value: Any) -> str | None:
    """A metadata value as text: a number is written out (``title=1984`` is the title "1984"); a blank
    string or anything else is no value."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def file_name(path: str | None) -> str | None:
    """The file name of a loader's ``file_path`` (PyMuPDFReader writes no ``file_name``): a reference
    never shows the absolute path of a file on the server."""
    return PurePath(path.replace("\\", "/")).name or None if path and "://" not in path else None


def file_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """The file metadata of a node's source. Loaders write an absolute ``file_path`` (PyMuPDFReader, and
    SimpleDirectoryReader beside ``file_name``): it stays for a file link (``file_links=True``), and the
    ``path`` a reference shows is the file's name, so no reference shows where a file sits on the server.
    A relative ``file_path`` is shown as given."""
    extra = {key: meta[key] for key in _FORWARDED if meta.get(key) is not None}
    path = metadata_text(meta.get("file_path"))
    if path and (PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()):
        extra["path"] = file_name(path) or ""  # "" (no path shown) for "/" alone
    return extra
