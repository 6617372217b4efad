"""A node as a cite_core source item, and the nodes that cannot be one.

A node's item holds its text (an image node's caption; for a model that reads images, an image without
a caption is ``Image <name> (no caption)``, the image itself shown beside it), its document (the
``file_path`` of a paged file, else its ``ref_doc_id``), page, score and where it starts. A node that
cannot be a source (an image without a caption for a text-only model, a node the core rejects) is
left out with a label for ``CitedAnswer.left_out``, so the reader is told (the ``left_out`` note).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from llama_index.core.schema import MetadataMode, NodeWithScore

from cite_core import CiteError, number_sources

from ._images import caption_of, image_name, image_of, with_image
from ._pages import file_metadata, file_name, in_document, metadata_text, physical_page

__all__ = ["checked_items", "left_out_label", "source_item"]

logger = logging.getLogger("llamaindex_cite")
_Checked = tuple[list[tuple[NodeWithScore, dict[str, Any]]], list[NodeWithScore], list[NodeWithScore]]


def checked_items(nodes: Sequence[NodeWithScore], *, images: bool = False, log: bool = True) -> _Checked:
    """The nodes with text the core accepts, with their source items; those it rejects; those repaired.

    ``images``: the model is shown image nodes as images (an image without a caption is a source too);
    ``log``: warn of each node left out or repaired (off when the nodes were checked before)."""
    kept, left_out, repaired = [], [], []
    warn = logger.warning if log else logger.debug
    for node in nodes:
        item, problems = source_item(node, images=images)
        if item is None:  # no text: an empty node is skipped, an image without a caption left out
            if problems:
                warn("left out node %s: %s", node.node.node_id, "; ".join(problems))
                left_out.append(node)
            continue
        try:
            number_sources([item], merge=False)
        except CiteError as exc:
            warn("left out node %s: %s", node.node.node_id, exc)
            left_out.append(node)
            continue
        if problems:
            warn("node %s: %s", node.node.node_id, "; ".join(problems))
            repaired.append(node)
        kept.append((node, item))
    return kept, left_out, repaired


def left_out_label(node: NodeWithScore) -> str:
    """How ``CitedAnswer.left_out`` names a node left out: ``Image <name> (no caption)`` for an image
    without a caption, else the node's id (the log says what the core found wrong)."""
    image = image_of(node.node)
    if image is not None and not image.get("caption"):
        return f"Image {image_name(node.node, image)} (no caption)"
    return f"Node {node.node.node_id} (not readable as a source)"


def source_item(node: NodeWithScore, *, images: bool = False) -> tuple[dict[str, Any] | None, list[str]]:
    """A cite_core source item for a node (None if it has no text), and the fields left out as invalid.

    The document is the node's ``file_path`` when its physical page is known (a PDF's pages merge into
    one paged reference, each page's label shown), else its ``ref_doc_id`` (page documents stay apart:
    their ``start_char_idx`` count from each page's start). ``images``: as for ``checked_items``."""
    inner = node.node
    text, image, problem = caption_of(inner, inner.get_content(metadata_mode=MetadataMode.NONE), images)
    if not text or not text.strip():
        return None, [problem] if problem else []
    meta = inner.metadata
    doc = inner.source_node.node_id if inner.source_node is not None else None
    extra = file_metadata(meta)
    extra["node_id"] = inner.node_id
    if doc is not None:
        extra["ref_doc_id"] = doc
    path, page = metadata_text(meta.get("file_path")), physical_page(meta, doc or inner.node_id)
    item: dict[str, Any] = {
        "text": text,
        "title": metadata_text(meta.get("title")) or metadata_text(meta.get("file_name")) or file_name(path),
        "url": metadata_text(meta.get("url")),
        "author": metadata_text(meta.get("author")),
        "document_id": (path if page is not None else None) or doc or inner.node_id,
        "metadata": extra,
    }
    problems = []
    if node.score is not None and isinstance(node.score, (int, float)) and math.isfinite(node.score):
        item["score"] = node.score
    elif node.score is not None:
        problems.append(f"score {node.score!r} ignored")
    start = getattr(inner, "start_char_idx", None)
    if isinstance(start, int) and start >= 0:
        if in_document(start, getattr(inner, "end_char_idx", None), text):
            item["start_char_idx"] = start
    elif start is not None:
        problems.append(f"start_char_idx {start!r} ignored")
    if page is not None:
        item["page"] = page
    return (item if image is None else with_image(item, image)), problems
