"""One citation builder: a span of ``Source.text`` as a citation in the source's own coordinates.

Used by the localiser (a span it chose inside one segment) and by the Anthropic mapping (a span Claude
cited, possibly over several pages or blocks), so both give the same location for the same span.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from ._events import char_location
from ._models import (
    CharLocation,
    Citation,
    CitedAnswer,
    ContentBlockLocation,
    PageLocation,
    Reference,
    Source,
    TextBlock,
)

__all__ = ["build_answer", "citation_for_span", "display_number"]


def display_number(numbers: dict[int, int], number: int) -> int:
    """The display number of source ``number``: 1..k in order of first appearance (``numbers`` grows)."""
    return numbers.setdefault(number, len(numbers) + 1)


def build_answer(
    display: Iterable[str],
    blocks: list[TextBlock],
    numbers: dict[int, int],
    by_number: dict[int, Source],
    *,
    invalid: list[str],
    threshold: float,
    removed: str = "",
    reasoning: str = "",
) -> CitedAnswer:
    """The answer of a ``[n]`` stream or of Claude's citations: display text, blocks, references in
    order of first appearance (``numbers``: source number -> display number)."""
    return CitedAnswer(
        text="".join(display),
        content=blocks,
        references=[Reference(number=shown, source=by_number[n]) for n, shown in numbers.items()],
        invalid_markers=invalid,
        removed_reference_list=removed if removed.strip() else None,
        unsupported_threshold=threshold,
        reasoning=reasoning,
    )


def citation_for_span(
    source: Source,
    start: int,
    end: int,
    *,
    reference: int,
    support: float,
    segment: int | None = None,
) -> Citation:
    """The citation of ``source.text[start:end]``: pages, blocks, or characters (in document
    coordinates when every chunk knew its start offset, clipped to the first chunk covered).

    ``segment`` is the index of the one segment holding the span, when the caller knows it."""
    segments = source.segments
    if segment is None:
        covered = [i for i, s in enumerate(segments) if s.start < end and s.end > start] or [0]
        first, last = segments[covered[0]], segments[covered[-1]]
    else:
        first = last = segments[segment]
    kind = source.kind
    if kind == "pages" and first.page is not None and last.page is not None:
        return PageLocation(
            cited_text=source.text[start:end],
            source_start=start,
            source_end=end,
            start_page_number=first.page,
            end_page_number=last.page + 1,
            **_common(source, reference, support),
        )
    if kind == "blocks" and first.block is not None and last.block is not None:
        return ContentBlockLocation(
            cited_text=source.text[start:end],
            source_start=start,
            source_end=end,
            start_block_index=first.block,
            end_block_index=last.block + 1,
            **_common(source, reference, support),
        )
    offset = 0
    coordinates: Literal["document", "source"] = "source"
    if source.document_coordinates:  # chunks with known start offsets: cite within one chunk
        start, end = max(start, first.start), min(end, first.end)
        offset = first.doc_start - first.start  # type: ignore[operator]
        coordinates = "document"
    if 0 <= start <= end and start + offset >= 0 and reference >= 0 and type(support) in (float, int):
        # the usual case, valid by construction: built without validation
        return char_location(
            source.text[start:end],
            source.number - 1,
            source.title,
            reference,
            support,
            start,
            end,
            offset,
            coordinates,
        )
    return CharLocation(
        cited_text=source.text[start:end],
        source_start=start,
        source_end=end,
        start_char_index=start + offset,
        end_char_index=end + offset,
        coordinates=coordinates,
        **_common(source, reference, support),
    )


def _common(source: Source, reference: int, support: float) -> dict[str, Any]:
    """The fields every location shares."""
    return {
        "document_index": source.number - 1,
        "document_title": source.title,
        "reference": reference,
        "support": support,
    }
