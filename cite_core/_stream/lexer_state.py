"""The lexer's state and the answer text it writes: held spaces, line starts, the plain-text fast path.

``LexerState`` holds everything the lexer knows between chunks and makes the text tokens: spaces
before a possible marker are held (at most ``MAX_WS``), released as text when no marker follows, or
handed to the marker as ``pre_ws``; line starts and runs of spaces are tracked from the lexer's own
tokens. ``plain(chunk)`` takes a chunk that is text alone without making tokens (most chunks of a
stream): plain text, and text with line ends and openers that open nothing (``_mixed``). The scanning
state machine is ``Lexer`` (``lexer.py``), built on this class.
"""

from __future__ import annotations

import re

from .._brackets import OPENERS, TAG_OPENER
from .._exceptions import NativeError
from .._text import has_surrogate
from .lexer_tokens import Kind, Mode, Token
from .line_starts import match_line_start
from .markers import match_marker, match_simple, simple_start
from .match_types import NEED, Marker, Tag, ThinkTag
from .plain_path import PANIC, PLAIN_PATH, STOPS
from .tags import match_think

__all__ = ["MAX_WS", "SEPARATOR_RUN", "TEXT_STOP", "LexerState", "opened_at"]

MAX_WS = 64
"""A run of spaces before a marker is dropped from the answer text only up to this length."""

TEXT_STOP = re.compile(f"[{re.escape(STOPS)}]")
"""Where a run of plain text ends: a possible marker or tag opener, a backtick or a newline."""

SEPARATOR_RUN = re.compile(r"[ \t,;，；、]*")
"""What may follow a marker in its group (``[1], [2]``, ``[1] and [2]``): the lexer's ``GROUP`` mode reads
a run of these before it decides whether the group goes on."""


_TEXT = Mode.TEXT
_TICKS = Mode.TICKS
_LINE_START = Mode.LINE_START
_OPENERS = frozenset(OPENERS)
_MIXED_MODES = frozenset((Mode.TEXT, Mode.TICKS, Mode.LINE_START))
"""The modes ``_mixed`` starts in: answer text or a line start, what is buffered read again with the chunk."""
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
        # what plain read of a chunk before a token that is not text: (the chunk, the state before it, the
        # texts read, the marker found there); feed of that chunk goes on from there, any other entry
        # restores the state first
        self._stash: tuple[str, tuple[object, ...], list[str], Marker | None] | None = None

    @property
    def thinking_seen(self) -> bool:
        """Whether a thinking tag was seen (after one, a closing tag is no longer a lone close)."""
        return self._seen_think

    @property
    def held(self) -> int:
        """Characters received but not yet released as tokens."""
        if self._stash is not None:
            self._unstash(None)
        return len(self._buf) + len(self._held)

    def steady_held(self) -> str | None:
        """Whether a plain chunk would find this lexer as a plain chunk leaves it (nothing buffered or
        stashed, in text after text that ends no line, no run of spaces passed on): then the spaces it
        holds, handed over to the stream's ``SteadyPath`` (``resume`` takes them back), else None."""
        if self._steady:
            return ""
        if self._buf or self.mode is not _TEXT or self._stash is not None:
            return None
        if self._line_start or not self._written or self._ws_run:
            return None
        held, self._held, self._steady = self._held, "", True
        return held

    def resume(self, held: str) -> None:
        """The stream's ``SteadyPath`` (armed while this lexer was steady) is disarmed holding the spaces
        ``held``: they are this lexer's now, so it is steady again only if there are none."""
        if held:
            self._held, self._steady = held, False

    def plain(self, chunk: str) -> tuple[str, ...] | list[str | tuple[Marker, str | None]] | None:
        """``feed``'s fast path: a chunk of plain text (nothing pending; no ``OPENERS`` character, backtick or
        newline: ``scan``, the ``PLAIN_PATH`` in use) as the texts of the ``TEXT`` tokens ``feed`` would
        make: the spaces held before it, then its text, its trailing spaces held (a chunk of spaces alone
        is held). A chunk of text with line ends, or at a line start, or with openers that open nothing
        goes to ``_mixed``, and so does text with one plain marker ``[n]`` the group of which ends in the
        chunk (``_marker_chunk``: a list, the marker with its ``pre_ws``). None (nothing taken) otherwise."""
        steady = self._steady
        if not steady and (self._buf or (self.mode is not _TEXT and self.mode is not _TICKS)):
            if self._stash is not None:  # (something is buffered after a stash: steady is False)
                self._unstash(None)
            return self._mixed(chunk) if self.mode in _MIXED_MODES else None
        try:
            plain_len = self.scan(chunk)
        except UnicodeEncodeError:  # a lone surrogate has no UTF-8 form: the general path takes it
            return None
        except PANIC as exc:
            raise NativeError(f"the compiled lexer failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc
        if plain_len != len(chunk):
            return self._mixed(chunk)
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

    def _mixed(self, chunk: str) -> tuple[str, ...] | list[str | tuple[Marker, str | None]] | None:
        """``plain`` of a chunk that makes text tokens alone, read after what is buffered as ``feed`` reads
        it: line ends, line starts that open nothing (no fence, no reference list), openers that open
        nothing (``(`` without a keyword); what is still undecided at its end (a line start, an opener)
        is buffered as ``feed`` buffers it. At any other token (a backtick, a marker, a tag, a fence) the
        texts read so far and the state before the chunk are stashed, its rest buffered: None (``feed`` of
        the chunk goes on from there, ``_unstash``). A lone surrogate: None, nothing read."""
        if not chunk.isascii() and has_surrogate(chunk):
            return None
        buf = self._buf
        saved = (buf, self.mode, self._line_start, self._held, self._ws_run, self._written)
        whole = buf + chunk if buf else chunk
        if self.mode is _TICKS:
            if whole[0] == "`":  # the rest of a backtick run too long for a code span: feed decides
                return None
            self.mode = _TEXT  # after the run, text again
        self._buf, self._steady = "", False
        if self.mode is _TEXT:
            items = self._marker_chunk(whole)
            if items is not None:
                return items
        texts: list[str] = []
        stop, marker = self._mixed_run(whole, texts)
        if stop < 0:
            return tuple(texts)
        self._buf = whole[stop:]
        self._stash = (chunk, saved, texts, marker)
        return None

    def _marker_chunk(self, whole: str) -> tuple[str, ...] | list[str | tuple[Marker, str | None]] | None:
        """``_mixed`` in answer text of text, a group of plain markers ``[n]`` (``[1][2]``, ``[1], [2]``) and
        what ends it: text that ``_mixed_run`` reads to its end (``y [2]. T``, ``1]. It i`` after ``[``,
        ``[2].\n\nIn``), or separators alone, which wait in ``GROUP`` mode for what follows
        (``rces[1] ``). Most chunks that hold a marker. What ``feed`` makes of it, without tokens: the
        texts before the group and after it, its markers in between, the first with the spaces held
        before it, the others with None (``Lexer._marker``, ``_group``, ``_answer_text``); the state as
        ``feed`` leaves it. Text before the start of a marker at the end (``team [1``): its texts, the
        start buffered. None, nothing changed: anything else."""
        stop = TEXT_STOP.search(whole)
        if stop is None:
            return None
        at = stop.start()
        marker = match_simple(whole, at)
        if marker is None:
            if not simple_start(whole, at):
                return None
            texts: list[str] = []
            if at:
                self._put_run(texts, whole[:at], True)
            self._buf = whole[at:]
            return tuple(texts)
        group, end, n = [marker], marker.end, len(whole)
        while True:  # Lexer._group: separators, then another marker or the end of the group
            seps = SEPARATOR_RUN.match(whole, end).end()  # type: ignore[union-attr]
            if seps == n or whole[seps] not in _OPENERS:
                break
            marker = match_simple(whole, seps)
            if marker is None or seps - end > MAX_WS:
                return None  # another construct, or one to wait for: _mixed_run and feed read it
            group.append(marker)
            end = marker.end
        if seps == n:  # separators to the end: the group waits for what follows them
            if n - end > MAX_WS:
                return None
        elif seps > end:
            return None  # a separator then text (a lead-in's comma, a joiner word): feed reads it
        before = (self.mode, self._line_start, self._held, self._ws_run, self._written)
        items: list[str | tuple[Marker, str | None]] = []
        if at:
            self._put_run(items, whole[:at], True)  # type: ignore[arg-type]
        items.append((group[0], self._held))
        items.extend((other, None) for other in group[1:])
        self._held = ""
        if seps == n:
            self.mode, self._buf = Mode.GROUP, whole[end:]
        elif TEXT_STOP.search(whole, end) is None:
            self._put_run(items, whole[end:], True)  # type: ignore[arg-type]
        elif self._mixed_run(whole[end:], items)[0] >= 0:  # type: ignore[arg-type]
            # a token that is not text after the group: the state as before, _mixed_run from the start
            self.mode, self._line_start, self._held, self._ws_run, self._written = before
            self._buf = ""
            return None
        return items

    def _unstash(self, chunk: str | None) -> tuple[list[str], Marker | None] | None:
        """The texts ``plain`` read of ``chunk`` before a token that is not text (from which it is buffered),
        and the marker found there if it is one; or None: the stash was of another chunk (or ``chunk`` is
        None), and the state before it is restored."""
        stash, self._stash = self._stash, None
        if stash is None or stash[0] is chunk:
            return None if stash is None else (stash[2], stash[3])
        self._buf, self.mode, self._line_start, self._held, self._ws_run, self._written = stash[1]  # type: ignore[assignment]
        return None

    def _mixed_run(self, buf: str, texts: list[str]) -> tuple[int, Marker | None]:
        """What ``Lexer._run`` does with ``buf`` (in answer text or at a line start, not at the end), the
        texts of its tokens put in ``texts``: -1, or the position of the first token that is not text and
        the marker there if it is one (so that ``feed`` does not match it again)."""
        n, pos, names = len(buf), 0, self._names
        while pos < n:
            if self.mode is _LINE_START:
                found = match_line_start(buf, pos, False, names)
                if found == NEED:
                    self._buf = buf[pos:]
                    return -1, None
                if found is not None:
                    return pos, None
                self.mode = _TEXT
            stop = TEXT_STOP.search(buf, pos)
            end = n if stop is None else stop.start()
            if end > pos:  # plain text, its trailing spaces held when a marker may follow
                self._put_run(texts, buf[pos:end], end == n or buf[end] in _OPENERS)
                pos = end
                continue
            char = buf[pos]
            if char == "\n":
                self._put(texts, char)
                pos += 1
                continue
            if char not in _OPENERS:  # a backtick
                return pos, None
            opened = opened_at(buf, pos, False)
            if opened is None:
                self._put(texts, char)
                pos += 1
                continue
            if opened == NEED:
                self._buf = buf[pos:]
                return -1, None
            return pos, opened if isinstance(opened, Marker) else None
        return -1, None

    def _put(self, texts: list[str], text: str) -> None:
        """``_text`` without tokens: the held spaces released, then ``text``, their texts put in ``texts``."""
        if self._held:
            held, self._held = self._held, ""
            self._wrote(held)
            texts.append(held)
        if text:
            self._wrote(text)
            texts.append(text)

    def _put_run(self, texts: list[str], run: str, hold: bool) -> None:
        """``_text_run`` without tokens."""
        keep = self._hold_from(run) if hold else len(run)
        if keep < len(run):
            if keep:
                self._put(texts, run[:keep])
            self._held += run[keep:]
            return
        self._put(texts, run)

    def _hold_from(self, run: str) -> int:
        """Where the spaces at the end of ``run`` that are held start (``len(run)``: none held): spaces and
        tabs before a possible marker, unless the run of spaces would be longer than ``MAX_WS``."""
        body = run.rstrip(" \t")
        trailing = len(run) - len(body)
        ws_before = self._ws_run + len(self._held) if not body else 0
        if trailing and ws_before + trailing <= MAX_WS:
            return len(body)
        return len(run)

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

    def _text_run(self, out: list[Token], run: str, hold: bool) -> None:
        """Plain text; trailing spaces are held when a marker may follow them."""
        keep = self._hold_from(run) if hold else len(run)
        if keep < len(run):
            if keep:
                self._text(out, run[:keep])
            self._held += run[keep:]
            return
        self._text(out, run)

    def _release(self, out: list[Token]) -> None:
        if self._held:
            held, self._held = self._held, ""
            self._wrote(held)
            out.append(Token(Kind.TEXT, held))

    def _text(self, out: list[Token], text: str, kind: Kind = Kind.TEXT) -> None:
        if self._held:
            self._release(out)
        if text:
            self._wrote(text)
            out.append(Token(kind, text))


def opened_at(buf: str, pos: int, eof: bool) -> ThinkTag | Marker | Tag | str | None:
    """What the opener at ``buf[pos]`` opens: a thinking tag, a marker, a ``<CIT>`` or LongCite tag,
    ``NEED`` (it may still become one) or None (the opener is text)."""
    if buf[pos] == TAG_OPENER:
        think = match_think(buf, pos, eof)
        if think == NEED or isinstance(think, ThinkTag):
            return think
    return match_marker(buf, pos, eof)
