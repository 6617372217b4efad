"""The sentence segmenter in use, chosen once: the compiled one of ``cite_core._native`` when it is
built, else (or with ``CITE_PURE_PYTHON=1``) the Python reference of ``segment.py``. Both give the same
spans for every text (tests/core/test_native_properties.py).

Every caller goes through ``split_sentences``, ``split_lines`` and ``split_units`` here (or through
``SEGMENTER``), never through the implementations.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Protocol, TypeVar

from .._accel import NATIVE
from .._args import check_text
from .._exceptions import NativeError
from .._text import SURROGATE_RE
from . import segment

__all__ = [
    "SEGMENTER",
    "NativeSegmenter",
    "PythonSegmenter",
    "Segmenter",
    "split_lines",
    "split_sentences",
    "split_units",
]

Spans = list[tuple[int, int]]
_T = TypeVar("_T")


class Segmenter(Protocol):
    """Cuts a text into citable units; spans are half-open ``str`` index ranges, trimmed."""

    def sentences(self, text: str) -> Spans:
        """``split_sentences`` (the text already checked)."""
        ...

    def lines(self, text: str, start: int, end: int) -> Spans:
        """``split_lines``: the sentence ``text[start:end]`` cut where its lines do not wrap."""
        ...

    def units(self, text: str) -> Spans:
        """A chunk's units: its sentences (the whole text when it has none), cut at their lines."""
        ...


class PythonSegmenter:
    """The reference implementation (segment.py)."""

    def sentences(self, text: str) -> Spans:
        return segment.split_sentences(text)

    def lines(self, text: str, start: int, end: int) -> Spans:
        return segment.split_lines(text, start, end)

    def units(self, text: str) -> Spans:
        return [
            piece
            for a, b in segment.split_sentences(text) or [(0, len(text))]
            # the common one-line sentence skips split_lines' call
            for piece in (segment.split_lines(text, a, b) if text.find("\n", a, b) >= 0 else ((a, b),))
        ]


class NativeSegmenter:
    """The Rust port (native/src/segment.rs), through the extension module."""

    def __init__(self, native: ModuleType) -> None:
        self._native = native
        self._panic: type[BaseException] = native.PanicException

    def sentences(self, text: str) -> Spans:
        return self.call(self._native.split_sentences, text)

    def lines(self, text: str, start: int, end: int) -> Spans:
        if text.find("\n", start, end) < 0:
            return [(start, end)]
        native = self._native
        return self.call(lambda piece: native.split_lines(piece, start), text[start:end])

    def units(self, text: str) -> Spans:
        return self.call(self._native.split_units, text)

    def call(self, function: Callable[[str], _T], text: str) -> _T:
        """``function(text)``; a text with lone surrogates (no UTF-8 form) goes with U+FFFD in their
        place, which no rule tells apart from a surrogate; a panic (a bug) becomes a NativeError."""
        try:
            try:
                return function(text)
            except UnicodeEncodeError:
                return function(SURROGATE_RE.sub("\ufffd", text))
        except self._panic as exc:
            raise NativeError(f"the compiled segmenter failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc


SEGMENTER: Segmenter = NativeSegmenter(NATIVE) if NATIVE is not None else PythonSegmenter()
"""The segmenter every stage uses."""


def split_sentences(text: str) -> Spans:
    """Return the ``(start, end)`` spans of the sentences of ``text``, in order and trimmed (the rules
    are in ``cite_core/_sources/segment.py``)."""
    check_text(text, "text", surrogates=True)
    return SEGMENTER.sentences(text)


def split_lines(text: str, start: int, end: int) -> Spans:
    """A sentence span cut at its line breaks, except where a line wraps (``segment.split_lines``)."""
    return SEGMENTER.lines(text, start, end)


def split_units(text: str) -> Spans:
    """The units of a chunk text: its sentences cut at their lines."""
    return SEGMENTER.units(text)
