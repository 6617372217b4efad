"""The physical page of a node read from a PDF: what ``page_location`` carries (its label is only shown)."""

from __future__ import annotations

from typing import Any

from cite_core import page_from_metadata

__all__ = ["physical_page"]

_PAGE_KEYS = {"page_number": 1, "source": 1, "page": 0}
"""Node metadata read, in order, for the physical page, with the number it gives the first page (PyMuPDF
writes the 1-based page as ``source``; LangChain's PDF loaders write the 0-based ``page``)."""
_LABEL_KEYS = {"page_label": 1}
"""Read last: a printed label is the page only when it is a number (``i``, ``xii`` are only shown)."""


def physical_page(meta: dict[str, Any], doc_id: str) -> int | None:
    """The 1-based physical page of a node: from its page metadata, else from its position in its file
    (``SimpleDirectoryReader(filename_as_id=True)`` names the documents of a PDF, one per page,
    ``<file_path>_part_<i>`` with ``i`` from 0),
    else from a numeric ``page_label``. A label such as ``i`` or ``xii`` is only shown, never the page."""
    path = meta.get("file_path")
    prefix = f"{path}_part_" if isinstance(path, str) and path else None
    position = doc_id[len(prefix) :] if prefix and doc_id.startswith(prefix) else None
    return (
        page_from_metadata(meta, _PAGE_KEYS)
        or page_from_metadata({"part": position}, {"part": 0})
        or page_from_metadata(meta, _LABEL_KEYS)
    )
