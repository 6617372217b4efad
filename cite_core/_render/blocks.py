"""Walk ``answer.content``: each block's text and the markers that follow it, as every renderer shows them.

Renderers never re-parse ``answer.text``: a block's markers are its citations grouped by display
number (order of first appearance in the block). The whitespace before them is the block's
``marker_text`` when the parser gives it, else one space after a word that is not CJK.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._models import Citation, CitedAnswer, TextBlock

__all__ = ["Marker", "walk", "weak_numbers"]

_SPACE_BEFORE = re.compile(r"[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff.,;:!?)\]\"'”’%]$")


@dataclass(frozen=True)
class Marker:
    """One ``[n]`` after a block: its display number and the block's citations of that reference."""

    number: int
    citations: tuple[Citation, ...]
    weak: bool
    """Every citation of this marker is below the answer's ``unsupported_threshold``."""


def _lead(block: TextBlock) -> str:
    marker_text = getattr(block, "marker_text", None)
    if isinstance(marker_text, str):
        return marker_text[: len(marker_text) - len(marker_text.lstrip())]
    return " " if _SPACE_BEFORE.search(block.text) else ""


def walk(answer: CitedAnswer) -> Iterator[tuple[TextBlock, str, list[Marker]]]:
    """``(block, whitespace before its markers, markers)`` for every block, in answer order."""
    numbers = {ref.number for ref in answer.references}
    threshold = answer.unsupported_threshold
    for block in answer.content:
        groups: dict[int, list[Citation]] = {}
        for citation in block.citations or []:
            if citation.reference in numbers:
                groups.setdefault(citation.reference, []).append(citation)
        markers = [
            Marker(number, tuple(cs), all(c.support < threshold for c in cs)) for number, cs in groups.items()
        ]
        yield block, _lead(block) if markers else "", markers


def weak_numbers(answer: CitedAnswer) -> list[int]:
    """Display numbers that appear as a weak marker somewhere, in order of first appearance."""
    return list(dict.fromkeys(m.number for _, _, markers in walk(answer) for m in markers if m.weak))
