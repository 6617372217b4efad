"""Recognise what a line of a partially received answer opens: a code fence or a reference list.

Models write a reference list even when told not to (``Sources:``, ``## References``, ``[2] My
Document, https://...``, Markdown definitions ``[1]: ...``); the lexer removes it from the answer. A
code fence opens a block that is never scanned for markers. Answers as ``match_types.py`` says.
"""

from __future__ import annotations

import re

from .._brackets import KEYWORD_OPENERS, MARKER_OPENERS
from .markers import match_marker
from .match_types import MAX_HOLD, NEED, Construct, Marker

__all__ = ["FENCE_LINE", "LINE_START", "MAX_FENCE", "match_fence_close", "match_line_start"]

MAX_FENCE = 32
"""A run of backticks or tildes longer than this opens no code fence or code span: it is text, so a
stream never holds back more than this many of them."""
LINE_START = MAX_HOLD
"""What a line opens (a fence, a reference list heading or entry) is decided from its first
``LINE_START`` characters, the same ones in a stream and in the whole text."""
FENCE_LINE = MAX_FENCE + 3
"""A closing fence line (up to 3 spaces, the run, trailing spaces) is at most this many characters."""
_LINE = Construct(re.compile(r"[^\n]*"), LINE_START)
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_RUN = re.compile(r" {0,3}(`+|~+)")
_FENCE_PREFIX = re.compile(r" {0,3}(?:`{1,2}|~{1,2})?")
_FENCE_CLOSE = Construct(re.compile(r"( {0,3})(`+|~+)?([ \t]*)"), FENCE_LINE + 1)
"""The start of a line inside a fenced block, up to its newline (the window: the line and its newline)."""
_HEADING_WORDS = (
    "references",
    "reference",
    "sources",
    "source",
    "citations",
    "bibliography",
    "works cited",
    "sources cited",
    "referencias",
    "fuentes",
    "bibliografía",
    "citas",
    "参考文献",
    "参考资料",
    "参考来源",
    "资料来源",
    "来源",
    "引用",
    "出处",
)
_EMPHASIS = r"(?:(?:\*\*|__|\*|_)[ \t]*)?"
# no two runs of spaces are adjacent (each run is followed by something it cannot match), so a failed
# match backtracks through a run once, not once per way of splitting it
_HEADING = re.compile(
    r"[ \t]*(?:#{1,6}[ \t]*)?"
    + _EMPHASIS
    + "(?P<word>"
    + "|".join(re.escape(w) for w in sorted(_HEADING_WORDS, key=len, reverse=True))
    + r")[ \t]*"
    + _EMPHASIS
    + r"(?:(?P<colon>[:：])[ \t]*)?"
    + _EMPHASIS
    + r"(?P<rest>[^\n]*)",
    re.IGNORECASE,
)
_BULLET = re.compile(r"[ \t]*(?:[-*+•][ \t]+|\d{1,3}[.)][ \t]+)?")
_BULLET_PREFIX = re.compile(r"[ \t]*(?:[-*+•][ \t]*|\d{1,3}(?:[.)][ \t]*)?)?")
_HEADING_PREFIX_CHARS = re.compile(r"[ \t#*_]*")
_LIST_FIRST = MARKER_OPENERS + KEYWORD_OPENERS + "-*•0123456789"
"""What may follow ``Sources:`` on its line for the line to open a reference list: a marker, a bullet, a
number (or a URL)."""


_HEADING_STARTS = frozenset(word[:i] for word in _HEADING_WORDS for i in range(1, len(word) + 1))
"""Every start of a heading word: one set lookup per line start instead of a scan of the words."""


def _is_heading_prefix(fragment: str) -> bool:
    stripped = fragment[_HEADING_PREFIX_CHARS.match(fragment).end() :].lower()  # type: ignore[union-attr]
    return not stripped or stripped in _HEADING_STARTS


def match_line_start(
    text: str, pos: int, eof: bool, titles: dict[int, tuple[str, ...]]
) -> str | tuple[str, int] | None:
    """What a line starting at ``text[pos]`` opens: ``("fence", end)``, ``"reflist"``, ``NEED`` or ``None``.

    ``titles`` maps each valid source number to the lower-cased strings that name it (title, URL), so
    that ``[2] My Document, https://...`` at the start of a line is recognised as a reference list.
    Decided from the line's first ``LINE_START`` characters: ``NEED`` only while they have not all
    arrived.
    """
    start = text[pos : pos + 2]
    if start.isascii() and start.isalpha() and start.lower() not in _HEADING_STARTS:
        # most lines: two ASCII letters (or one, all received) that start no heading word open nothing,
        # as every test of _line_opens finds (no fence, bullet, number, marker or emphasis starts with a
        # letter); tests/core/test_fast_paths.py compares the two
        return None
    if start[:1] == "\n":
        return None  # an empty line, decided (its end is here): no fence, heading or entry is empty
    return _line_opens(text, pos, eof, titles)


def _line_opens(
    text: str, pos: int, eof: bool, titles: dict[int, tuple[str, ...]]
) -> str | tuple[str, int] | None:
    """``match_line_start`` without its shortcut for lines that start with letters."""
    line_end = _LINE.match(text, pos).end()  # type: ignore[union-attr]
    known = _LINE.known(text, pos, eof) or line_end < len(text)
    # the whole line is in the window: it ended (a newline or the end) before the window's last character
    ended = line_end - pos < LINE_START and (line_end < len(text) or eof)
    line = text[pos:line_end]
    run = _FENCE_RUN.match(line)
    if run and len(run.group(1)) > MAX_FENCE:
        return None  # decided without waiting: a run this long opens no fence, the line is text
    if not known and _FENCE_PREFIX.fullmatch(line):
        return NEED
    fence = _FENCE.match(line)
    if fence:
        if fence.end() == len(line) and not known:
            return NEED
        return ("fence", pos + fence.end())
    if not line and not known:
        return NEED
    if not known and _is_heading_prefix(line):
        return NEED  # "Sources c" may still become "Sources cited"
    heading = _HEADING.match(line)
    if heading:
        rest = heading["rest"].strip()
        if not rest:  # "Sources", "## References", "**Sources:**" alone on the line so far
            if ended:
                return "reflist"
            return None if known else NEED
        if heading["colon"] and (rest[0] in _LIST_FIRST or rest.lower().startswith("http")):
            return "reflist"  # "Sources: [1] ..., [2] ..."
        if heading["colon"] and not known and "http".startswith(rest.lower()):
            return NEED  # "Sources: ht" may still become "Sources: https://..."
    return _reference_entry(text, pos, line_end, ended, known, titles)


def _reference_entry(
    text: str, pos: int, line_end: int, ended: bool, known: bool, titles: dict[int, tuple[str, ...]]
) -> str | None:
    if not known and _BULLET_PREFIX.fullmatch(text, pos, line_end):
        return NEED
    bullet = _BULLET.match(text, pos, line_end)
    start = bullet.end() if bullet else pos
    if start >= line_end:
        return None
    if text[start] not in MARKER_OPENERS:
        return None
    line = text[start:line_end]
    marker = match_marker(line, 0, known)  # the window's end is the end when it is known
    if marker == NEED:
        return NEED
    if not isinstance(marker, Marker) or len(marker.items) != 1:
        return None
    after = line[marker.end :]
    if marker.raw.startswith("[^") and after.startswith(":"):
        return "reflist"  # a Markdown footnote definition
    if after.startswith(":") and after[1:2] in (" ", "\t", ""):
        if not after[1:] and not known:
            return NEED  # "[1]:" so far: "[1]: text" is a definition, "[1]:c" is not
        return "reflist"  # a Markdown link reference definition
    names = titles.get(marker.items[0].number, ())
    head = after.lstrip(" \t-–—:*\"“'").lower()
    for name in names:
        want = name[:24]
        if head.startswith(want):
            return "reflist"
        if not known and want.startswith(head):
            return NEED
    return None


def match_fence_close(text: str, pos: int, eof: bool, fence: str) -> bool | str:
    """Whether the line starting at ``text[pos]``, inside a block opened by ``fence`` (its run of
    backticks or tildes), closes it: up to 3 spaces, a run of the same character at least as long (at
    most ``MAX_FENCE``), spaces, the end of the line, within ``FENCE_LINE`` characters; or ``NEED``."""
    m = _FENCE_CLOSE.match(text, pos)
    end = m.end()  # type: ignore[union-attr]
    run = m.group(2) or ""  # type: ignore[union-attr]
    if end == len(text) and not _FENCE_CLOSE.known(text, pos, eof):
        # the line so far: wait while it may still become a closing line (spaces, then the run)
        return NEED if not run or (run[0] == fence[0] and len(run) <= MAX_FENCE) else False
    ended = text.startswith("\n", end) or (eof and end == len(text))
    return ended and end - pos <= FENCE_LINE and run[:1] == fence[:1] and len(fence) <= len(run) <= MAX_FENCE
