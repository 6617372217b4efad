"""The lexer of the citation parser: model output in, typed tokens out.

It finds markers, ``<CIT>`` tags, code spans and fences, thinking sections and a reference list the
model wrote, and holds back only what may still become one of them (an unfinished marker, a short run
of spaces before a possible marker, the first characters of a line that may open a fence or a list).
``Lexer`` is the scanning state machine; its state between chunks, the text tokens and the plain-text
fast path are ``LexerState`` (``_lexer_state.py``), the tokens ``_lexer_tokens.py``, and what a position
of the text holds is answered by ``_markers.py``, ``_tags.py`` and ``_line_starts.py``.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator

from ._claims import JOINER_WORDS
from ._lexer_state import MAX_WS, TEXT_STOP, LexerState
from ._lexer_tokens import Kind, Mode, Token
from ._line_starts import MAX_FENCE, match_line_start
from ._markers import match_marker
from ._match_types import NEED, Marker, Tag, ThinkTag
from ._tags import match_think

__all__ = ["Lexer"]

_Scan = Generator["Token", None, tuple[int, bool]]
"""A sub-scanner: yields tokens, returns the position reached and whether it needs more input."""
_OPENERS = frozenset("[【［〔(<")
_SEPARATORS = re.compile(r"[ \t,;，；、]*")
_JOINER = re.compile(rf"(?:{JOINER_WORDS})[ \t]+[ \t,;，；、]*", re.IGNORECASE)
"""A word joining two marker groups into one (``[1] and [2]``, ``[1] o [2]``), after a separator."""
_JOINER_PREFIX = re.compile(
    "|".join(re.escape(w[:i]) for w in JOINER_WORDS.split("|") for i in range(len(w), 0, -1)), re.IGNORECASE
)
"""A joiner word, or its start, at the end of the text received: wait for the next chunk."""
_BACKTICKS = re.compile(r"`+")
_SPACE = re.compile(r"\s*")


class Lexer(LexerState):
    """Scan model output chunk by chunk: ``feed(chunk)`` and ``finish()`` yield tokens.

    The lexer tracks its own output (line starts, runs of spaces) from the tokens it makes; the
    consumer never reports back. ``plain(chunk)`` is the fast path of ``feed`` for a chunk of plain
    text that decides nothing (most chunks of a stream).
    """

    def feed(self, chunk: str) -> Iterator[Token]:
        """Add a chunk; yields the tokens it completes."""
        if chunk:
            self._buf += chunk
            yield from self._run()

    def finish(self) -> Iterator[Token]:
        """The end of the input: yields the rest, held spaces included."""
        self._eof = True
        yield from self._run()
        yield from self._release()

    def _run(self) -> Iterator[Token]:
        buf, pos, eof = self._buf, 0, self._eof
        n = len(buf)
        while pos < n:
            mode = self.mode
            if mode is Mode.REFLIST:
                yield Token(Kind.REFLIST, buf[pos:])
                pos = n
                break
            if mode is Mode.CODE:
                pos, need = yield from self._code(buf, pos, eof)
                if need:
                    break
                continue
            if mode is Mode.FENCE:
                pos, need = yield from self._fence_line(buf, pos, eof)
                if need:
                    break
                continue
            if mode is Mode.THINK:
                pos, need = yield from self._thinking(buf, pos, eof)
                if need:
                    break
                continue
            if self._skip_space:
                pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
                if pos == n:
                    break
                self._skip_space = False
            if self._line_start and not self._line_checked:
                found = match_line_start(buf, pos, eof, self._names)
                if found == NEED:
                    break
                self._line_checked = True
                if found == "reflist":
                    if self._held:
                        yield Token(Kind.REFLIST, self._held)
                    self._held = ""
                    self.mode = Mode.REFLIST
                    continue
                if isinstance(found, tuple):
                    yield from self._text(buf[pos : found[1]], Kind.CODE)
                    self._fence = buf[pos : found[1]].strip()
                    self.mode = Mode.FENCE
                    pos = found[1]
                    continue
            if self._group_open:
                sep_end = _SEPARATORS.match(buf, pos).end()  # type: ignore[union-attr]
                joiner = _JOINER.match(buf, sep_end) if sep_end > pos else None
                next_at = joiner.end() if joiner else sep_end  # "[1] and [2]": one group, as "[1], [2]"
                waits = next_at == n or (sep_end > pos and _JOINER_PREFIX.fullmatch(buf, sep_end))
                if waits and not eof and n - pos <= MAX_WS:
                    break
                if next_at < n and buf[next_at] in _OPENERS and next_at - pos <= MAX_WS:
                    marker = match_marker(buf, next_at, eof)
                    if marker == NEED:
                        break
                    if isinstance(marker, Marker):
                        yield self._marker(marker)
                        pos = marker.end
                        continue
                self._group_open = False
                if sep_end > pos:
                    space_follows = sep_end == n or buf[sep_end].isspace()
                    sep = buf[pos:sep_end]
                    yield Token(Kind.SEPARATOR, sep, space_follows=space_follows)
                    # the assembler keeps the separator, or (after a lead-in: "According to [2], ...")
                    # moves its comma to the display text: the claim before it ends with a word, so no
                    # space is pending and the spaces after the comma are the run either way
                    self._wrote(sep)
                    pos = sep_end
                continue
            char = buf[pos]
            if char == "`":
                run = _BACKTICKS.match(buf, pos).end()  # type: ignore[union-attr]
                if self._tick_run or run - pos > MAX_FENCE:
                    # the rest of a run too long to open a code span, or decided without its end
                    yield from self._text(buf[pos:run])
                    pos = run
                    self._tick_run = run == n
                    continue
                if run == n and not eof:
                    break
                yield from self._text(buf[pos:run], Kind.CODE)
                self.mode, self._code_ticks = Mode.CODE, run - pos
                pos = run
                continue
            self._tick_run = False
            if char == "<":
                think = match_think(buf, pos, eof)
                if think == NEED:
                    break
                if isinstance(think, ThinkTag):
                    yield from self._on_think(think, buf)
                    pos = think.end
                    continue
            if char in _OPENERS:
                marker = match_marker(buf, pos, eof)
                if marker == NEED:
                    break
                if isinstance(marker, Marker):
                    yield self._marker(marker)
                    pos = marker.end
                    continue
                if isinstance(marker, Tag):
                    yield from self._release()
                    self._group_open = False
                    yield Token(Kind.TAG, tag=marker)
                    pos = marker.end
                    continue
                yield from self._text(char)
                pos += 1
                continue
            if char == "\n":
                yield from self._text("\n")
                pos += 1
                continue
            stop = TEXT_STOP.search(buf, pos)
            end = stop.start() if stop else n
            hold = (end < n and buf[end] in _OPENERS) or (end == n and not eof)
            yield from self._text_run(buf[pos:end], hold)
            pos = end
        self._buf = buf[pos:]
        if self._buf:
            yield Token(Kind.NEED, self._buf)

    def _code(self, buf: str, pos: int, eof: bool) -> _Scan:
        """Inside inline code: up to the closing backtick run or the end of the line."""
        n = len(buf)
        while pos < n:
            stop = min((i for i in (buf.find("`", pos), buf.find("\n", pos)) if i >= 0), default=-1)
            if stop < 0:
                yield from self._text(buf[pos:], Kind.CODE)
                self._tick_run = False
                return n, False
            if stop > pos:
                yield from self._text(buf[pos:stop], Kind.CODE)
                self._tick_run = False
                pos = stop
            if buf[pos] == "\n":
                self.mode = Mode.TEXT
                self._tick_run = False
                return pos, False
            run = _BACKTICKS.match(buf, pos).end()  # type: ignore[union-attr]
            continued, self._tick_run = self._tick_run, False
            if run == n and not eof and not continued and run - pos <= self._code_ticks:
                return pos, True  # the run may still grow: it closes the span only at its exact length
            yield from self._text(buf[pos:run], Kind.CODE)
            if run - pos == self._code_ticks and not continued:
                self.mode = Mode.TEXT
                return run, False
            self._tick_run = run == n and not eof  # a longer run: its rest cannot close the span
            pos = run
        return pos, False

    def _thinking(self, buf: str, pos: int, eof: bool) -> _Scan:
        """Inside a thinking section: reasoning text up to a closing thinking tag."""
        n = len(buf)
        while pos < n:
            lt = buf.find("<", pos)
            if lt < 0:
                yield Token(Kind.THINKING, buf[pos:])
                return n, False
            if lt > pos:
                yield Token(Kind.THINKING, buf[pos:lt])
                pos = lt
            found = match_think(buf, pos, eof)
            if found == NEED:
                return pos, True
            if isinstance(found, ThinkTag) and found.closing:
                self._end_think()
                return found.end, False
            yield Token(Kind.THINKING, "<")
            pos += 1
        return pos, False

    def _on_think(self, tag: ThinkTag, buf: str) -> Iterator[Token]:
        """A thinking tag in the answer: an opening one starts reasoning; a closing one before any other
        thinking tag ends the reasoning the answer started in (``LONE_CLOSE``); a later one is dropped."""
        yield from self._release()
        self._group_open = False
        lone, self._seen_think = tag.closing and not self._seen_think, True
        if not tag.closing:
            self.mode = Mode.THINK
            return
        if lone:
            yield Token(Kind.LONE_CLOSE, buf[tag.start :])
            # the answer starts after the tag: what the lexer wrote so far was reasoning
            self._line_start, self._line_checked, self._written = True, False, False
            self._ws_run, self._tick_run = 0, False
        self._end_think()

    def _end_think(self) -> None:
        """After a thinking section: the text that follows starts the line (and, at first, the answer)."""
        self.mode = Mode.TEXT
        self._skip_space = not self._written
        if self._line_start:
            self._line_checked = False

    def _fence_line(self, buf: str, pos: int, eof: bool) -> _Scan:
        """Inside a fenced code block: whole lines, until a closing fence line."""
        newline = buf.find("\n", pos)
        if self._line_start:
            line = buf[pos:] if newline < 0 else buf[pos:newline]
            stripped = line.strip()
            could_close = stripped == self._fence[0] * len(stripped)
            if newline < 0 and not eof and len(line) <= MAX_FENCE + 3 and could_close:
                return pos, True
            if could_close and len(self._fence) <= len(stripped) <= MAX_FENCE:
                self.mode = Mode.TEXT
        end = len(buf) if newline < 0 else newline + 1
        yield from self._text(buf[pos:end], Kind.CODE)
        return end, False
