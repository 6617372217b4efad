"""What the recognisers of model text answer, and the shapes they return.

Every recogniser (``_markers.py``, ``_tags.py``, ``_line_starts.py``) answers from what it was given: a
match, ``None`` (not a marker), or ``NEED`` (the text so far could still become a marker; wait for more,
bounded by a ``MAX_*`` number of characters). A match that touches the end of the text is not trusted
until more text or the end arrives, so the answer never depends on where a stream was cut.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NEED", "NUM", "Item", "Marker", "Tag", "ThinkTag"]

NEED = "need"
"""Returned when the text may still become a marker once more of it arrives."""

NUM = r"[0-9０-９]{1,6}"
"""One cited number (ASCII or fullwidth digits), in markers and in ``<CIT>`` attributes."""


@dataclass(frozen=True)
class Item:
    """One cited number of a marker, with the sentence range it names (1-based, inclusive), if any."""

    number: int
    raw: str
    sentences: tuple[int, int] | None = None


@dataclass(frozen=True)
class Marker:
    """A marker such as ``[1]``, ``[1, 2]``, ``[Source 3]`` or ``[2:1-3]``, spanning ``start:end``."""

    start: int
    end: int
    raw: str
    items: tuple[Item, ...]
    invalid: tuple[str, ...] = ()
    """Parts that name no number (an over-wide range), reported as invalid."""


@dataclass(frozen=True)
class Tag:
    """``<CIT chunk_id='n' sentences='a-b'>`` (``items`` set) or ``</CIT>`` (``items`` empty); with
    ``name`` ``statement`` or ``cite``, a tag of the LongCite format ``<statement>S<cite>[a-b]</cite>``."""

    start: int
    end: int
    raw: str
    items: tuple[Item, ...] = ()
    closing: bool = False
    name: str = "cit"
    """``cit``, ``statement`` or ``cite`` (lower case)."""


@dataclass(frozen=True)
class ThinkTag:
    """``<think>``, ``<thinking>`` or ``<reasoning>`` (any case), opening or closing, at ``start:end``."""

    start: int
    end: int
    name: str
    """The lower-cased tag name."""
    closing: bool = False
