"""What the assembler builds and what it asks of the locate stage: a marker group and the ``Locator``.

Apart from ``assembler.py`` so that modules it uses (``statements.py``) can name a group without importing
the assembler.
"""

from __future__ import annotations

from typing import Protocol

from .._schema.models import Citation, Source
from .match_types import Item

__all__ = ["Group", "Locator"]


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


class Locator(Protocol):
    """What the assembler asks of the locate stage (``Corpus``). The parser builds the corpus and hands
    it in, so that the stream does not import the stage that comes after it."""

    by_number: dict[int, Source]

    def cite(
        self, source: Source, claim: str, *, reference: int, sentences: tuple[int, int] | None = None
    ) -> Citation: ...
