"""The plain-text scan of the stream lexer's fast path, behind an interface that a compiled twin can take.

``scan(chunk)`` is the length of the plain text ``chunk`` starts with: up to its first stop character, a
possible opener of a marker or tag (``OPENERS`` of ``_brackets.py``, the one marker table), a backtick or
a newline. A chunk that is plain text to its end goes straight to the assembler without tokens
(``LexerState.plain``). The stop characters are passed in at construction.
"""

from __future__ import annotations

import re
from typing import Protocol

from .._brackets import OPENERS

__all__ = ["PLAIN_PATH", "STOPS", "PlainPath", "PythonPlainPath", "plain_path"]

STOPS = OPENERS + "`\n"
"""Where a run of plain text ends: a possible marker or tag opener, a backtick or a newline."""


class PlainPath(Protocol):
    """The length of the plain text a chunk starts with (``str`` indices: code points)."""

    def scan(self, chunk: str) -> int:
        """The index of the first stop character of ``chunk``, or ``len(chunk)`` when it has none."""
        ...


class PythonPlainPath:
    """The reference: one regular-expression search for a stop character."""

    def __init__(self, stops: str) -> None:
        self._search = re.compile(f"[{re.escape(stops)}]").search

    def scan(self, chunk: str) -> int:
        found = self._search(chunk)
        return len(chunk) if found is None else found.start()


def plain_path(stops: str = STOPS) -> PlainPath:
    """The implementation in use for ``stops``."""
    return PythonPlainPath(stops)


PLAIN_PATH: PlainPath = plain_path()
"""The plain-text scan the lexer uses."""
