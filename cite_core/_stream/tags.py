"""Recognise the tags models write around or instead of markers, at a position of a partial text.

``<CIT chunk_id='n' sentences='a-b'>...</CIT>`` (the tag style of the Spanish seed article), the
LongCite statement format's ``<statement>`` and ``<cite>`` (handled in ``statements.py``), and the
thinking tags ``<think>``, ``<thinking>``, ``<reasoning>``. Answers a tag, ``None`` or ``NEED`` as
``match_types.py`` says.
"""

from __future__ import annotations

import re

from .._brackets import MARKER_OPENERS, TAG_OPENER
from .match_types import MAX_HOLD, NEED, NUM, Construct, Item, Tag, ThinkTag

__all__ = ["MAX_THINK_TAG", "match_tag", "match_think"]

_TAG_OPEN = Construct(re.compile(r"<cit\b(?P<attrs>[^<>]*)>", re.IGNORECASE), MAX_HOLD)
_TAG_CLOSE = Construct(re.compile(r"</cit\s*>", re.IGNORECASE), MAX_HOLD)
"""A ``<CIT>`` tag, opening or closing, is at most ``MAX_HOLD`` characters, as a marker is."""
_Q = "[\"'’′‘`]?"
_ATTR_SOURCE = re.compile(rf"(?:chunk_id|chunk|source|doc|document|id)\s*=\s*{_Q}\s*({NUM})", re.IGNORECASE)
_ATTR_SENTENCES = re.compile(rf"sentences?\s*=\s*{_Q}\s*({NUM})(?:\s*[-–—~]\s*({NUM}))?", re.IGNORECASE)
_STATEMENT_TAG = Construct(re.compile(r"<(/?)\s*(statement|cite)\s*>", re.IGNORECASE), 24)
"""A statement or cite tag is at most 24 characters (and an unfinished one held back that long)."""
_STATEMENT_NAMES = ("statement", "cite")
_CITE_LOOKAHEAD = Construct(re.compile(r"[ \t]*"), 16)
_CITE_FOLLOWS = MARKER_OPENERS + TAG_OPENER
"""``<cite>`` opens a citation only when one of these follows (after spaces): ``<cite>[2]``,
``<cite></cite>``; otherwise (``<cite>Title</cite>``, HTML) it is text."""


def _match_statement_tag(text: str, pos: int, eof: bool) -> Tag | str | None:
    """``<statement>``, ``</statement>``, ``<cite>`` or ``</cite>`` at ``text[pos]``, ``NEED`` or ``None``."""
    m = _STATEMENT_TAG.match(text, pos)
    if m is None:
        if _STATEMENT_TAG.known(text, pos, eof):
            return None
        return NEED if _is_statement_prefix(text[pos:].lower()) else None
    name, closing = m.group(2).lower(), bool(m.group(1))
    if name == "cite" and not closing:
        # what follows the spaces after <cite> (within their window) decides whether it opens a citation
        spaces = _CITE_LOOKAHEAD.match(text, m.end())
        after = spaces.end()  # type: ignore[union-attr]
        if after == len(text) and not _CITE_LOOKAHEAD.known(text, m.end(), eof):
            return NEED
        if after == len(text) or after - m.end() >= _CITE_LOOKAHEAD.limit or text[after] not in _CITE_FOLLOWS:
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


def match_tag(text: str, pos: int, eof: bool) -> Tag | str | None:
    """The ``<CIT>``, statement or cite tag starting at ``text[pos]`` (a ``<``), ``NEED``, or ``None``."""
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
    if not _TAG_OPEN.known(text, pos, eof) and _is_tag_prefix(text[pos:].lower()):
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


# --- thinking sections ---------------------------------------------------------------------------

MAX_THINK_TAG = 24
"""A thinking tag is at most this many characters (and a possible one held back that long)."""
_THINK = Construct(re.compile(r"<(/?)(thinking|think|reasoning)\s*>", re.IGNORECASE), MAX_THINK_TAG)
_THINK_PREFIX = re.compile(r"</?(?:thinking|think|reasoning)\s*", re.IGNORECASE)
_THINK_NAMES = ("think", "thinking", "reasoning")


def match_think(text: str, pos: int, eof: bool) -> ThinkTag | str | None:
    """The thinking tag starting at ``text[pos]`` (a ``<``), ``NEED``, or ``None``."""
    m = _THINK.match(text, pos)
    if m:
        return ThinkTag(pos, m.end(), m.group(2).lower(), closing=bool(m.group(1)))
    if _THINK.known(text, pos, eof):
        return None
    if _THINK_PREFIX.fullmatch(text, pos):
        return NEED  # "<think" may still become "<thinking>"
    rest = text[pos + 1 :].lower()
    rest = rest[1:] if rest.startswith("/") else rest
    return NEED if any(name.startswith(rest) for name in _THINK_NAMES) else None
