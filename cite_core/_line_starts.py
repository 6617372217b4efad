"""Recognise what a line of a partially received answer opens: a code fence or a reference list.

Models write a reference list even when told not to (``Sources:``, ``## References``, ``[2] My
Document, https://...``, Markdown definitions ``[1]: ...``); the lexer removes it from the answer. A
code fence opens a block that is never scanned for markers. Answers as ``_match_types.py`` says.
"""

from __future__ import annotations

import re

from ._markers import MAX_HOLD, match_marker
from ._match_types import NEED, Marker

__all__ = ["MAX_FENCE", "match_line_start"]

MAX_FENCE = 32
"""A run of backticks or tildes longer than this opens no code fence or code span: it is text, so a
stream never holds back more than this many of them."""
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FENCE_RUN = re.compile(r" {0,3}(`+|~+)")
_FENCE_PREFIX = re.compile(r" {0,3}(?:`{1,2}|~{1,2})?")
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
_HEADING = re.compile(
    r"[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__|\*|_)?[ \t]*(?P<word>"
    + "|".join(re.escape(w) for w in sorted(_HEADING_WORDS, key=len, reverse=True))
    + r")[ \t]*(?:\*\*|__|\*|_)?[ \t]*(?P<colon>[:：])?[ \t]*(?:\*\*|__|\*|_)?[ \t]*(?P<rest>[^\n]*)",
    re.IGNORECASE,
)
_BULLET = re.compile(r"[ \t]*(?:[-*+•][ \t]+|\d{1,3}[.)][ \t]+)?")
_BULLET_PREFIX = re.compile(r"[ \t]*(?:[-*+•][ \t]*|\d{1,3}(?:[.)][ \t]*)?)?")
_HEADING_PREFIX_CHARS = re.compile(r"[ \t#*_]*")


def _is_heading_prefix(fragment: str) -> bool:
    stripped = fragment[_HEADING_PREFIX_CHARS.match(fragment).end() :].lower()  # type: ignore[union-attr]
    return not stripped or any(w.startswith(stripped) for w in _HEADING_WORDS)


def match_line_start(
    text: str, pos: int, eof: bool, titles: dict[int, tuple[str, ...]]
) -> str | tuple[str, int] | None:
    """What a line starting at ``text[pos]`` opens: ``("fence", end)``, ``"reflist"``, ``NEED`` or ``None``.

    ``titles`` maps each valid source number to the lower-cased strings that name it (title, URL), so
    that ``[2] My Document, https://...`` at the start of a line is recognised as a reference list.
    """
    newline = text.find("\n", pos)
    line_end = len(text) if newline < 0 else newline
    complete = newline >= 0 or eof
    line = text[pos:line_end]
    run = _FENCE_RUN.match(line)
    if run and len(run.group(1)) > MAX_FENCE:
        return None  # decided without waiting: a run this long opens no fence, the line is text
    if not complete and _FENCE_PREFIX.fullmatch(line):
        return NEED
    fence = _FENCE.match(line)
    if fence:
        if fence.end() == len(line) and not complete:
            return NEED
        return ("fence", pos + fence.end())
    if not line and not complete:
        return NEED
    if not complete and len(line) <= MAX_HOLD and _is_heading_prefix(line):
        return NEED  # "Sources c" may still become "Sources cited"
    heading = _HEADING.match(line)
    if heading:
        rest = heading["rest"].strip()
        if not rest:  # "Sources", "## References", "**Sources:**" alone on the line so far
            if complete:
                return "reflist"
            return NEED if len(line) <= MAX_HOLD else None
        if heading["colon"] and (rest[0] in "[【［(-*•0123456789" or rest.lower().startswith("http")):
            return "reflist"  # "Sources: [1] ..., [2] ..."
        if heading["colon"] and not complete and "http".startswith(rest.lower()):
            return NEED  # "Sources: ht" may still become "Sources: https://..."
    return _reference_entry(text, pos, line_end, complete, titles)


def _reference_entry(
    text: str, pos: int, line_end: int, complete: bool, titles: dict[int, tuple[str, ...]]
) -> str | None:
    if not complete and _BULLET_PREFIX.fullmatch(text, pos, line_end) and line_end - pos <= MAX_HOLD:
        return NEED
    bullet = _BULLET.match(text, pos, line_end)
    start = bullet.end() if bullet else pos
    if start >= line_end:
        return None
    if text[start] not in "[【［":
        return None
    line = text[start:line_end]
    marker = match_marker(line, 0, complete)
    if marker == NEED:
        return NEED
    if not isinstance(marker, Marker) or len(marker.items) != 1:
        return None
    after = line[marker.end :]
    if marker.raw.startswith("[^") and after.startswith(":"):
        return "reflist"  # a Markdown footnote definition
    if after.startswith(":") and after[1:2] in (" ", "\t", ""):
        if not after[1:] and not complete:
            return NEED  # "[1]:" so far: "[1]: text" is a definition, "[1]:c" is not
        return "reflist"  # a Markdown link reference definition
    names = titles.get(marker.items[0].number, ())
    head = after.lstrip(" \t-–—:*\"“'").lower()
    for name in names:
        want = name[:24]
        if head.startswith(want):
            return "reflist"
        if not complete and want.startswith(head):
            return NEED
    return None
