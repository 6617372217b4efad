"""What the recognisers of model text answer, and the shapes they return.

Every recogniser (``markers.py``, ``tags.py``, ``line_starts.py``) answers from what it was given: a
match, ``None`` (not a marker), or ``NEED`` (the text so far could still become a marker; wait for more,
bounded by a ``MAX_*`` number of characters). A match that touches the end of the text is not trusted
until more text or the end arrives, so the answer never depends on where a stream was cut.

Each construct is one ``Construct``: its pattern and its limit, used by the whole parse and the stream
alike. The pattern only ever sees the construct's window (``limit`` characters from where it may
start), so no pattern runs over an unbounded stretch of text (linear time: each position is looked at
by a bounded number of windows), a construct is never longer than its limit, and the stream, which
holds back at most ``limit`` characters for it, decides from exactly the characters the whole parse
decides from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_HOLD", "NEED", "NUM", "Construct", "Item", "Marker", "Tag", "ThinkTag", "simple_marker"]

NEED = "need"
"""Returned when the text may still become a marker once more of it arrives."""

MAX_HOLD = 48
"""The limit of a marker and of a ``<CIT>`` tag: at most this many characters are held back for an
unfinished one (a link target after a marker: ``MAX_URL``)."""

NUM = r"[0-9０-９]{1,6}"
"""One cited number (ASCII or fullwidth digits), in markers and in ``<CIT>`` attributes."""


@dataclass(frozen=True)
class Construct:
    """One construct of model text: its pattern and its limit, the single definition of both."""

    pattern: re.Pattern[str]
    limit: int
    """The construct spans at most this many characters; a stream holds back at most this many for it."""

    def match(self, text: str, pos: int) -> re.Match[str] | None:
        """The construct at ``text[pos]``, looked for in its window only."""
        return self.pattern.match(text, pos, pos + self.limit)

    def known(self, text: str, pos: int, eof: bool) -> bool:
        """Whether the window at ``pos`` is complete: no later input can change what it holds."""
        return eof or len(text) - pos >= self.limit

    def final(self, match: re.Match[str], text: str, eof: bool) -> bool:
        """Whether ``match`` stands: it ends before the text received so far, or its window is complete
        (a match touching the end of a partial text may still grow: ``[1]`` into ``[1]]``)."""
        return match.end() < len(text) or self.known(text, match.start(), eof)

    def window(self, text: str, pos: int) -> str:
        """The characters of the window at ``pos`` received so far."""
        return text[pos : pos + self.limit]


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


_new = object.__new__
_set_item = Item.__dict__["__dict__"].__set__
_set_marker = Marker.__dict__["__dict__"].__set__


def simple_marker(start: int, end: int, raw: str, number: int) -> Marker:
    """``Marker(start, end, raw, (Item(number, raw),))``, the marker most models write (``[12]``), without
    the frozen dataclasses' ``__init__``, which sets each field through ``object.__setattr__`` (0.76 ->
    0.53 µs a marker): the same fields, so the same equality, hash and repr."""
    item = _new(Item)
    _set_item(item, {"number": number, "raw": raw, "sentences": None})
    marker = _new(Marker)
    _set_marker(marker, {"start": start, "end": end, "raw": raw, "items": (item,), "invalid": ()})
    return marker


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
