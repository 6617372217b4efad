"""Recognise a citation marker at a position of a partially received text.

``[1]``, ``[1, 2]``, ``[1-3]``, ``[^1]``, ``[Source 1]``, ``(Source 1)``, ``[2:1-3]``, ``[1](https://...)``,
in every bracket of ``cite_core/_brackets.py``; at a ``<``, the tags of ``tags.py``. Answers a
``Marker``, a ``Tag``, ``None`` or ``NEED`` as ``match_types.py`` says.
"""

from __future__ import annotations

import re

from .._brackets import CLOSERS, KEYWORD_OPENERS, LINK_OPENERS, TAG_OPENER, alternation
from .match_types import MAX_HOLD, NEED, NUM, Construct, Item, Marker, Tag, simple_marker
from .tags import match_tag

__all__ = ["MAX_HOLD", "MAX_RANGE", "MAX_URL", "match_marker", "match_simple", "simple_start"]

MAX_URL = 512
MAX_RANGE = 50
"""``[1-50]`` expands; a wider range is reported invalid instead."""

_KW = (
    r"(?:sources?|src|docs?|documents?|id|refs?|references?|citations?|cite|chunks?|passages?|context|"
    r"fuentes?|documentos?|referencias?|文档|来源|资料|引用|出处|文献|参考)"
)
_RANGE = rf"{NUM}(?:\s*[-–—~]\s*{NUM})?"
_ITEM = rf"(?:{_KW}\s*[:#：]?\s*)?{_RANGE}(?:\s*:\s*{_RANGE})?"
_SEP = r"\s*(?:,|;|、|，|；|&|\band\b|\by\b|和)\s*"
_OPEN = alternation("marker", 0)
_CLOSE = alternation("marker", 1)
_KEY_OPEN = alternation("keyword", 0)
_KEY_CLOSE = alternation("keyword", 1)
_BRACKET = Construct(
    re.compile(
        rf"(?P<open>{_OPEN})\s*(?P<caret>\^)?\s*(?P<inner>{_ITEM}(?:{_SEP}{_ITEM})*)\s*(?P<close>{_CLOSE})",
        re.IGNORECASE,
    ),
    MAX_HOLD,
)
_PAREN = Construct(
    re.compile(
        rf"(?:{_KEY_OPEN})\s*(?P<inner>{_KW}\s*[:#：]?\s*{_RANGE}(?:{_SEP}(?:{_KW}\s*[:#：]?\s*)?{_RANGE})*)\s*"
        rf"(?:{_KEY_CLOSE})",
        re.IGNORECASE,
    ),
    MAX_HOLD,
)
_ITEM_PARTS = re.compile(
    rf"(?P<lo>{NUM})(?:\s*[-–—~]\s*(?P<hi>{NUM}))?(?:\s*:\s*(?P<slo>{NUM})(?:\s*[-–—~]\s*(?P<shi>{NUM}))?)?"
)
_NUMS_PREFIX = r"[0-9０-９][\s0-9０-９,;、，；&:#：\-–—~A-Za-z\u4e00-\u9fff]*"
_BRACKET_PREFIX = re.compile(
    rf"(?:{_OPEN})\s*\^?\s*(?:[A-Za-z\u4e00-\u9fff]{{1,12}}\s*[:#：]?\s*)?(?:{_NUMS_PREFIX})?",
    re.IGNORECASE,
)
_PAREN_PREFIX = re.compile(
    rf"(?:{_KEY_OPEN})\s*(?:[A-Za-z\u4e00-\u9fff]{{1,12}}\s*[:#：]?\s*(?:{_NUMS_PREFIX})?)?", re.IGNORECASE
)
_LINK = Construct(re.compile(rf"\([^\s()]{{0,{MAX_URL}}}\)"), MAX_URL + 2)
_LINK_PREFIX = re.compile(rf"\([^\s()]{{0,{MAX_URL}}}")
_SIMPLE = re.compile(r"\[([0-9]{1,6})\]")
_SIMPLE_START = re.compile(r"\[(?:[0-9]{1,6}\]?)?")


def _items(inner: str, raw: str) -> tuple[tuple[Item, ...], tuple[str, ...]]:
    items: list[Item] = []
    invalid: list[str] = []
    parts = list(_ITEM_PARTS.finditer(inner))
    several = len(parts) > 1
    for m in parts:
        lo = int(m["lo"])
        hi = int(m["hi"]) if m["hi"] else lo
        sentences = None
        if m["slo"]:
            s_lo = int(m["slo"])
            s_hi = int(m["shi"]) if m["shi"] else s_lo
            sentences = (s_lo, s_hi) if s_lo <= s_hi else (s_hi, s_lo)
        part_raw = f"[{m.group(0)}]" if several else raw
        if hi < lo or hi - lo > MAX_RANGE:
            invalid.append(part_raw)
            continue
        for n in range(lo, hi + 1):
            # reported, when invalid, as written: the part naming sentences, else the marker or its number
            item_raw = part_raw if sentences and hi == lo else f"[{n}]" if hi != lo or several else raw
            items.append(Item(n, item_raw, sentences))
    return tuple(items), tuple(invalid)


def match_marker(text: str, pos: int, eof: bool) -> Marker | Tag | str | None:
    """The marker starting at ``text[pos]``, ``NEED``, or ``None``."""
    char = text[pos]
    if char == TAG_OPENER:
        return match_tag(text, pos, eof)
    if char in KEYWORD_OPENERS:
        m = _PAREN.match(text, pos)
        if m:
            if not _PAREN.final(m, text, eof):
                return NEED
            items, invalid = _items(m["inner"], m.group(0))
            return Marker(pos, m.end(), m.group(0), items, invalid)
        return _prefix(_PAREN_PREFIX, text, pos, eof)
    simple = match_simple(text, pos)
    if simple is not None:
        return simple
    m = _BRACKET.match(text, pos)
    if m and CLOSERS[m["open"]] != m["close"] and m["open"] != "[[":
        m = None  # opened and closed by brackets of different rows: text
    if m:
        if not _BRACKET.final(m, text, eof):
            return NEED
        if m["open"] == "[[" and m["close"] != "]]":
            return None  # "[[1]": the first "[" is text, "[1]" is the marker
        end = m.end()
        # [1](https://...): the model's URL is dropped
        if text.startswith("(", end) and m["open"] in LINK_OPENERS:
            link = _LINK.match(text, end)
            if link:
                if not _LINK.final(link, text, eof):
                    return NEED
                end = link.end()
            elif not _LINK.known(text, end, eof) and _LINK_PREFIX.fullmatch(text, end):
                return NEED
        items, invalid = _items(m["inner"], m.group(0))
        return Marker(pos, end, text[pos:end], items, invalid)
    return _prefix(_BRACKET_PREFIX, text, pos, eof)


def match_simple(text: str, pos: int) -> Marker | None:
    """The marker most models write, ``[12]``, at ``text[pos]``, when it is decided there: not at the end
    of the text so far, not followed by a link or a second ``]`` (which the general pattern reads as a
    mismatched ``]]``). What ``match_marker`` gives there, without the general pattern's groups; None
    for anything else (``match_marker`` decides it)."""
    m = _SIMPLE.match(text, pos)
    if m is not None and m.end() < len(text) and text[m.end()] not in "(]":
        raw = m.group()
        return simple_marker(pos, m.end(), raw, int(m.group(1)))
    return None


def simple_start(text: str, pos: int) -> bool:
    """Whether ``text[pos:]``, the end of the text so far, is the start of a marker ``[12]`` (``[``, ``[1``,
    ``[12]``, which a link or a second ``]`` may still follow) within its window: ``match_marker`` answers
    ``NEED`` there."""
    return len(text) - pos < MAX_HOLD and _SIMPLE_START.fullmatch(text, pos) is not None


def _prefix(pattern: re.Pattern[str], text: str, pos: int, eof: bool) -> str | None:
    if _BRACKET.known(text, pos, eof):  # a marker is decided within its window (brackets or parentheses)
        return None
    return NEED if pattern.fullmatch(text, pos) else None
