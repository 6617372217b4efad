"""The plain-text scan of the stream lexer's fast path, chosen once: the compiled ``PlainPath`` of
``cite_core._native`` when it is built, else (or with ``CITE_PURE_PYTHON=1``) ``PythonPlainPath``, the
reference. Both answer the same for every text (tests/core/test_native_lexer.py).

``scan(chunk)`` is the length of the plain text ``chunk`` starts with: up to its first stop character, a
possible opener of a marker or tag (``OPENERS`` of ``_brackets.py``, the one marker table), a backtick or
a newline. A chunk that is plain text to its end goes straight to the assembler without tokens
(``LexerState.plain``). The stop characters are passed in at construction, so the Rust side holds no
copy of the table.
"""

from __future__ import annotations

import re
from typing import Protocol

from .._accel import NATIVE
from .._brackets import OPENERS
from .._exceptions import NativeError

__all__ = ["PANIC", "PLAIN_PATH", "STOPS", "PlainPath", "PythonPlainPath", "plain_path"]

STOPS = OPENERS + "`\n"
"""Where a run of plain text ends: a possible marker or tag opener, a backtick or a newline."""


class PlainPath(Protocol):
    """The length of the plain text a chunk starts with (``str`` indices: code points)."""

    def scan(self, chunk: str) -> int:
        """The index of the first stop character of ``chunk``, or ``len(chunk)`` when it has none; a lone
        surrogate is never plain text (its index, or ``UnicodeEncodeError``)."""
        ...


class PythonPlainPath:
    """The reference: one regular-expression search for a stop character. A lone surrogate ends the plain
    text too: it has no UTF-8 form (the compiled scan refuses the chunk with ``UnicodeEncodeError``), so a
    chunk holding one never takes the fast path, and the stream replaces it before the general path."""

    def __init__(self, stops: str) -> None:
        self._search = re.compile(f"[{re.escape(stops)}\ud800-\udfff]").search

    def scan(self, chunk: str) -> int:
        found = self._search(chunk)
        return len(chunk) if found is None else found.start()


def plain_path(stops: str = STOPS) -> PlainPath:
    """The implementation in use for ``stops``: the extension's, unless it is not built or not wanted."""
    return PythonPlainPath(stops) if NATIVE is None else NATIVE.PlainPath(stops)


PLAIN_PATH: PlainPath = plain_path()
"""The plain-text scan the lexer uses."""

PANIC: type[BaseException] = NativeError if NATIVE is None else NATIVE.PanicException
"""What a failing ``PLAIN_PATH.scan`` raises (a panic in the extension: a bug); the lexer raises it as a
``NativeError``. The Python reference raises none of its own (``NativeError`` is never raised there)."""
