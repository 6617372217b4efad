"""Walk ``answer.content``: each block's text and the markers that follow it, as every renderer shows them.

Renderers never re-parse ``answer.text`` nor a block's ``marker_text``. A block's ``marker_groups``
(from the parser) are the display markers that follow it in ``answer.text`` as data: each group's
display numbers, the citations they stand for, the whitespace before them and the text shown after
them (the comma of a lead-in: ``According to [2], the sky is blue.``).

When no block has marker groups but some have citations (blocks built by hand, or JSON from a version
before ``marker_groups``), the markers are the block's citations grouped by display number, after one
space when the block ends in a word that is not CJK, and before the closing punctuation (``"Paris."``
shows as ``Paris [1].``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._schema.models import Citation, CitedAnswer, TextBlock

__all__ = ["Marker", "Piece", "unverified_numbers", "walk", "weak_numbers"]

_CLOSING = re.compile(r"[.!?。！？]+$")
_SPACE_BEFORE = re.compile(r"[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff.,;:!?)\]\"'”’%]$")


@dataclass(frozen=True)
class Marker:
    """One ``[n]``: its display number and the citations of that reference it stands for."""

    number: int
    citations: tuple[Citation, ...]
    weak: bool
    """Every citation of this marker is below the answer's ``unsupported_threshold``."""


@dataclass(frozen=True)
class Piece:
    """A block as shown: its text, the whitespace before its markers, the markers, then ``tail``."""

    block: TextBlock
    text: str
    lead: str
    markers: list[Marker]
    tail: str = ""


def _marker(number: int, citations: Sequence[Citation], threshold: float, unverified: set[int]) -> Marker:
    weak = number not in unverified and bool(citations) and all(c.support < threshold for c in citations)
    return Marker(number, tuple(citations), weak)


def unverified_numbers(answer: CitedAnswer) -> list[int]:
    """Display numbers of references a provider named that no source given holds (``from_native``
    without sources, or a web result): their quotes are what the provider said, unverified. Their
    markers are not flagged weak: a support score of a quote nobody checked would mean nothing."""
    return [
        ref.number
        for ref in answer.references
        if (ref.source.metadata.get("native_citation") or {}).get("quote_verified") is False
    ]


def walk(answer: CitedAnswer) -> Iterator[Piece]:
    """Every block as shown, in answer order."""
    blocks = answer.content
    if any(b.marker_groups for b in blocks) or not any(b.citations for b in blocks):
        yield from _walk_marker_groups(answer)
        return
    numbers = {ref.number for ref in answer.references}
    unverified = set(unverified_numbers(answer))
    for block in blocks:
        groups: dict[int, list[Citation]] = {}
        for citation in block.citations or []:
            if citation.reference in numbers:
                groups.setdefault(citation.reference, []).append(citation)
        if not groups:
            yield Piece(block, block.text, "", [])
            continue
        markers = [_marker(n, cs, answer.unsupported_threshold, unverified) for n, cs in groups.items()]
        closing = _CLOSING.search(block.text)
        text = block.text[: closing.start()] if closing else block.text
        lead = " " if _SPACE_BEFORE.search(text) else ""
        yield Piece(block, text, lead, markers, closing.group() if closing else "")


def _walk_marker_groups(answer: CitedAnswer) -> Iterator[Piece]:
    """The blocks with the marker groups the parser recorded: each marker's number and citations."""
    numbers = {ref.number for ref in answer.references}
    unverified = set(unverified_numbers(answer))
    for block in answer.content:
        groups = block.marker_groups
        if not groups:
            yield Piece(block, block.text + block.marker_text, "", [])
            continue
        cited: dict[int, list[Citation]] = {}
        for group in groups:
            for n in group.numbers:
                if n in numbers:
                    cited.setdefault(n, []).extend(c for c in group.citations if c.reference == n)
        markers = [_marker(n, cs, answer.unsupported_threshold, unverified) for n, cs in cited.items()]
        yield Piece(block, block.text, groups[0].lead, markers, groups[-1].tail)


def weak_numbers(answer: CitedAnswer) -> list[int]:
    """Display numbers that appear as a weak marker somewhere, in order of first appearance."""
    return list(dict.fromkeys(m.number for piece in walk(answer) for m in piece.markers if m.weak))


def citations_by_reference(answer: CitedAnswer) -> dict[int, list[Citation]]:
    """The answer's citations grouped by display number, in order (a reference list's entries)."""
    by_ref: dict[int, list[Citation]] = {}
    for citation in answer.citations:
        by_ref.setdefault(citation.reference, []).append(citation)
    return by_ref
