"""Convert LlamaIndex nodes to cite_core sources, and cited answers back to nodes and responses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from llama_index.core.schema import MetadataMode, NodeWithScore

from cite_core import Citation, CitedAnswer, Source, number_sources, reference_entries

from ._node_items import checked_items, left_out_label
from ._options import CitedResponse

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


@dataclass
class NumberedNodes:
    """Sources numbered 1..N for some nodes, and the nodes behind each source."""

    sources: list[Source]
    nodes: dict[int, list[NodeWithScore]]
    """The nodes behind each source number, in rank order (several when chunks were merged)."""
    left_out: list[NodeWithScore] = field(default_factory=list)
    """Nodes not numbered at all (an image without a caption for a text-only model, or rejected by the
    core): ``with_left_out`` names them on the answer."""
    repaired: list[NodeWithScore] = field(default_factory=list)
    """Nodes numbered without a bad field (a NaN score, a negative ``start_char_idx``)."""
    segment_nodes: dict[int, list[list[NodeWithScore]]] = field(default_factory=dict)  # by citation.segment
    no_model_asked: Literal["no_sources", "no_text"] | None = None
    """Why no model was asked (nothing retrieved, ``response_mode="no_text"``): set on the answer."""

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

    def with_left_out(self, answer: CitedAnswer) -> CitedAnswer:
        """``answer`` naming the nodes left out in ``CitedAnswer.left_out`` (its ``left_out`` note)."""
        labels = [label for label in map(left_out_label, self.left_out) if label not in answer.left_out]
        update: dict[str, Any] = {"left_out": [*answer.left_out, *labels]} if labels else {}
        if self.no_model_asked is not None and not answer.text.strip():
            update["no_model_asked"] = self.no_model_asked  # its note, not "the model's reply was empty"
        return answer.model_copy(update=update) if update else answer

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
        answer = self.with_left_out(answer)
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
        answer = self.with_left_out(answer) if answer is not None else None
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


def number_nodes(
    nodes: Sequence[NodeWithScore], *, merge: bool = True, images: bool = False
) -> NumberedNodes:
    """Number nodes as sources 1..N in rank order; with ``merge``, chunks of one document share a number.

    Empty nodes are skipped; an image node is cited by its caption; one without is numbered when the
    model is shown images (``images``: cited as ``Image <name> (no caption)``), else left out
    (``_node_items``). A node the core rejects is left out too (``left_out``); a node with a bad field (a
    NaN score, a negative ``start_char_idx``) is kept without it (``repaired``): one bad node never fails
    the query.
    """
    kept, left_out, repaired = checked_items(nodes, images=images)
    sources = number_sources([item for _, item in kept], merge=merge)
    owners = {s.number: [kept[i][0] for i in s.item_indices] for s in sources}
    segment_nodes = {s.number: [[kept[i][0] for i in seg] for seg in s.segment_item_indices] for s in sources}
    return NumberedNodes(sources, owners, left_out, repaired, segment_nodes)


def renumber_nodes(nodes: Sequence[NodeWithScore]) -> NumberedNodes:
    """The sources of nodes that carry ``SOURCE_NUMBER_KEY``, numbered as recorded there; of the others,
    those that could not be numbered are ``left_out`` (an empty node is not)."""
    groups: dict[int, list[NodeWithScore]] = {}
    unnumbered = []
    for node in nodes:
        number = node.node.metadata.get(SOURCE_NUMBER_KEY)
        if isinstance(number, int) and not isinstance(number, bool):
            groups.setdefault(number, []).append(node)
        else:
            unnumbered.append(node)
    sources, owners, segment_nodes = [], {}, {}
    for number in sorted(groups):
        numbered = number_nodes(groups[number])
        for source in numbered.sources[:1]:  # one document, so one source
            sources.append(source.model_copy(update={"number": number}))
            owners[number], segment_nodes[number] = groups[number], numbered.segment_nodes[source.number]
    left_out = checked_items(unnumbered, log=False)[1]  # logged when they were numbered
    return NumberedNodes(sources=sources, nodes=owners, segment_nodes=segment_nodes, left_out=left_out)


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
