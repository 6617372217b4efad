"""A merged source cut down to whole chunks for the token budget.

Chunks of one document (pages of a PDF, splits of a file) merge into one numbered source. When that
source does not fit the budget, it is shown with its best-ranked chunks that fit, whole, in document
order, rather than dropped: a budget that fits the top-ranked chunk never fails because its
neighbours were merged with it. The shown part keeps the source's number; each kept chunk keeps its
page, block and document offset, so its citations point where the whole source's would.
"""

from __future__ import annotations

from collections.abc import Callable

from .._schema.models import Segment, Source
from .source_build import SEGMENT_SEPARATOR, kept_segments_metadata

__all__ = ["best_chunks", "chunks_of"]


def chunks_of(source: Source, keep: list[int]) -> Source:
    """``source`` shown with only its segments at indices ``keep`` (in document order)."""
    segments: list[Segment] = []
    offset, items = 0, list[int]()
    for i in sorted(keep):
        seg = source.segments[i]
        segments.append(
            Segment(text=seg.text, start=offset, doc_start=seg.doc_start, page=seg.page, block=seg.block)
        )
        offset += len(seg.text) + len(SEGMENT_SEPARATOR)
        items.extend(source._segment_items[i])
    part = source.model_copy(
        update={
            "text": SEGMENT_SEPARATOR.join(s.text for s in segments),
            "segments": tuple(segments),
            "metadata": kept_segments_metadata(source, sorted(keep)),
        }
    )
    part._item_indices = tuple(i for i in source.item_indices if i in items)
    part._segment_items = tuple(source._segment_items[i] for i in sorted(keep))
    return part


def best_chunks(source: Source, fits: Callable[[Source], bool]) -> Source | None:
    """``source`` cut to its best-ranked whole chunks for which ``fits`` holds: chunks are added in rank
    order (the rank of the best item each holds) until one does not fit. None when not even the
    best-ranked chunk fits alone."""
    rank = {item: r for r, item in enumerate(source.item_indices)}
    order = sorted(
        range(len(source._segment_items)),
        key=lambda i: (min(rank.get(item, len(rank)) for item in source._segment_items[i]), i),
    )
    best, keep = None, list[int]()
    for i in order:
        candidate = chunks_of(source, [*keep, i])
        if not fits(candidate):
            break
        best, keep = candidate, [*keep, i]
    return best
