"""What the assembler builds and what it asks of the locate stage: a marker group, the source an item
cites, the claim of a ``<CIT>`` tag and the ``Locator``.

Apart from ``assembler.py`` so that modules it uses (``statements.py``) can name a group without importing
the assembler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .._schema.models import Citation, Source
from .._sources.analysis import source_units
from .match_types import Item

__all__ = ["Group", "Locator", "cited_source", "tag_claim"]


class Group:
    """A run of adjacent markers citing one claim (``plain[start:end]`` once resolved)."""

    __slots__ = ("citations", "claim", "end", "forward", "items", "resolved", "start")

    def __init__(self) -> None:
        self.start = -1
        self.end = -1
        self.claim = ""
        self.items: list[tuple[Source, Item]] = []
        self.forward = False
        self.citations: list[Citation] = []
        self.resolved = False


def cited_source(by_number: dict[int, Source], item: Item, invalid: list[str]) -> Source | None:
    """The source ``item`` cites; None, its text added to ``invalid``, for a number that names no source or
    sentences the source does not have (``[1:999]``, ``[1:0]``, ``[1:3-99]``, ``sentences='42'``)."""
    source = by_number.get(item.number)
    if source is not None and item.sentences is not None:
        lo, hi = item.sentences
        if not 1 <= lo <= hi <= len(source_units(source)):
            source = None
    if source is None:
        invalid.append(item.raw)
    return source


def tag_claim(start: int, texts: list[str]) -> tuple[int, int, str]:
    """The claim of the tag opened at plain offset ``start``, its text so far ``texts``: stripped, as
    (start, end, text)."""
    # not the claim tail: markers inside the tag may have moved its boundary past the tag's start
    text = "".join(texts)
    lead = len(text) - len(text.lstrip())
    return start + lead, max(start + len(text.rstrip()), start + lead), text.strip()


class Locator(Protocol):
    """What the assembler asks of the locate stage (``Corpus``). The parser builds the corpus and hands
    it in, so that the stream does not import the stage that comes after it."""

    by_number: dict[int, Source]

    def cite(
        self, source: Source, claim: str, *, reference: int, sentences: tuple[int, int] | None = None
    ) -> Citation: ...

    def claim_terms(self, claim: str) -> Sequence[str]:
        """The terms of ``claim`` (``terms.analyze``'s), kept for its citations: the assembler asks
        whether a claim has two terms before it cites it (``claims.precedes_its_claim``)."""
        ...
