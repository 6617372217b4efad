"""Recognise citation markers at a position of a partially received text.

Every function here answers from what it was given: a match, ``None`` (not a marker), or ``NEED``
(the text so far could still become a marker; wait for more, bounded by ``MAX_HOLD`` characters).
A match that touches the end of the text is not trusted until more text or the end arrives, so the
answer never depends on where a stream was cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MAX_FENCE",
    "MAX_HOLD",
    "NEED",
    "Item",
    "Marker",
    "Tag",
    "ThinkTag",
    "match_line_start",
    "match_marker",
    "match_think",
]

NEED = "need"
"""Returned when the text may still become a marker once more of it arrives."""

MAX_HOLD = 48
"""At most this many characters are held back for an unfinished marker (a link target: ``MAX_URL``)."""
MAX_URL = 512
MAX_RANGE = 50
"""``[1-50]`` expands; a wider range is reported invalid instead."""

_KW = (
    r"(?:sources?|src|docs?|documents?|id|refs?|references?|citations?|cite|chunks?|passages?|context|"
    r"fuentes?|documentos?|referencias?|文档|来源|资料|引用|出处|文献|参考)"
)
_NUM = r"[0-9０-９]{1,6}"
_RANGE = rf"{_NUM}(?:\s*[-–—~]\s*{_NUM})?"
_ITEM = rf"(?:{_KW}\s*[:#：]?\s*)?{_RANGE}(?:\s*:\s*{_RANGE})?"
_SEP = r"\s*(?:,|;|、|，|；|&|\band\b|\by\b|和)\s*"
_BRACKET = re.compile(
    rf"(?P<open>\[\[|\[|【|［|〔)\s*(?P<caret>\^)?\s*(?P<inner>{_ITEM}(?:{_SEP}{_ITEM})*)\s*(?P<close>\]\]|\]|】|］|〕)",
    re.IGNORECASE,
)
_PAREN = re.compile(
    rf"\(\s*(?P<inner>{_KW}\s*[:#：]?\s*{_RANGE}(?:{_SEP}(?:{_KW}\s*[:#：]?\s*)?{_RANGE})*)\s*\)",
    re.IGNORECASE,
)
_ITEM_PARTS = re.compile(
    rf"(?P<lo>{_NUM})(?:\s*[-–—~]\s*(?P<hi>{_NUM}))?(?:\s*:\s*(?P<slo>{_NUM})(?:\s*[-–—~]\s*(?P<shi>{_NUM}))?)?"
)
_NUMS_PREFIX = r"[0-9０-９][\s0-9０-９,;、，；&:#：\-–—~A-Za-z\u4e00-\u9fff]*"
_BRACKET_PREFIX = re.compile(
    rf"(?:\[\[|\[|【|［|〔)\s*\^?\s*(?:[A-Za-z\u4e00-\u9fff]{{1,12}}\s*[:#：]?\s*)?(?:{_NUMS_PREFIX})?",
    re.IGNORECASE,
)
_PAREN_PREFIX = re.compile(
    rf"\(\s*(?:[A-Za-z\u4e00-\u9fff]{{1,12}}\s*[:#：]?\s*(?:{_NUMS_PREFIX})?)?", re.IGNORECASE
)
_LINK = re.compile(rf"\((?:[^\s()]{{0,{MAX_URL}}})\)")
_LINK_PREFIX = re.compile(rf"\([^\s()]{{0,{MAX_URL}}}")
_SIMPLE = re.compile(r"\[([0-9]{1,6})\]")
_CLOSERS = {"[[": "]]", "[": "]", "【": "】", "［": "］", "〔": "〕"}

_TAG_OPEN = re.compile(r"<cit\b(?P<attrs>[^<>]{0,200})>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"</cit\s*>", re.IGNORECASE)
_Q = "[\"'’′‘`]?"
_ATTR_SOURCE = re.compile(rf"(?:chunk_id|chunk|source|doc|document|id)\s*=\s*{_Q}\s*({_NUM})", re.IGNORECASE)
_ATTR_SENTENCES = re.compile(rf"sentences?\s*=\s*{_Q}\s*({_NUM})(?:\s*[-–—~]\s*({_NUM}))?", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    """One cited number of a marker, with the sentence range it names (1-based, inclusive), if any."""

    number: int
    raw: str
    sentences: tuple[int, int] | None = None


@dataclass(frozen=True)
class Marker:
    """A marker such as ``[1]``, ``[1, 2]``, ``[Source 3]`` or ``[2:1-3]``, spanning ``start:end``."""

    start: int
    end: int
    raw: str
    items: tuple[Item, ...]
    invalid: tuple[str, ...] = ()
    """Parts that name no number (an over-wide range), reported as invalid."""


@dataclass(frozen=True)
class Tag:
    """``<CIT chunk_id='n' sentences='a-b'>`` (``items`` set) or ``</CIT>`` (``items`` empty); with
    ``name`` ``statement`` or ``cite``, a tag of the LongCite format ``<statement>S<cite>[a-b]</cite>``."""

    start: int
    end: int
    raw: str
    items: tuple[Item, ...] = ()
    closing: bool = False
    name: str = "cit"
    """``cit``, ``statement`` or ``cite`` (lower case)."""


@dataclass(frozen=True)
class ThinkTag:
    """``<think>``, ``<thinking>`` or ``<reasoning>`` (any case), opening or closing, at ``start:end``."""

    start: int
    end: int
    name: str
    """The lower-cased tag name."""
    closing: bool = False


_THINK = re.compile(r"<(/?)(thinking|think|reasoning)\s*>", re.IGNORECASE)
_THINK_PREFIX = re.compile(r"</?(?:thinking|think|reasoning)\s*", re.IGNORECASE)
_THINK_NAMES = ("think", "thinking", "reasoning")
MAX_THINK_TAG = 24
"""A possible thinking tag is held back for at most this many characters."""


def match_think(text: str, pos: int, eof: bool) -> ThinkTag | str | None:
    """The thinking tag starting at ``text[pos]`` (a ``<``), ``NEED``, or ``None``."""
    m = _THINK.match(text, pos)
    if m:
        return ThinkTag(pos, m.end(), m.group(2).lower(), closing=bool(m.group(1)))
    if eof or len(text) - pos > MAX_THINK_TAG:
        return None
    if _THINK_PREFIX.fullmatch(text, pos):
        return NEED  # "<think" may still become "<thinking>"
    rest = text[pos + 1 :].lower()
    rest = rest[1:] if rest.startswith("/") else rest
    return NEED if any(name.startswith(rest) for name in _THINK_NAMES) else None


def _touches_end(end: int, text: str, eof: bool) -> bool:
    return end >= len(text) and not eof


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
        items.extend(Item(n, f"[{n}]" if hi != lo or several else raw, sentences) for n in range(lo, hi + 1))
    return tuple(items), tuple(invalid)


def match_marker(text: str, pos: int, eof: bool) -> Marker | Tag | str | None:
    """The marker starting at ``text[pos]``, ``NEED``, or ``None``."""
    char = text[pos]
    if char == "<":
        return _match_tag(text, pos, eof)
    if char == "(":
        m = _PAREN.match(text, pos)
        if m and m.end() - pos <= MAX_HOLD:
            if _touches_end(m.end(), text, eof):
                return NEED
            items, invalid = _items(m["inner"], m.group(0))
            return Marker(pos, m.end(), m.group(0), items, invalid)
        return _prefix(_PAREN_PREFIX, text, pos, eof)
    m = _SIMPLE.match(text, pos)
    if m is not None and m.end() < len(text) and text[m.end()] not in "(]":
        # "[12]" not at the end of the text so far, not followed by a link or a second "]" (which the
        # general pattern reads as a mismatched "]]"): what the general pattern below gives, without
        # its groups (most markers real models write)
        raw = m.group()
        return Marker(pos, m.end(), raw, (Item(int(m.group(1)), raw),))
    m = _BRACKET.match(text, pos)
    if m and ((_CLOSERS[m["open"]] != m["close"] and m["open"] != "[[") or m.end() - pos > MAX_HOLD):
        m = None  # 【1] and the like (mismatched brackets) and over-long groups are text
    if m:
        if _touches_end(m.end(), text, eof):
            return NEED
        if m["open"] == "[[" and m["close"] != "]]":
            return None  # "[[1]": the first "[" is text, "[1]" is the marker
        end = m.end()
        if text.startswith("(", end) and m["open"] == "[":  # [1](https://...): the model's URL is dropped
            link = _LINK.match(text, end)
            if link:
                if _touches_end(link.end(), text, eof):
                    return NEED
                end = link.end()
            elif not eof and _LINK_PREFIX.fullmatch(text, end):
                return NEED
        items, invalid = _items(m["inner"], m.group(0))
        return Marker(pos, end, text[pos:end], items, invalid)
    return _prefix(_BRACKET_PREFIX, text, pos, eof)


def _prefix(pattern: re.Pattern[str], text: str, pos: int, eof: bool) -> str | None:
    if eof or len(text) - pos > MAX_HOLD:
        return None
    return NEED if pattern.fullmatch(text, pos) else None


_STATEMENT_TAG = re.compile(r"<(/?)\s*(statement|cite)\s*>", re.IGNORECASE)
_STATEMENT_NAMES = ("statement", "cite")
_MAX_STATEMENT_PREFIX = 24
"""An unfinished statement or cite tag is held back for at most this many characters."""
_CITE_LOOKAHEAD = re.compile(r"[ \t]{0,16}")
_CITE_FOLLOWS = "[【［<"
"""``<cite>`` opens a citation only when one of these follows (after spaces): ``<cite>[2]``,
``<cite></cite>``; otherwise (``<cite>Title</cite>``, HTML) it is text."""


def _match_statement_tag(text: str, pos: int, eof: bool) -> Tag | str | None:
    """``<statement>``, ``</statement>``, ``<cite>`` or ``</cite>`` at ``text[pos]``, ``NEED`` or ``None``."""
    m = _STATEMENT_TAG.match(text, pos)
    if m is None:
        if eof or len(text) - pos > _MAX_STATEMENT_PREFIX:
            return None
        return NEED if _is_statement_prefix(text[pos:].lower()) else None
    name, closing = m.group(2).lower(), bool(m.group(1))
    if name == "cite" and not closing:
        after = _CITE_LOOKAHEAD.match(text, m.end()).end()  # type: ignore[union-attr]
        if after == len(text):
            if not eof:
                return NEED if after - m.end() < 16 else None
        elif text[after] not in _CITE_FOLLOWS:
            return None
    return Tag(pos, m.end(), m.group(0), closing=closing, name=name)


def _is_statement_prefix(rest: str) -> bool:
    """Whether ``rest`` (lower case, from its ``<``) may still become a statement or cite tag."""
    body = rest[2:] if rest.startswith("</") else rest[1:]
    body = body.lstrip()
    word = body.rstrip()
    if word != body:  # spaces after the name: only a whole name may go on to ">"
        return word in _STATEMENT_NAMES
    return any(name.startswith(word) for name in _STATEMENT_NAMES)


def _match_tag(text: str, pos: int, eof: bool) -> Tag | str | None:
    found = _match_statement_tag(text, pos, eof)
    if found is not None:
        return found
    m = _TAG_CLOSE.match(text, pos)
    if m:
        return Tag(pos, m.end(), m.group(0), closing=True)
    m = _TAG_OPEN.match(text, pos)
    if m:
        source = _ATTR_SOURCE.search(m["attrs"])
        if source is None:
            return None
        sentences = None
        s = _ATTR_SENTENCES.search(m["attrs"])
        if s:
            lo = int(s.group(1))
            hi = int(s.group(2)) if s.group(2) else lo
            sentences = (min(lo, hi), max(lo, hi))
        return Tag(pos, m.end(), m.group(0), (Item(int(source.group(1)), m.group(0), sentences),))
    if not eof and len(text) - pos <= 240 and _is_tag_prefix(text[pos:].lower()):
        return NEED
    return None


def _is_tag_prefix(rest: str) -> bool:
    if "<cit".startswith(rest) or "</cit".startswith(rest):
        return True
    if rest.startswith("</cit"):
        return not rest[5:].strip()
    return (
        rest.startswith("<cit")
        and (len(rest) == 4 or not (rest[4].isalnum() or rest[4] == "_"))
        and ">" not in rest
        and "<" not in rest[1:]
    )


# --- the start of a line: code fences and reference lists the model wrote anyway -------------------

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
