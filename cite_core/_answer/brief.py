"""The shortest citation instructions: for prompts with little room (a small context window)."""

from __future__ import annotations

from .._args import MAX_NUMBER, shown
from .._exceptions import ArgumentError

__all__ = ["brief_citation_instructions"]

_BRIEF = (
    'Cite the numbered sources (1 to {count}) that support each claim as [n] right after it: "The grass '
    'is green [1]." Never cite another number; write no reference list.'
)


def brief_citation_instructions(count: int) -> str:
    """``citation_instructions(count)`` in one sentence pair (about 40 tokens instead of about 140):
    cite with ``[n]`` markers, only numbers 1..``count``, no reference list."""
    if type(count) is not int or not 1 <= count <= MAX_NUMBER:
        raise ArgumentError(f"count must be an int of at least 1 (at most {MAX_NUMBER}), got {shown(count)}")
    return _BRIEF.format(count=count)
