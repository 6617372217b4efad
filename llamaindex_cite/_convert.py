"""Convert LlamaIndex nodes to cite_core sources, and cited answers back to nodes and responses."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.schema import MetadataMode, NodeWithScore

from cite_core import Citation, CitedAnswer, CiteError, Source, number_sources, reference_entries

from ._images import caption_of, uncaptioned, with_image
from ._options import CitedResponse
from ._pages import file_metadata, file_name, in_document, metadata_text, physical_page

__all__ = [
    "CITE_AS_KEY",
    "REFERENCE_NUMBER_KEY",
    "SENTENCES_KEY",
    "SOURCE_NUMBER_KEY",
    "NumberedNodes",
    "annotate",
    "number_nodes",
    "renumber_nodes",
]

SOURCE_NUMBER_KEY = "source_number"
"""Node metadata: the number the model sees for the node's source (``[n]``)."""
SENTENCES_KEY = "source_sentences"
"""Node metadata: half-open ``[start, end]`` sentence spans in the node's own text."""
CITE_AS_KEY = "cite_as"
"""Node metadata shown to the LLM: the ``[n]`` label to cite the node with."""
REFERENCE_NUMBER_KEY = "reference_number"
"""Node metadata on cited nodes: the display number of their reference (1..k, first appearance)."""

_HIDDEN = (SOURCE_NUMBER_KEY, SENTENCES_KEY, REFERENCE_NUMBER_KEY, "cite_query")  # _tickets.QUERY_KEY
logger = logging.getLogger("llamaindex_cite")
_Checked = tuple[list[tuple[NodeWithScore, dict[str, Any]]], list[NodeWithScore], list[NodeWithScore]]


@dataclass
class NumberedNodes:
    """Sources numbered 1..N for some nodes, and the nodes behind each source."""

    sources: list[Source]
    nodes: dict[int, list[NodeWithScore]]
    """The nodes behind each source number, in rank order (several when chunks were merged)."""
    left_out: list[NodeWithScore] = field(default_factory=list)
    """Nodes not numbered at all (left out to fit the token budget, or rejected by the core)."""
    repaired: list[NodeWithScore] = field(default_factory=list)
    """Nodes numbered without a bad field (a NaN score, a negative ``start_char_idx``)."""
    segment_nodes: dict[int, list[list[NodeWithScore]]] = field(default_factory=dict)  # by citation.segment

    def dropped_nodes(self, dropped: Sequence[Source], parts: Sequence[Source] = ()) -> list[NodeWithScore]:
        """The nodes the model did not see: those of ``dropped`` sources, those of sources shown only in
        part (``parts``) that the part does not begin, then those left out."""
        unseen = [
            node
            for part in parts
            for node in self.nodes[part.number]
            if not any(
                s.text and node.node.get_content(MetadataMode.NONE).startswith(s.text) for s in part.segments
            )
        ]
        return [node for source in dropped for node in self.nodes[source.number]] + unseen + self.left_out

    def cited_nodes(self, answer: CitedAnswer) -> list[NodeWithScore]:
        """The cited nodes only, in reference order, each marked with its numbers: of a source merged
        from several nodes, those behind its citations' segments (all when a segment is unknown)."""
        cited: dict[int, list[Citation]] = {}
        for citation in answer.citations:
            cited.setdefault(citation.reference, []).append(citation)
        return [
            node
            for ref in answer.references
            for node in self.nodes_for(ref.source.number, ref.number, cited.get(ref.number, []))
        ]

    def nodes_for(self, number: int, reference: int, citations: Sequence[Citation]) -> list[NodeWithScore]:
        """The nodes of source ``number`` behind the segments of ``citations``, marked with their numbers."""
        group, segments = self.nodes[number], self.segment_nodes.get(number, [])
        known = all(c.segment is not None and c.segment < len(segments) for c in citations)
        ids = {id(node) for c in citations if known for node in segments[c.segment or 0]}
        chosen = [node for node in group if id(node) in ids] or group
        marks = {REFERENCE_NUMBER_KEY: reference, SOURCE_NUMBER_KEY: number}
        return [annotate(node, marks) for node in chosen]

    def response(
        self,
        answer: CitedAnswer,
        *,
        raw: str,
        shown: Sequence[Source] | None = None,
        dropped: Sequence[Source] = (),
    ) -> CitedResponse:
        """A LlamaIndex ``Response`` of the cited answer whose ``source_nodes`` are the cited nodes."""
        metadata = self.metadata(answer, raw=raw, shown=shown, dropped=dropped)
        return CitedResponse(answer.text, source_nodes=self.cited_nodes(answer), metadata=metadata)

    def metadata(
        self,
        answer: CitedAnswer | None,
        *,
        raw: str | None,
        shown: Sequence[Source] | None = None,
        dropped: Sequence[Source] = (),
    ) -> dict[str, Any]:
        """A cited response's ``metadata``: ``answer_metadata`` and the dropped and repaired nodes."""
        sources = self.sources if shown is None else shown
        metadata = answer_metadata(answer, raw=raw, sources=sources, dropped=dropped)
        metadata["dropped_nodes"] = self.dropped_nodes(dropped)
        metadata["repaired_nodes"] = list(self.repaired)
        return metadata


def answer_metadata(
    answer: CitedAnswer | None, *, raw: str | None, sources: Sequence[Source], dropped: Sequence[Source]
) -> dict[str, Any]:
    """What a cited response carries in ``metadata``."""
    return {
        "cited_answer": answer,
        "anthropic": answer.to_anthropic() if answer else None,
        "invalid_markers": list(answer.invalid_markers) if answer else [],
        "references": reference_entries(answer) if answer else [],
        "raw_answer": raw,
        "sources": list(sources),
        "dropped_sources": list(dropped),
    }


def number_nodes(nodes: Sequence[NodeWithScore], *, merge: bool = True) -> NumberedNodes:
    """Number nodes as sources 1..N in rank order; with ``merge``, chunks of one document share a number.

    Empty nodes are skipped; an image node is cited by its caption, one without is left out (``_images``).
    A node the core rejects is left out too (``left_out``); a node with a bad field (a NaN score, a
    negative ``start_char_idx``) is kept without it (``repaired``): one bad node never fails the query.
    """
    kept, left_out, repaired = checked_items(nodes)
    sources = number_sources([item for _, item in kept], merge=merge)
    owners = {s.number: [kept[i][0] for i in s.item_indices] for s in sources}
    segment_nodes = {s.number: [[kept[i][0] for i in seg] for seg in s.segment_item_indices] for s in sources}
    return NumberedNodes(sources, owners, left_out, repaired, segment_nodes)


def checked_items(nodes: Sequence[NodeWithScore]) -> _Checked:
    """The nodes with text the core accepts, with their source items; those it rejects; those repaired."""
    kept, left_out, repaired = [], [], []
    for node in nodes:
        item, problems = source_item(node)
        if item is None:
            left_out.extend(uncaptioned(node, problems))
            continue
        try:
            number_sources([item], merge=False)
        except CiteError as exc:
            logger.warning("left out node %s: %s", node.node.node_id, exc)
            left_out.append(node)
            continue
        if problems:
            logger.warning("node %s: %s", node.node.node_id, "; ".join(problems))
            repaired.append(node)
        kept.append((node, item))
    return kept, left_out, repaired


def renumber_nodes(nodes: Sequence[NodeWithScore]) -> NumberedNodes:
    """The sources of nodes that carry ``SOURCE_NUMBER_KEY``, numbered as recorded there."""
    groups: dict[int, list[NodeWithScore]] = {}
    for node in nodes:
        number = node.node.metadata.get(SOURCE_NUMBER_KEY)
        if isinstance(number, int) and not isinstance(number, bool):
            groups.setdefault(number, []).append(node)
    sources, owners, segment_nodes = [], {}, {}
    for number in sorted(groups):
        numbered = number_nodes(groups[number])
        for source in numbered.sources[:1]:  # one document, so one source
            sources.append(source.model_copy(update={"number": number}))
            owners[number], segment_nodes[number] = groups[number], numbered.segment_nodes[source.number]
    return NumberedNodes(sources=sources, nodes=owners, segment_nodes=segment_nodes)


def source_item(node: NodeWithScore) -> tuple[dict[str, Any] | None, list[str]]:
    """A cite_core source item for a node (None if it has no text), and the fields left out as invalid.

    The document is the node's ``file_path`` when its physical page is known (a PDF's pages merge into
    one paged reference, each page's label shown), else its ``ref_doc_id`` (page documents stay apart:
    their ``start_char_idx`` count from each page's start)."""
    inner = node.node
    text, image, problem = caption_of(inner, inner.get_content(metadata_mode=MetadataMode.NONE))
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


def annotate(
    node: NodeWithScore, values: dict[str, Any], *, shown: dict[str, Any] | None = None
) -> NodeWithScore:
    """A copy of ``node`` with ``values`` in its metadata (hidden from LLM, embeddings), ``shown`` first."""
    inner = node.node
    metadata = {
        **(shown or {}),
        **{k: v for k, v in inner.metadata.items() if k not in (shown or {})},
        **values,
    }
    hidden = [k for k in _HIDDEN if k in values]
    copy = inner.model_copy(
        update={
            "metadata": metadata,
            "excluded_llm_metadata_keys": list(dict.fromkeys([*inner.excluded_llm_metadata_keys, *hidden])),
            "excluded_embed_metadata_keys": list(
                dict.fromkeys([*inner.excluded_embed_metadata_keys, *hidden, *(shown or {})])
            ),
        }
    )
    return NodeWithScore(node=copy, score=node.score)
