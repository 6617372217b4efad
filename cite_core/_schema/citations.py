"""One citation builder: a span of ``Source.text`` as a citation in the source's own coordinates.

Used by the localiser (a span it chose inside one segment) and by the Anthropic mapping (a span Claude
cited, possibly over several pages or blocks), so both give the same location for the same span.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from .._args import MAX_NUMBER, shown
from .._exceptions import ArgumentError
from .events import char_location, cited_answer, reference
from .models import (
    CharLocation,
    Citation,
    CitedAnswer,
    ContentBlockLocation,
    PageLocation,
    Source,
    TextBlock,
)
from .utf16 import source_utf16, source_utf16_span

__all__ = ["DisplayNumbers", "build_answer", "citation_for_span", "display_number"]


class DisplayNumbers(dict[int, int]):
    """Source number -> display number, in order of first appearance (the references' order).

    ``fixed`` numbers are kept as given (a conversation's earlier numbers, a session's numbers); other
    sources get the next numbers after the largest of ``fixed``, ``first_new - 1`` and those shown."""

    def __init__(self, fixed: Mapping[int, int] | None = None, first_new: int | None = None) -> None:
        super().__init__()
        self.fixed = dict(fixed or {})
        self.last = max([*self.fixed.values(), (first_new or 1) - 1, 0])

    def show(self, number: int) -> int:
        shown = self.get(number)
        if shown is None:
            shown = self.fixed.get(number)
            if shown is None:
                shown = self.last = self.last + 1
            self[number] = shown
        return shown


def check_display_numbers(fixed: Any, first_new: Any) -> None:
    """A clear error for ``display_numbers`` that are not distinct positive ints by source number."""
    if fixed is not None:
        if not isinstance(fixed, Mapping):
            raise ArgumentError(f"display_numbers must be a mapping, got {type(fixed).__name__}")
        for key, value in fixed.items():
            for number in (key, value):
                if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_NUMBER:
                    raise ArgumentError(
                        f"display_numbers must map ints >= 1 to ints >= 1 (at most {MAX_NUMBER}), "
                        f"got {shown(key)}: {shown(value)}"
                    )
        if len(set(fixed.values())) != len(fixed):
            raise ArgumentError("display_numbers gives two sources the same number")
    if first_new is not None and (
        isinstance(first_new, bool) or not isinstance(first_new, int) or not 1 <= first_new <= MAX_NUMBER
    ):
        raise ArgumentError(f"first_new must be an int >= 1 (at most {MAX_NUMBER}), got {shown(first_new)}")


def display_number(numbers: dict[int, int], number: int) -> int:
    """The display number of source ``number``: 1..k in order of first appearance (``numbers`` grows),
    or as ``DisplayNumbers`` fixes it."""
    if isinstance(numbers, DisplayNumbers):
        return numbers.show(number)
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
    stopped_in_reasoning: bool = False,
    truncated: bool = False,
) -> CitedAnswer:
    """The answer of a ``[n]`` stream or of Claude's citations: display text, blocks, references in
    order of first appearance (``numbers``: source number -> display number)."""
    # built without validation when its values are as the parsers make them (``events.cited_answer``)
    return cited_answer(
        "".join(display),
        list(blocks),
        [reference(shown, by_number[n]) for n, shown in numbers.items()],
        list(invalid),
        removed if removed.strip() else None,
        threshold,
        reasoning,
        stopped_in_reasoning,
        truncated,
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
        at = covered[0]
        one = at if len(covered) == 1 else None  # the segment index the citation keeps
    else:
        first = last = segments[segment]
        at = one = segment
    kind = source.kind
    if kind == "pages" and first.page is not None and last.page is not None:
        return PageLocation(
            cited_text=source.text[start:end],
            source_start=start,
            source_end=end,
            source_start_utf16=source_utf16(source, start),
            source_end_utf16=source_utf16(source, end),
            start_page_number=first.page,
            end_page_number=last.page + 1,
            **_common(source, reference, support, one),
        )
    if kind == "blocks" and first.block is not None and last.block is not None:
        return ContentBlockLocation(
            cited_text=source.text[start:end],
            source_start=start,
            source_end=end,
            source_start_utf16=source_utf16(source, start),
            source_end_utf16=source_utf16(source, end),
            start_block_index=first.block,
            end_block_index=last.block + 1,
            **_common(source, reference, support, one),
        )
    # a first chunk without its start offset answers for all (``document_coordinates`` asks every one)
    offset, in_document = 0, first.doc_start is not None and source.document_coordinates
    if in_document:  # chunks with known start offsets: cite within one chunk
        start, end = max(start, first.start), min(end, first.end)
        offset = first.doc_start - first.start  # type: ignore[operator]
        one = at  # clipped to its first chunk
    coordinates: Literal["document", "source"] = "document" if in_document else "source"
    utf16: tuple[int | None, int | None] = (
        source_utf16_span(source, start, end) if 0 <= start <= end else (None, None)
    )
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
            one,
            utf16,
            in_document,
            coordinates,
        )
    return CharLocation(
        cited_text=source.text[start:end],
        source_start=start,
        source_end=end,
        start_char_index=start + offset,
        end_char_index=end + offset,
        source_start_utf16=utf16[0],
        source_end_utf16=utf16[1],
        start_char_index_utf16=None if in_document else utf16[0],
        end_char_index_utf16=None if in_document else utf16[1],
        coordinates=coordinates,
        **_common(source, reference, support, one),
    )


def _common(source: Source, reference: int, support: float, segment: int | None) -> dict[str, Any]:
    """The fields every location shares."""
    return {
        "document_index": source.number - 1,
        "document_title": source.title,
        "reference": reference,
        "support": support,
        "segment": segment,
    }
