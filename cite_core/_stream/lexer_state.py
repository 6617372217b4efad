"""The lexer's state and the answer text it writes: held spaces, line starts, the plain-text fast path.

``LexerState`` holds everything the lexer knows between chunks and makes the text tokens: spaces
before a possible marker are held (at most ``MAX_WS``), released as text when no marker follows, or
handed to the marker as ``pre_ws``; line starts and runs of spaces are tracked from the lexer's own
tokens. ``plain(chunk)`` takes a chunk of plain text without scanning it (most chunks of a stream).
The scanning state machine is ``Lexer`` (``lexer.py``), built on this class.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .._exceptions import NativeError
from .lexer_tokens import Kind, Mode, Token
from .match_types import Marker
from .plain_path import PANIC, PLAIN_PATH, STOPS

__all__ = ["MAX_WS", "TEXT_STOP", "LexerState"]

MAX_WS = 64
"""A run of spaces before a marker is dropped from the answer text only up to this length."""

TEXT_STOP = re.compile(f"[{re.escape(STOPS)}]")
"""Where a run of plain text ends: a possible marker or tag opener, a backtick or a newline."""


_TEXT = Mode.TEXT
_TICKS = Mode.TICKS
_IN_TEXT = frozenset((Mode.TEXT, Mode.LINE_START, Mode.GROUP, Mode.TICKS))
"""The modes of answer text (written text moves them to ``TEXT`` or ``LINE_START``); inside code,
a fence or thinking, text does not change the mode."""


class LexerState:
    """The lexer's state between chunks, and the text tokens it makes (``Lexer`` scans)."""

    def __init__(self, names: dict[int, tuple[str, ...]] | None = None) -> None:
        """``names``: lower-cased titles and URLs per source number (a reference list names them)."""
        self._names = names or {}
        self._buf = ""
        self._eof = False
        self.mode = Mode.LINE_START  # the answer starts a line
        self._code_ticks = 0
        self._fence = ""
        self._line_start = True  # the text so far ends a line (a fence line, a line start to check)
        self._held = ""
        self._ws_run = 0  # spaces at the end of the model's text passed on (held spaces not counted)
        self._written = False  # any answer text so far
        self._seen_think = False  # a thinking tag was seen (a closing one before it is a lone close)
        self.scan = PLAIN_PATH.scan  # the length of the plain text a chunk starts with (plain_path.py)
        # after a plain chunk that ends in neither space nor tab: nothing held or buffered, mode TEXT, no
        # line start or run of spaces, so another such chunk changes nothing; plain sets it, feed clears it
        self._steady = False

    @property
    def thinking_seen(self) -> bool:
        """Whether a thinking tag was seen (after one, a closing tag is no longer a lone close)."""
        return self._seen_think

    @property
    def held(self) -> int:
        """Characters received but not yet released as tokens."""
        return len(self._buf) + len(self._held)

    def plain(self, chunk: str) -> tuple[str, ...] | None:
        """``feed``'s fast path: a chunk of plain text (nothing pending; no ``OPENERS`` character, backtick or
        newline: ``scan``, the ``PLAIN_PATH`` in use) as the texts of the ``TEXT`` tokens ``feed`` would
        make: the spaces held before it, then its text, its trailing spaces held (a chunk of spaces alone
        is held). None (nothing taken) otherwise."""
        steady = self._steady
        if not steady and (self._buf or (self.mode is not _TEXT and self.mode is not _TICKS)):
            return None
        try:
            if self.scan(chunk) != len(chunk):
                return None
        except UnicodeEncodeError:  # a lone surrogate has no UTF-8 form: the general path takes it
            return None
        except PANIC as exc:
            raise NativeError(f"the compiled lexer failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc
        last = chunk[-1]
        if last != " " and last != "\t":  # most chunks: no space to hold, the held ones released first
            if steady:
                return (chunk,)
            self.mode, self._line_start, self._written, self._ws_run = _TEXT, False, True, 0
            self._steady = True
            held = self._held
            if held:
                self._held = ""
                return (held, chunk)
            return (chunk,)
        self._steady = False
        return self._plain_spaces(chunk)

    def _plain_spaces(self, chunk: str) -> tuple[str, ...] | None:
        """``plain`` of a plain chunk that ends with spaces: what ``_run`` makes of it, ``_text_run(chunk,
        hold=True)``, the held spaces released before its text."""
        body = chunk.rstrip(" \t")
        if not body:
            if self._ws_run + len(self._held) + len(chunk) > MAX_WS:
                return None  # too many spaces to hold: feed releases them
            self.mode = _TEXT
            self._held += chunk
            return ()
        self.mode = _TEXT
        self._line_start = False
        self._written = True
        released, self._held = self._held, ""
        trailing = len(chunk) - len(body)
        if trailing and trailing <= MAX_WS:
            self._held = chunk[len(body) :]
            self._ws_run = 0
            return (released, body) if released else (body,)
        self._ws_run = trailing
        return (released, chunk) if released else (chunk,)

    def _wrote(self, text: str) -> None:
        """``text`` of the model's output was passed on (the lexer tracks line starts and runs of spaces
        of its input, whatever the assembler makes of a separator): in answer text, a line that ends
        starts a line to check and text after a marker group closes it."""
        body = text.rstrip(" \t")
        self._ws_run = self._ws_run + len(text) if not body else len(text) - len(body)
        self._line_start = text.endswith("\n")
        if self.mode in _IN_TEXT:
            self.mode = Mode.LINE_START if self._line_start else _TEXT
        self._written = True

    def _marker(self, marker: Marker) -> Token:
        """The token of a marker; the first of a group takes the spaces held before it."""
        opens = self.mode is not Mode.GROUP
        pre_ws, self._held = (self._held, "") if opens else ("", "")
        self.mode = Mode.GROUP
        return Token(Kind.MARKER, marker=marker, opens=opens, pre_ws=pre_ws)

    def _text_run(self, run: str, hold: bool) -> Iterator[Token]:
        """Plain text; trailing spaces are held when a marker may follow them."""
        if hold:
            body = run.rstrip(" \t")
            trailing = len(run) - len(body)
            ws_before = self._ws_run + len(self._held) if not body else 0
            if trailing and ws_before + trailing <= MAX_WS:
                if body:
                    yield from self._text(body)
                self._held += run[len(body) :]
                return
        yield from self._text(run)

    def _release(self) -> Iterator[Token]:
        if self._held:
            held, self._held = self._held, ""
            self._wrote(held)
            yield Token(Kind.TEXT, held)

    def _text(self, text: str, kind: Kind = Kind.TEXT) -> Iterator[Token]:
        if self._held:
            yield from self._release()
        if text:
            self._wrote(text)
            yield Token(kind, text)
