"""The brackets a citation marker or tag opens with: one table that every stage reads.

``BRACKETS`` is plain data, one row per bracket pair: ``(opener, closer, kinds)``, two strings and a
tuple of kind names. A kind says what the pair opens:

- ``"marker"``: a numbered marker, ``[1]``, ``[1, 2]``, ``[Source 1]``, ``[^1]``, ``【1】``; a line that
  starts with one may be an entry of a reference list the model wrote, and ``<cite>`` followed by one
  opens a LongCite citation.
- ``"link"``: a marker whose closer may be followed by a Markdown link target, ``[1](https://...)``.
- ``"keyword"``: a marker only with a keyword inside, ``(Source 1)`` (``(1)`` is text).
- ``"tag"``: a tag, ``<CIT chunk_id='1'>``, ``<cite>``, ``<think>``.

Rows are in the order alternatives are tried; a longer opener sharing a first character with a shorter
one (``[[`` and ``[``) is tried first wherever a pattern is generated. Everything else here is derived
from the table: the lexer's stop characters (``lexer_state.py``, ``lexer.py``), the marker patterns and
closers (``_stream/markers.py``), what may follow ``<cite>`` (``_stream/tags.py``), reference-list entries
(``_stream/line_starts.py``), the closers of a sentence-range marker (``_stream/statements.py``), the
characters a sentence may end or start with (``_sources/segment.py``), the characters the extractive
answerer neutralises (``_answer/extractive.py``) and the brackets ``_render/reveal.py`` looks inside. No
other module writes a bracket of this table out (``tests/core/test_brackets.py`` checks it), so adding
a row is the one change that teaches every stage a new bracket. The compiled plain-text scan of the lexer
(``_stream/plain_path.py``) is handed the openers at construction: the extension holds no copy.
"""

from __future__ import annotations

import re

__all__ = [
    "BRACKETS",
    "CLOSERS",
    "KEYWORD_CLOSERS",
    "KEYWORD_OPENERS",
    "LINK_OPENERS",
    "MARKER_CLOSERS",
    "MARKER_OPENERS",
    "OPENERS",
    "TAG_CLOSER",
    "TAG_OPENER",
    "WIDE_CLOSERS",
    "WIDE_OPENERS",
    "alternation",
]

BRACKETS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("[[", "]]", ("marker",)),
    ("[", "]", ("marker", "link")),
    ("【", "】", ("marker",)),
    ("［", "］", ("marker",)),
    ("〔", "〕", ("marker",)),
    ("(", ")", ("keyword",)),
    ("<", ">", ("tag",)),
)
"""``(opener, closer, kinds)`` per bracket pair (see the module docstring)."""


def _rows(kind: str) -> list[tuple[str, str]]:
    return [(opener, closer) for opener, closer, kinds in BRACKETS if kind in kinds]


def _first_chars(pairs: list[tuple[str, str]], side: int) -> str:
    return "".join(dict.fromkeys(pair[side][0] for pair in pairs))


def alternation(kind: str, side: int) -> str:
    """A regex alternation of the openers (``side`` 0) or closers (1) of the rows of ``kind``, longest
    first: ``\\[\\[|\\[|【|［|〔``."""
    texts = sorted((pair[side] for pair in _rows(kind)), key=len, reverse=True)
    return "|".join(re.escape(text) for text in texts)


OPENERS = _first_chars([(o, c) for o, c, _ in BRACKETS], 0)
"""The characters that may open a marker or a tag: ``[【［〔(<`` (where a run of plain text stops)."""
MARKER_OPENERS = _first_chars(_rows("marker"), 0)
"""The characters a numbered marker opens with: ``[【［〔``."""
MARKER_CLOSERS = _first_chars(_rows("marker"), 1)
"""The characters a numbered marker closes with: ``]】］〕``."""
CLOSERS = dict(_rows("marker"))
"""A numbered marker's opener -> its closer (a marker whose closer is another one is text)."""
LINK_OPENERS = frozenset(opener for opener, _ in _rows("link"))
"""Openers of markers that a Markdown link target may follow."""
KEYWORD_OPENERS = _first_chars(_rows("keyword"), 0)
"""The characters a marker that needs a keyword opens with: ``(``."""
KEYWORD_CLOSERS = _first_chars(_rows("keyword"), 1)
"""The closers of those markers: ``)``."""
((TAG_OPENER, TAG_CLOSER),) = _rows("tag")
"""A tag's brackets, ``<`` and ``>``."""
WIDE_OPENERS = "".join(c for c in MARKER_OPENERS if not c.isascii())
"""The full-width and CJK marker openers: ``【［〔``."""
WIDE_CLOSERS = "".join(c for c in MARKER_CLOSERS if not c.isascii())
"""Their closers: ``】］〕``."""
