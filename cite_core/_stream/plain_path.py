"""The plain-text scan of the stream lexer's fast path, chosen once: the compiled ``PlainPath`` of
``cite_core._native`` when it is built, else (or with ``CITE_PURE_PYTHON=1``) ``PythonPlainPath``, the
reference. Both answer the same for every text (tests/core/test_native_lexer.py).

``scan(chunk)`` is the length of the plain text ``chunk`` starts with: up to its first stop character, a
possible opener of a marker or tag (``OPENERS`` of ``_brackets.py``, the one marker table), a backtick or
a newline. A chunk that is plain text to its end goes straight to the assembler without tokens
(``LexerState.plain``). The stop characters are passed in at construction, so the Rust side holds no
copy of the table.

``SteadyPath`` is the whole of ``CitationStream.feed`` for the usual chunk, in one call: while the stream
is steady (nothing buffered, held back, stashed or pending in the lexer or the assembler: armed by the
stream), a chunk of plain text goes straight into its ``TextDelta`` and the assembler's list of fast
texts, its trailing spaces held as ``LexerState.plain`` holds them; anything else is refused (None) and
the stream disarms it, takes back the spaces it holds and runs the general route.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from .._accel import NATIVE
from .._brackets import OPENERS
from .._exceptions import NativeError
from .._schema.events import MODEL_SLOTS
from .._schema.models import TextDelta

__all__ = [
    "PANIC",
    "PLAIN_PATH",
    "STEADY_EVENT",
    "STOPS",
    "PlainPath",
    "PythonPlainPath",
    "PythonSteadyPath",
    "SteadyPath",
    "plain_path",
    "steady_path",
]

STOPS = OPENERS + "`\n"
"""Where a run of plain text ends: a possible marker or tag opener, a backtick or a newline."""


class PlainPath(Protocol):
    """The length of the plain text a chunk starts with (``str`` indices: code points)."""

    def scan(self, chunk: str) -> int:
        """The index of the first stop character of ``chunk``, or ``len(chunk)`` when it has none; a lone
        surrogate is never plain text (its index, or ``UnicodeEncodeError``)."""
        ...


class PythonPlainPath:
    """The reference: one regular-expression search for a stop character. A lone surrogate ends the plain
    text too: it has no UTF-8 form (the compiled scan refuses the chunk with ``UnicodeEncodeError``), so a
    chunk holding one never takes the fast path, and the stream replaces it before the general path."""

    def __init__(self, stops: str) -> None:
        self._search = re.compile(f"[{re.escape(stops)}\ud800-\udfff]").search

    def scan(self, chunk: str) -> int:
        found = self._search(chunk)
        return len(chunk) if found is None else found.start()


def plain_path(stops: str = STOPS) -> PlainPath:
    """The implementation in use for ``stops``: the extension's, unless it is not built or not wanted."""
    return PythonPlainPath(stops) if NATIVE is None else NATIVE.PlainPath(stops)


class SteadyPath(Protocol):
    """``CitationStream.feed`` of a plain chunk while the stream is steady (module docstring)."""

    def feed(self, chunk: object) -> list[Any] | None:
        """Armed, and ``chunk`` a ``str`` of plain text (no stop character, no lone surrogate) that is not
        a run of spaces longer than may be held: its events (a ``TextDelta`` of the spaces held before it
        and its text up to its trailing spaces, which are held; none for a chunk of spaces alone), its
        text added to ``fast`` and the chunk to ``raw``. None otherwise: nothing changed."""
        ...

    def arm(self, fast: list[str], raw: list[str] | None, held: str) -> None:
        """Steady from now on: ``fast`` is the assembler's list of fast texts, ``raw`` the stream's model text
        (None: not kept), ``held`` the spaces the lexer held (``LexerState.steady_held``)."""
        ...

    def disarm(self) -> str:
        """No longer steady; returns the spaces held (the lexer holds them from now on)."""
        ...


class PythonSteadyPath:
    """The reference ``SteadyPath``: what ``LexerState.plain`` and ``Assembler.plain`` do with a plain chunk
    when steady and ready, in one function."""

    def __init__(self, stops: str, max_ws: int, event: tuple[Any, ...]) -> None:
        """``max_ws``: the longest run of spaces held; ``event``: how a ``TextDelta`` is built without
        validation, ``(cls, template, fields, new, set_dict, set_fields, set_extra, set_private)`` with
        ``template`` its ``__dict__`` but for the text and ``fields`` its fields set."""
        self._search = re.compile(f"[{re.escape(stops)}\ud800-\udfff]").search
        self._max_ws = max_ws
        self._event = event
        self._fast: list[str] | None = None
        self._raw: list[str] | None = None
        self._held = ""

    def arm(self, fast: list[str], raw: list[str] | None, held: str) -> None:
        self._fast, self._raw, self._held = fast, raw, held

    def disarm(self) -> str:
        held, self._held, self._fast, self._raw = self._held, "", None, None
        return held

    def feed(self, chunk: object) -> list[Any] | None:
        fast = self._fast
        if fast is None or chunk.__class__ is not str or not chunk or self._search(chunk) is not None:
            return None
        text: str = chunk
        held = self._held
        last = text[-1]
        if last == " " or last == "\t":
            body = text.rstrip(" \t")
            trailing = len(text) - len(body)
            if not body:
                if len(held) + trailing > self._max_ws:
                    return None
                self._held = held + text
                if self._raw is not None:
                    self._raw.append(text)
                return []
            if trailing > self._max_ws:
                return None
            self._held = text[len(body) :]
            text = body
        elif held:
            self._held = ""
        if held:
            text = held + text
        fast.append(text)
        if self._raw is not None:
            self._raw.append(chunk)
        cls, template, fields, new, set_dict, set_fields, set_extra, set_private = self._event
        event = new(cls)
        values = template.copy()
        values[fields[0]] = text
        set_dict(event, values)
        set_fields(event, set(fields))
        set_extra(event, None)
        set_private(event, None)
        return [event]


STEADY_EVENT = (TextDelta, {"type": "text_delta", "text": ""}, ("text",), *MODEL_SLOTS)
"""How ``SteadyPath`` builds a ``TextDelta``: what ``text_delta`` (``_schema/events.py``) does, inlined."""


def steady_path(max_ws: int, event: tuple[Any, ...] = STEADY_EVENT, stops: str = STOPS) -> SteadyPath:
    """The ``SteadyPath`` in use (one per stream): the extension's, unless it is not built or not wanted."""
    if NATIVE is None:
        return PythonSteadyPath(stops, max_ws, event)
    return NATIVE.SteadyPath(stops, max_ws, event)


PLAIN_PATH: PlainPath = plain_path()
"""The plain-text scan the lexer uses."""

PANIC: type[BaseException] = NativeError if NATIVE is None else NATIVE.PanicException
"""What a failing ``PLAIN_PATH.scan`` raises (a panic in the extension: a bug); the lexer raises it as a
``NativeError``. The Python reference raises none of its own (``NativeError`` is never raised there)."""
