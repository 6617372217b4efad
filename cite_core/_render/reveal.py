"""Show invisible characters, so text that is not a marker cannot look like one.

``[<U+202E>1]`` and ``[1<U+200B>]`` are not markers (nothing is cited, nothing reported), but a
renderer that drops or obeys the invisible character shows them exactly like ``[1]``. Every renderer
(terminal, Markdown, HTML) passes model text through :func:`reveal_invisible`, which writes such a
character as ``‹U+202E›`` instead of deleting it (deleting it is what made the fake look real).

Two tiers, so ordinary text keeps the invisible characters it needs:

- always shown: format characters (category Cf: bidi overrides, embeddings and isolates, zero-width
  space, word joiner, soft hyphen, BOM, ...) and C0/C1 controls other than tab and line breaks, except
  those below;
- shown only inside a short bracket (``[...]``, ``<...>``, ``(...)`` of at most ``MAX_BRACKET_CHARS``,
  on one line), where a marker or tag would be: the joiners emoji and Indic/Persian words need (U+200C,
  U+200D), the bidi marks right-to-left text needs (U+200E, U+200F, U+061C), tag characters (flag emoji),
  the Hangul fillers and the Braille blank.

``answer.text`` and every offset are untouched: only what a renderer shows changes.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .._brackets import KEYWORD_CLOSERS, MARKER_CLOSERS, OPENERS, TAG_CLOSER

__all__ = ["MAX_BRACKET_CHARS", "reveal_invisible", "shown_as"]

MAX_BRACKET_CHARS = 64
"""A bracket this long or shorter (its content) is where a look-alike marker or tag could hide."""

_IN_BRACKETS_ONLY = frozenset(
    [0x200C, 0x200D, 0x200E, 0x200F, 0x061C, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, *range(0xE0020, 0xE0080)]
)
_OPEN = re.escape(OPENERS + "（")
_CLOSE = re.escape(MARKER_CLOSERS + KEYWORD_CLOSERS + TAG_CLOSER + "）")
"""A marker's or tag's brackets (``cite_core/_brackets.py``) and full-width parentheses."""
_VISIBLE_FORMAT = frozenset(
    [*range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD]
)
"""Format characters that print a visible sign (Arabic number signs and the like)."""


def _hidden(code: int) -> bool:
    if code in (9, 10, 13) or code in _VISIBLE_FORMAT:
        return False
    cat = unicodedata.category(chr(code))
    return cat in ("Cf", "Cc") or code in _IN_BRACKETS_ONLY


def _class(codes: frozenset[int] | set[int]) -> str:
    return "".join(re.escape(chr(c)) for c in sorted(codes))


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(always shown, shown in brackets, any hidden): built on first use (a scan of planes 0, 1 and
    the tag block, which hold every format and control character, takes ~0.1 s)."""
    hidden = {
        c for c in (*range(0x20000), *range(0xE0000, 0xE0080)) if not 0xD800 <= c < 0xE000 and _hidden(c)
    }
    any_hidden = f"[{_class(hidden)}]"
    inner = rf"[^\[\]<>()\n]{{0,{MAX_BRACKET_CHARS}}}"
    bracket = re.compile(rf"[{_OPEN}](?={inner}[{_CLOSE}]){inner}?{any_hidden}{inner}?[{_CLOSE}]")
    return re.compile(f"[{_class(hidden - _IN_BRACKETS_ONLY)}]"), bracket, re.compile(any_hidden)


def shown_as(char: str) -> str:
    """How an invisible character is shown: ``‹U+202E›``."""
    return f"‹U+{ord(char):04X}›"


def _show(match: re.Match[str]) -> str:
    return shown_as(match.group())


def reveal_invisible(text: str) -> str:
    """``text`` with invisible characters written as ``‹U+XXXX›`` (see the module docstring)."""
    if text.isascii() and text.isprintable():
        return text
    always, bracket, any_hidden = _patterns()
    text = bracket.sub(lambda m: any_hidden.sub(_show, m.group()), text)
    return always.sub(_show, text)
