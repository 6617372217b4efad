"""The analyser of a chunk text, chosen once: the compiled ``ChunkAnalyser`` of the extension when it is
built, else (or with ``CITE_PURE_PYTHON=1``) the Python reference, which composes the segmenter and the
term analyser (``segmenter.split_units``, ``TERM_ANALYSER``, ``terms._analyze``). Both give the same
units, terms, counts and lengths (tests/core/test_native_chunks.py).

The compiled one does in one call what the reference does in several: segmentation, lower-casing and
separation (``terms.ascii_separated``; a chunk with other words, accents or CJK, lower-cased one
character at a time as Python does and cut as ``terms._TOKEN`` cuts it), each unit's terms through the
extension's word table, the fragment flags and line breaks; and it keeps that in Rust
(``ChunkAnalysis.native``), so that the units' term counts are built only when a Python reader asks
(the reference scorer, ``unit_counts``), the compiled index of a cited source is built without its term
tuples crossing back, and the corpus's document frequencies are summed in Rust
(``corpus_frequencies``). A text with a lone surrogate (no UTF-8 form) or a capital sigma (whose lower
case depends on its neighbours) goes the reference's way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat
from types import ModuleType
from typing import Any, Protocol, overload

from .._accel import NATIVE
from .._exceptions import NativeError
from .._schema.source import ChunkAnalysis, Unit
from .._text import CJK
from .segmenter import split_units
from .stopwords import CJK_STOP
from .term_analyser import TERM_ANALYSER, NativeTermAnalyser, counts_of
from .terms import _NON_ASCII_TERM, _analyze, ascii_separated

__all__ = [
    "CHUNK_ANALYSER",
    "CLOSERS",
    "ENDS",
    "ChunkAnalyser",
    "NativeChunkAnalyser",
    "NativeUnits",
    "PythonChunkAnalyser",
    "ascii_separator",
    "fragments_of",
]

_new_tuple = tuple.__new__
"""``_new_tuple(Unit, fields)``: a ``Unit`` from an iterable of its four fields, without the named tuple's
Python-level ``__new__``."""

ENDS = frozenset(".!?…。！？")
"""What ends a sentence: a unit whose text ends otherwise (closers aside) is a fragment."""
CLOSERS = "\"'”’»)]}」』）*_`"
"""Closing quotes, brackets and emphasis marks, skipped at a unit's end before ``ENDS`` is asked."""


CJK_RANGES = [(CJK[i], CJK[i + 2]) for i in range(0, len(CJK), 3)]
"""``_text.CJK`` (a character class body of ranges ``a-b``) as (first, last) pairs."""


def fragments_of(text: str, units: Sequence[Unit]) -> list[bool]:
    """Whether each unit is a fragment rather than a sentence: its text does not end with ``. ! ? …``
    or ``。！？`` (closing quotes, brackets and emphasis marks aside)."""
    return [text[u.start : u.end].rstrip(CLOSERS)[-1:] not in ENDS for u in units]


def ascii_separator(char: str) -> bool:
    """Whether ``ascii_separated`` turns the non-ASCII character ``char`` of a chunk into a space:
    lower-cased it is one non-ASCII character, neither a word character nor CJK (an em dash, a curly
    quote). Any other makes the chunk's analysis Python's (``terms._analyze``)."""
    low = char.lower()
    return len(low) == 1 and not low.isascii() and _NON_ASCII_TERM.search(low) is None


class NativeUnits(Sequence[Unit]):
    """The units of a chunk the extension analysed (segment 0), each ``Unit`` made when it is read: a
    cited source reads two or three of its forty, and a tuple per unit and per unit's terms, made for
    every unit of every never-seen chunk, cost about a tenth of a never-seen query with the garbage
    collections they set off (docs/benchmarks.md, "Units made when read"). Iterating makes them all
    once, and reads go to those from then on. Equal to a list or tuple of the same units, as the lists
    the reference gives are."""

    __slots__ = ("_all", "_ends", "_native", "_starts")

    def __init__(self, starts: list[int], ends: list[int], native: Any) -> None:
        self._starts = starts
        self._ends = ends
        self._native = native
        self._all: tuple[Unit, ...] | None = None

    def view(self) -> NativeUnits:
        """The same units as another object (a source's own list of them, as ``list(units)`` was)."""
        view = NativeUnits(self._starts, self._ends, self._native)
        view._all = self._all
        return view

    def __len__(self) -> int:
        return len(self._starts)

    def bounds(self) -> tuple[list[int], list[int]]:
        """The units' starts and ends (every unit is in segment 0), without making a unit."""
        return self._starts, self._ends

    @overload
    def __getitem__(self, i: int) -> Unit: ...

    @overload
    def __getitem__(self, i: slice) -> list[Unit]: ...

    def __getitem__(self, i: int | slice) -> Unit | list[Unit]:
        every = self._all
        if isinstance(i, slice):
            return list((self.every() if every is None else every)[i])
        if every is not None:
            return every[i]
        # starts[i] raises the IndexError of a unit index out of range, and takes a negative one
        return _new_tuple(Unit, (self._starts[i], self._ends[i], 0, self._native.unit(i)))

    def every(self) -> tuple[Unit, ...]:
        """Every unit, made once."""
        every = self._all
        if every is None:  # two threads may both make them: the same values
            # zip's tuple is reused from unit to unit and tuple.__new__ copies it: one new tuple per
            # unit; map gives tuple.__new__ its two arguments itself (through a partial: 12% slower)
            fields = zip(self._starts, self._ends, repeat(0), self._native.units())
            every = self._all = tuple(map(_new_tuple, repeat(Unit), fields))
        return every

    def __iter__(self) -> Iterator[Unit]:
        return iter(self.every())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NativeUnits):
            return self.every() == other.every()
        if isinstance(other, (list, tuple)):
            return list(self.every()) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list

    def __repr__(self) -> str:
        return f"NativeUnits({list(self.every())!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (self.every(),))  # the Rust part does not pickle: its units as a source's list


class ChunkAnalyser(Protocol):
    """Analyses a chunk text into its citable units and their terms."""

    def analyse(self, text: str, blocks: bool) -> ChunkAnalysis:
        """The units of ``text`` (its sentences cut at their lines; the whole text when ``blocks``),
        each with its terms, and their term counts and lengths."""
        ...


class PythonChunkAnalyser:
    """The reference: the segmenter, then the term analyser over the ASCII-separated text, or
    ``terms._analyze`` per unit when a word is not ASCII."""

    def analyse(self, text: str, blocks: bool) -> ChunkAnalysis:
        spans = [(0, len(text))] if blocks else split_units(text)
        lowered = text.lower()
        # lower() keeps every offset when it keeps the length (final sigma, the one case that depends
        # on context, is a non-ASCII word and falls back); then one pass over the chunk finds every
        # unit's words
        separated = ascii_separated(lowered) if len(lowered) == len(text) else None
        if separated is not None:
            terms, counts, lengths = TERM_ANALYSER.unit_terms(separated, spans)
        else:
            terms = [_analyze(text[a:b]) for a, b in spans]
            counts, lengths = [counts_of(t) for t in terms], [len(t) for t in terms]
        # tuple.__new__ skips the named tuple's Python-level __new__ (a lambda per unit): ~40 % of this
        # line on never-seen chunks (docs/benchmarks.md, "Building units without the named tuple's __new__")
        units = tuple([_new_tuple(Unit, (a, b, 0, t)) for (a, b), t in zip(spans, terms)])
        return ChunkAnalysis(units, counts, lengths)


PYTHON_CHUNKS = PythonChunkAnalyser()
"""The reference, for the chunks the compiled analyser leaves to Python."""


class NativeChunkAnalyser:
    """The Rust port (native/src/py_chunk.rs, chunk.rs), sharing the word table of ``TERM_ANALYSER``."""

    def __init__(self, native: ModuleType, terms: NativeTermAnalyser) -> None:
        self._native = native
        self._table = terms._table
        self._analyser = native.ChunkAnalyser(
            self._table,
            "".join(sorted(ENDS)),
            CLOSERS,
            ascii_separator,
            CJK_RANGES,
            "".join(sorted(CJK_STOP)),
        )
        self._panic: type[BaseException] = native.PanicException

    def analyse(self, text: str, blocks: bool) -> ChunkAnalysis:
        try:
            found = self._analyser.analyse(text, blocks)
        except UnicodeEncodeError:  # a lone surrogate has no UTF-8 form: the reference analyses it
            found = None
        except self._panic as exc:
            message = f"the compiled chunk analyser failed ({exc}); CITE_PURE_PYTHON=1 avoids it"
            raise NativeError(message) from exc
        if found is None:
            return PYTHON_CHUNKS.analyse(text, blocks)
        starts, ends, lengths, native = found
        return ChunkAnalysis(NativeUnits(starts, ends, native), None, lengths, native=native)

    def analyse_many(self, keys: list[tuple[str, bool]]) -> list[ChunkAnalysis]:
        """``analyse(text, blocks)`` of each key, in one compiled call (a corpus's chunks)."""
        try:
            found = self._analyser.analyse_many(keys)
        except self._panic as exc:
            message = f"the compiled chunk analyser failed ({exc}); CITE_PURE_PYTHON=1 avoids it"
            raise NativeError(message) from exc
        out: list[ChunkAnalysis] = []
        for key, one in zip(keys, found):
            if one is None:  # a capital sigma or a lone surrogate: the reference's
                out.append(PYTHON_CHUNKS.analyse(*key))
            else:
                starts, ends, lengths, native = one
                out.append(ChunkAnalysis(NativeUnits(starts, ends, native), None, lengths, native=native))
        return out

    def frequencies(self, chunks: Sequence[Any]) -> Mapping[str, int] | None:
        """The document frequencies over the units of ``chunks`` (``ChunkIndex``es, each once per
        segment that has its text), counted in Rust; None when the word table started over between
        their analyses."""
        try:
            found: Mapping[str, int] | None = self._native.doc_freq(self._table, list(chunks))
        except self._panic as exc:
            message = f"the compiled chunk analyser failed ({exc}); CITE_PURE_PYTHON=1 avoids it"
            raise NativeError(message) from exc
        return found


CHUNK_ANALYSER: ChunkAnalyser = (
    NativeChunkAnalyser(NATIVE, TERM_ANALYSER)
    if NATIVE is not None and isinstance(TERM_ANALYSER, NativeTermAnalyser)
    else PYTHON_CHUNKS
)
"""The chunk analyser every source's analysis uses."""
