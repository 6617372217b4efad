"""Building a numbered ``Source`` from one checked input item (``_Item``: its texts, fields, metadata and
the chunks merged into it): the segments' layout and labels, and the model itself, built without pydantic's
validation when ``numbering`` checked and made every value (``_known_valid``) and validated otherwise.
``number_sources`` (``numbering.py``) checks the items and numbers them; this module lays them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from .._exceptions import SourceError
from .._schema.models import Segment, Source, SourceKind
from .._schema.source import built_source

__all__ = ["SEGMENT_SEPARATOR", "kept_segments_metadata"]

SEGMENT_SEPARATOR = "\n\n"
"""What joins the segments of a source in ``Source.text``."""


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
