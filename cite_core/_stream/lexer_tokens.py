"""The tokens the lexer hands the assembler: what each is (``Kind``) and what the lexer is inside (``Mode``).

A ``Token`` carries the text, marker or tag its kind says; the lexer (``lexer.py``) makes them, the
parser (``_answer/parser.py``) hands each to the ``Assembler``.
"""

from __future__ import annotations

import enum

from .match_types import Marker, Tag

__all__ = ["Kind", "Mode", "Token"]


class Mode(enum.Enum):
    """What the lexer is inside: each mode has its own scanner (``Lexer._SCANNERS``)."""

    TEXT = "text"
    """Answer text: markers, tags, code spans and thinking tags are looked for."""
    LINE_START = "line_start"
    """The start of a line not yet checked for a code fence or the start of a reference list."""
    GROUP = "group"
    """Right after a marker: separators and joiner words before another marker keep the group open."""
    TICKS = "ticks"
    """Answer text inside a backtick run already decided as text (too long to open a code span)."""
    SKIP_SPACE = "skip_space"
    """After a thinking section that opened the answer: the blank space before the answer is dropped."""
    CODE = "code"
    """Inline code, up to a backtick run of the opener's length or the end of the line."""
    CODE_TICKS = "code_ticks"
    """Inline code inside a backtick run longer than the opener's: its rest cannot close the span."""
    FENCE = "fence"
    """A fenced code block, up to its closing fence line."""
    REFLIST = "reflist"
    """A reference list the model wrote: everything to the end is removed."""
    THINK = "think"
    """A thinking section, up to its closing tag."""

    # Enum's __hash__ is a Python call (hash of the name); members compare by identity, so the
    # identity hash is equivalent and keeps the scanner lookup per mode switch in C.
    __hash__ = object.__hash__


class Kind(enum.Enum):
    """What a token is."""

    TEXT = "text"
    """Answer text (``text``)."""
    CODE = "code"
    """Answer text inside a code span or fence (``text``): never scanned for markers."""
    MARKER = "marker"
    """A citation marker (``marker``); ``opens`` when it starts a group, ``pre_ws`` the spaces before it."""
    SEPARATOR = "separator"
    """Text right after a marker group (``text``); ``space_follows`` when a space or the end follows."""
    TAG = "tag"
    """An opening or closing ``<CIT>`` tag (``tag``)."""
    THINKING = "thinking"
    """Reasoning text of a thinking section (``text``)."""
    REFLIST = "reflist"
    """Text of a reference list the model wrote (``text``): removed from the answer."""
    LONE_CLOSE = "lone_close"
    """A closing thinking tag before any opening one (``text``: the input from the tag on): the model's
    template opened the thinking (R1 distills, QwQ), so everything before the tag was reasoning."""


class Token:
    """One lexer token."""

    __slots__ = ("kind", "marker", "opens", "pre_ws", "space_follows", "tag", "text")

    def __init__(
        self,
        kind: Kind,
        text: str = "",
        *,
        marker: Marker | None = None,
        tag: Tag | None = None,
        opens: bool = False,
        pre_ws: str = "",
        space_follows: bool = False,
    ) -> None:
        """A token of ``kind``; the other fields as the kind says."""
        self.kind = kind
        self.text = text
        self.marker = marker
        self.tag = tag
        self.opens = opens
        self.pre_ws = pre_ws
        self.space_follows = space_follows

    def _key(self) -> tuple[object, ...]:
        return (self.kind, self.text, self.marker, self.tag, self.opens, self.pre_ws, self.space_follows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Token) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = [f"{k}={getattr(self, k)!r}" for k in self.__slots__ if k != "kind" and getattr(self, k)]
        return f"Token({self.kind.name}{', ' if fields else ''}{', '.join(fields)})"
