"""The lexer of the citation parser: model output in, typed tokens out.

It finds markers, ``<CIT>`` tags, code spans and fences, thinking sections and a reference list the
model wrote, and holds back only what may still become one of them (an unfinished marker, a short run
of spaces before a possible marker, the first characters of a line that may open a fence or a list).
``Lexer`` is the scanning state machine; its state between chunks, the text tokens and the plain-text
fast path are ``LexerState`` (``lexer_state.py``), the tokens ``lexer_tokens.py``, and what a position
of the text holds is answered by ``markers.py``, ``tags.py`` and ``line_starts.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .._brackets import OPENERS
from .claims import JOINER_WORDS
from .lexer_state import MAX_WS, SEPARATOR_RUN, TEXT_STOP, LexerState, opened_at
from .lexer_tokens import Kind, Mode, Token
from .line_starts import MAX_FENCE, match_fence_close, match_line_start
from .markers import match_marker
from .match_types import NEED, Marker, Tag, ThinkTag
from .tags import match_think

__all__ = ["Lexer"]

_Scan = Callable[["Lexer", str, int, bool, list[Token]], tuple[int, bool]]
"""A scanner: puts the tokens it completes in its list, returns the position reached and whether it
needs more input."""
_OPENERS = frozenset(OPENERS)
_JOINER = re.compile(rf"(?:{JOINER_WORDS})[ \t]+[ \t,;，；、]*", re.IGNORECASE)
"""A word joining two marker groups into one (``[1] and [2]``, ``[1] o [2]``), after a separator."""
_JOINER_PREFIX = re.compile(
    "|".join(re.escape(w[:i]) for w in JOINER_WORDS.split("|") for i in range(len(w), 0, -1)), re.IGNORECASE
)
"""A joiner word, or its start, at the end of the text received: wait for the next chunk."""
_BACKTICKS = re.compile(r"`+")
_SPACE = re.compile(r"\s*")


class Lexer(LexerState):
    """Scan model output chunk by chunk: ``feed(chunk)`` and ``finish()`` return tokens.

    Each ``Mode`` has one scanner (``_SCANNERS``): it puts the tokens it completes in the list it is
    handed (plain calls, not generators: a token does not pass up through a generator per level of
    scanning) and returns the position reached and whether it needs more input; it may change the
    mode, and the next scanner takes over from there. The lexer tracks its own input (line starts,
    runs of spaces) from the tokens it makes; the consumer never reports back. ``plain(chunk)`` is the
    fast path of ``feed`` for a chunk whose tokens are all text (most chunks of a stream).
    """

    def feed(self, chunk: str) -> list[Token]:
        """Add a chunk; returns the tokens it completes. After ``plain`` refused the same chunk at a token
        that is not text, the texts it read before that token are its first tokens, and the scan goes on
        from that token (``_unstash``): the chunk is not read twice."""
        if not chunk:
            return []
        self._steady = False
        if self._stash is not None:
            taken = self._unstash(chunk)
            if taken is not None:
                texts, marker = taken
                out = [Token(Kind.TEXT, text) for text in texts]
                if marker is not None:  # what _opener makes of it (the buffer starts with it)
                    self._buf = self._buf[marker.end - marker.start :]
                    out.append(self._marker(marker))
                return self._run(out)
        self._buf += chunk
        return self._run([])

    def finish(self, *, truncated: bool = False) -> list[Token]:
        """The end of the input: returns the rest, held spaces included. ``truncated``: the output was
        cut off, so text held back because it may still become a marker (``[2``, a lone opener) is dropped
        with the spaces before it, never released as text."""
        self._steady = False
        if self._stash is not None:
            self._unstash(None)
        if truncated and self._dangling():
            self._buf, self._held = "", ""
        self._eof = True
        out = self._run([])
        self._release(out)
        return out

    def _dangling(self) -> bool:
        """Whether the text held back is a marker the output was cut off in (``[2``, a lone opener,
        `` [1, 2``), not a complete one (``[1]`` held in case a link follows)."""
        if self.mode not in (Mode.TEXT, Mode.GROUP, Mode.LINE_START):
            return False
        buf = self._buf
        pos = SEPARATOR_RUN.match(buf).end()  # type: ignore[union-attr]
        return (
            pos < len(buf) and buf[pos] in _OPENERS and not isinstance(match_marker(buf, pos, True), Marker)
        )

    def _run(self, out: list[Token]) -> list[Token]:
        """The scanners over what is buffered, their tokens put in ``out``; returns ``out``."""
        buf, pos, eof = self._buf, 0, self._eof
        n = len(buf)
        while pos < n:
            pos, need = _SCANNERS[self.mode](self, buf, pos, eof, out)
            if need:
                break
        self._buf = buf[pos:]
        return out

    def _reflist(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """A reference list the model wrote: everything to the end."""
        out.append(Token(Kind.REFLIST, buf[pos:]))
        return len(buf), False

    def _skip_space(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """Blank space after a thinking section that opened the answer: dropped."""
        pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
        if pos < len(buf):
            self.mode = Mode.LINE_START if self._line_start else Mode.TEXT
        return pos, False

    def _line(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """The start of a line: a code fence, the start of a reference list, or answer text."""
        found = match_line_start(buf, pos, eof, self._names)
        if found == NEED:
            return pos, True
        self.mode = Mode.TEXT
        if found == "reflist":
            if self._held:
                out.append(Token(Kind.REFLIST, self._held))
            self._held = ""
            self.mode = Mode.REFLIST
        elif isinstance(found, tuple):
            self._text(out, buf[pos : found[1]], Kind.CODE)
            self._fence = buf[pos : found[1]].strip()
            self.mode = Mode.FENCE
            pos = found[1]
        return pos, False

    def _group(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """After a marker: another marker after separators or a joiner word ("[1] and [2]": one group,
        as "[1], [2]") continues the group; anything else ends it, its separator a token of its own."""
        n = len(buf)
        sep_end = SEPARATOR_RUN.match(buf, pos).end()  # type: ignore[union-attr]
        joiner = _JOINER.match(buf, sep_end) if sep_end > pos else None
        next_at = joiner.end() if joiner else sep_end
        waits = next_at == n or (sep_end > pos and _JOINER_PREFIX.fullmatch(buf, sep_end))
        if waits and not eof and n - pos <= MAX_WS:
            return pos, True
        if next_at < n and buf[next_at] in _OPENERS and next_at - pos <= MAX_WS:
            found = self._marker_at(buf, next_at, eof, out)
            if found == NEED:
                return pos, True
            if isinstance(found, Marker):
                return found.end, False
        self.mode = Mode.TEXT
        if sep_end > pos:
            space_follows = sep_end == n or buf[sep_end].isspace()
            sep = buf[pos:sep_end]
            out.append(Token(Kind.SEPARATOR, sep, space_follows=space_follows))
            self._wrote(sep)
        return sep_end, False

    def _marker_at(self, buf: str, pos: int, eof: bool, out: list[Token]) -> Any:
        """What ``match_marker`` finds at ``pos``; a marker's token is made here."""
        found = match_marker(buf, pos, eof)
        if isinstance(found, Marker):
            out.append(self._marker(found))
        return found

    def _answer_text(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """Answer text, up to the next construct that changes the mode (a marker, a code span, a
        thinking tag, a line end)."""
        n = len(buf)
        while pos < n and (self.mode is Mode.TEXT or self.mode is Mode.TICKS):
            char = buf[pos]
            if char == "`":
                pos, need = self._backticks(buf, pos, eof, out)
                if need:
                    return pos, True
                continue
            self.mode = Mode.TEXT
            if char in _OPENERS:
                pos, need = self._opener(buf, pos, eof, out)
                if need:
                    return pos, True
                continue
            if char == "\n":
                self._text(out, "\n")
                pos += 1
                continue
            stop = TEXT_STOP.search(buf, pos)
            end = stop.start() if stop else n
            hold = (end < n and buf[end] in _OPENERS) or (end == n and not eof)
            self._text_run(out, buf[pos:end], hold)
            pos = end
        return pos, False

    def _backticks(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """A backtick run in answer text: it opens a code span, or is text when too long for one."""
        n = len(buf)
        run = _BACKTICKS.match(buf, pos).end()  # type: ignore[union-attr]
        if self.mode is Mode.TICKS or run - pos > MAX_FENCE:
            # the rest of a run too long to open a code span, or decided without its end
            self._text(out, buf[pos:run])
            self.mode = Mode.TICKS if run == n else Mode.TEXT
            return run, False
        if run == n and not eof:
            return pos, True
        self._text(out, buf[pos:run], Kind.CODE)
        self.mode, self._code_ticks = Mode.CODE, run - pos
        return run, False

    def _opener(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """A character that may open a thinking tag, a marker or a ``<CIT>`` tag (``opened_at``)."""
        found = opened_at(buf, pos, eof)
        if found == NEED:
            return pos, True
        if isinstance(found, ThinkTag):
            self._on_think(found, buf, out)
            return found.end, False
        if isinstance(found, Marker):
            out.append(self._marker(found))
            return found.end, False
        if isinstance(found, Tag):
            self._release(out)
            out.append(Token(Kind.TAG, tag=found))
            return found.end, False
        self._text(out, buf[pos])
        return pos + 1, False

    def _code(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """Inside inline code: up to the closing backtick run or the end of the line."""
        n = len(buf)
        while pos < n:
            stop = min((i for i in (buf.find("`", pos), buf.find("\n", pos)) if i >= 0), default=-1)
            if stop < 0:
                self._text(out, buf[pos:], Kind.CODE)
                self.mode = Mode.CODE
                return n, False
            if stop > pos:
                self._text(out, buf[pos:stop], Kind.CODE)
                self.mode = Mode.CODE
                pos = stop
            if buf[pos] == "\n":
                self.mode = Mode.TEXT
                return pos, False
            run = _BACKTICKS.match(buf, pos).end()  # type: ignore[union-attr]
            continued, self.mode = self.mode is Mode.CODE_TICKS, Mode.CODE
            if run == n and not eof and not continued and run - pos <= self._code_ticks:
                return pos, True  # the run may still grow: it closes the span only at its exact length
            self._text(out, buf[pos:run], Kind.CODE)
            if run - pos == self._code_ticks and not continued:
                self.mode = Mode.TEXT
                return run, False
            if run == n and not eof:
                self.mode = Mode.CODE_TICKS  # a longer run: its rest cannot close the span
            pos = run
        return pos, False

    def _thinking(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """Inside a thinking section: reasoning text up to a closing thinking tag."""
        n = len(buf)
        while pos < n:
            lt = buf.find("<", pos)
            if lt < 0:
                out.append(Token(Kind.THINKING, buf[pos:]))
                return n, False
            if lt > pos:
                out.append(Token(Kind.THINKING, buf[pos:lt]))
                pos = lt
            found = match_think(buf, pos, eof)
            if found == NEED:
                return pos, True
            if isinstance(found, ThinkTag) and found.closing:
                self._end_think()
                return found.end, False
            out.append(Token(Kind.THINKING, "<"))
            pos += 1
        return pos, False

    def _on_think(self, tag: ThinkTag, buf: str, out: list[Token]) -> None:
        """A thinking tag in the answer: an opening one starts reasoning; a closing one before any other
        thinking tag ends the reasoning the answer started in (``LONE_CLOSE``); a later one is dropped."""
        self._release(out)
        lone, self._seen_think = tag.closing and not self._seen_think, True
        if not tag.closing:
            self.mode = Mode.THINK
            return
        if lone:
            out.append(Token(Kind.LONE_CLOSE, buf[tag.start :]))
            # the answer starts after the tag: what the lexer wrote so far was reasoning
            self._line_start, self._written, self._ws_run = True, False, 0
        self._end_think()

    def _end_think(self) -> None:
        """After a thinking section: the text that follows starts the line (and, at first, the answer)."""
        if not self._written:
            self.mode = Mode.SKIP_SPACE
        else:
            self.mode = Mode.LINE_START if self._line_start else Mode.TEXT

    def _fence_line(self, buf: str, pos: int, eof: bool, out: list[Token]) -> tuple[int, bool]:
        """Inside a fenced code block: whole lines, until a closing fence line."""
        newline = buf.find("\n", pos)
        if self._line_start:
            closes = match_fence_close(buf, pos, eof, self._fence)
            if closes == NEED:
                return pos, True
            if closes:
                self.mode = Mode.TEXT
        end = len(buf) if newline < 0 else newline + 1
        self._text(out, buf[pos:end], Kind.CODE)
        return end, False


_SCANNERS: dict[Mode, _Scan] = {
    Mode.TEXT: Lexer._answer_text,
    Mode.TICKS: Lexer._answer_text,
    Mode.LINE_START: Lexer._line,
    Mode.GROUP: Lexer._group,
    Mode.SKIP_SPACE: Lexer._skip_space,
    Mode.CODE: Lexer._code,
    Mode.CODE_TICKS: Lexer._code,
    Mode.FENCE: Lexer._fence_line,
    Mode.THINK: Lexer._thinking,
    Mode.REFLIST: Lexer._reflist,
}
"""The scanner of each mode."""
