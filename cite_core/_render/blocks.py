"""Walk ``answer.content``: each block's text and the markers that follow it, as every renderer shows them.

Renderers never re-parse ``answer.text``. A block's ``marker_text`` (from the parser) holds the display
markers that follow it in ``answer.text`` (``" [1][2]"``), so ``block.text + marker_text`` over the
blocks rebuilds the text exactly. A marker's citations are those of its reference in the same block,
else in the blocks up to the next marker group (a lead-in: ``According to [2], the sky is blue.``), else
in the blocks back to the previous one.

When no block has ``marker_text`` but some have citations (blocks built by hand, or JSON from a version
before ``marker_text``), the markers are the block's
citations grouped by display number, after one space when the block ends in a word that is not CJK, and
before the closing punctuation (``"Paris."`` shows as ``Paris [1].``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._models import Citation, CitedAnswer, TextBlock

__all__ = ["Marker", "Piece", "walk", "weak_numbers"]

_NUMBER = re.compile(r"\[(\d+)\]")
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


def _marker(number: int, citations: Sequence[Citation], threshold: float) -> Marker:
    return Marker(number, tuple(citations), bool(citations) and all(c.support < threshold for c in citations))


def walk(answer: CitedAnswer) -> Iterator[Piece]:
    """Every block as shown, in answer order."""
    blocks = answer.content
    if any(b.marker_text for b in blocks) or not any(b.citations for b in blocks):
        yield from _walk_marker_text(answer)
        return
    numbers = {ref.number for ref in answer.references}
    for block in blocks:
        groups: dict[int, list[Citation]] = {}
        for citation in block.citations or []:
            if citation.reference in numbers:
                groups.setdefault(citation.reference, []).append(citation)
        if not groups:
            yield Piece(block, block.text, "", [])
            continue
        markers = [_marker(n, cs, answer.unsupported_threshold) for n, cs in groups.items()]
        closing = _CLOSING.search(block.text)
        text = block.text[: closing.start()] if closing else block.text
        lead = " " if _SPACE_BEFORE.search(text) else ""
        yield Piece(block, text, lead, markers, closing.group() if closing else "")


def _walk_marker_text(answer: CitedAnswer) -> Iterator[Piece]:
    blocks = answer.content
    numbers = {ref.number for ref in answer.references}
    marked = [i for i, b in enumerate(blocks) if b.marker_text.strip()]
    k = 0
    for i, block in enumerate(blocks):
        marker_text: str = block.marker_text
        if not marker_text.strip():
            yield Piece(block, block.text + marker_text, "", [])
            continue
        prev = marked[k - 1] if k else -1
        following = marked[k + 1] if k + 1 < len(marked) else len(blocks)
        k += 1
        order = [i, *range(i + 1, following), *range(i - 1, prev, -1)]
        markers = []
        for n in dict.fromkeys(int(x) for x in _NUMBER.findall(marker_text)):
            if n not in numbers:
                continue
            cited: list[Citation] = []
            for j in order:
                cited = [c for c in blocks[j].citations or [] if c.reference == n]
                if cited:
                    break
            markers.append(_marker(n, cited, answer.unsupported_threshold))
        lead = marker_text[: len(marker_text) - len(marker_text.lstrip())]
        tail = marker_text[marker_text.rfind("]") + 1 :]  # what follows the markers (", " after a lead-in)
        yield Piece(block, block.text, lead, markers, tail)


def weak_numbers(answer: CitedAnswer) -> list[int]:
    """Display numbers that appear as a weak marker somewhere, in order of first appearance."""
    return list(dict.fromkeys(m.number for piece in walk(answer) for m in piece.markers if m.weak))


def citations_by_reference(answer: CitedAnswer) -> dict[int, list[Citation]]:
    """The answer's citations grouped by display number, in order (a reference list's entries)."""
    by_ref: dict[int, list[Citation]] = {}
    for citation in answer.citations:
        by_ref.setdefault(citation.reference, []).append(citation)
    return by_ref
