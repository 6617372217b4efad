"""Types of the extension module built from the Rust crate in ``native/`` (``native/src/python.rs``).

Offsets are ``str`` indices (code points). A text with a lone surrogate has no UTF-8 form and raises
``UnicodeEncodeError``: callers pass it with U+FFFD in place of each surrogate.
"""

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

WRAP_MIN: int

class PanicException(BaseException):
    """A panic in the Rust code (PyO3's ``pyo3_runtime.PanicException``)."""

def split_sentences(text: str) -> list[tuple[int, int]]:
    """``cite_core._sources.segment.split_sentences``."""

def split_lines(piece: str, offset: int) -> list[tuple[int, int]]:
    """``split_lines(text, offset, offset + len(piece))`` where ``piece`` is that span of ``text``."""

def split_units(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` cut at their line breaks (the units of a chunk)."""

class TermTable:
    """Word -> term, remembered (``terms.py``'s word table for the ASCII path of a chunk's analysis)."""

    def __init__(self, stop: list[str], suffixes: list[str], max_words: int) -> None: ...
    def units(
        self, separated: str, spans: list[tuple[int, int]]
    ) -> tuple[list[tuple[str, ...]], list[dict[str, int]], list[int]]:
        """Each span's terms, term counts (in order of first occurrence) and number of terms; a
        ``ValueError`` for a non-ASCII text or a span outside it."""

    def claim(self, text: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
        """An ASCII claim's terms, its distinct terms in order of first occurrence and the terms of its
        names (``scoring.claim_names``); None for other text (``terms._analyze`` analyses it)."""

    def clear(self) -> None:
        """Forget every word's term."""

    def __len__(self) -> int: ...

class PlainPath:
    """The lexer's plain-text scan (``cite_core/_stream/plain_path.py``), stopping at any of ``stops``."""

    def __init__(self, stops: str) -> None: ...
    def scan(self, chunk: str) -> int:
        """The index (code points) of the first character of ``stops`` in ``chunk``, or ``len(chunk)``."""

class SteadyPath:
    """``CitationStream.feed`` of a plain chunk while the stream is steady (``_stream/plain_path.py``)."""

    def __init__(self, stops: str, max_ws: int, event: tuple[Any, ...]) -> None: ...
    def arm(self, fast: list[str], raw: list[str] | None, held: str) -> None: ...
    def disarm(self) -> str: ...
    def feed(self, chunk: object) -> list[Any] | None: ...

DETACH_MIN_TERMS: int

class ClaimParts:
    """What the support features read of a claim, built once per claim: its terms in order, its numbers
    and rarest terms (``ClaimTerms.support_parts``) as positions in its weights; a ``ValueError`` for a
    term without a weight."""

    def __init__(
        self,
        weights: tuple[tuple[str, float], ...],
        terms: Iterable[str],
        numbers: Iterable[str],
        rare: Iterable[str],
    ) -> None: ...

class ClaimSupport:
    """A claim as the support of its citations reads it (``native/src/claim_py.rs``), built once per claim:
    its (term, idf) weights, their sum, its terms in order, its names, the logistic's bias with its
    family's, the ten feature weights, and whether ``sum()`` compensates (CPython 3.12+)."""

    def __init__(
        self,
        weights: tuple[tuple[str, float], ...],
        total: float,
        terms: Iterable[str],
        names: Iterable[str],
        bias: float,
        coefficients: Sequence[float],
        compensated: bool,
    ) -> None: ...
    def support(self, index: UnitIndex, units: Sequence[int]) -> float:
        """``scoring.support`` of the claim and the terms of ``units`` before rounding, to the last bit; a
        ``ValueError`` for a unit out of range."""
    def cite(
        self,
        index: UnitIndex,
        avg_len: float,
        params: tuple[float, float, float, float, float, int, int, int],
        verbatim: Callable[[int], int],
        best: bool,
    ) -> tuple[int | None, int | None, float]:
        """``UnitIndex.locate`` of the claim, then the support of the cited units and, with ``best``, the
        better of that and the support of the best units (``scorer.located_support``), before rounding."""

def weighted_claim(
    table: TermTable,
    text: str,
    df: dict[str, int] | DocFreq,
    units: int,
    bias: float,
    coefficients: Sequence[float],
    compensated: bool,
) -> tuple[tuple[str, ...], tuple[tuple[str, float], ...], float, tuple[str, ...], ClaimSupport] | None:
    """``ClaimTerms.from_text`` of an ASCII claim in one call: its terms, (term, idf) weights from the
    document frequencies ``df`` (a dict, or a ``DocFreq``) over ``units`` units, their sum, its names and
    its ``ClaimSupport``; None for other text or another mapping."""

def support_logistic(
    bias: float, coefficients: Sequence[float], features: Sequence[float], compensated: bool
) -> float:
    """``1 / (1 + exp(-z))``, ``z`` the bias plus the weighted features summed as ``sum()`` does."""

def python_float_sum(values: Sequence[float], compensated: bool) -> float:
    """CPython's ``sum()`` of floats: one addition at a time, or compensated (3.12 and later)."""

class UnitIndex:
    """The units of one source for scoring (``native/src/scorer.rs``; ``unit_index.CountsIndex`` in
    Python), from each unit's terms in order, with its segment, the line breaks between neighbours and
    fragment flags; a ``ValueError`` for lists of different lengths."""

    def __init__(
        self, terms: list[tuple[str, ...]], segments: list[int], breaks: list[bool], fragments: list[bool]
    ) -> None: ...
    def locate(
        self,
        weights: tuple[tuple[str, float], ...],
        total: float,
        avg_len: float,
        params: tuple[float, float, float, float, float, int, int, int],
        verbatim: Callable[[int], int],
    ) -> tuple[int | None, int | None, list[int] | None]:
        """``span.locate``: params are (k1, b, extend_gain, fragment_weight, tie, long, cap, top); the
        GIL is released while an index of ``DETACH_MIN_TERMS`` terms or more is scored."""

    def bm25(
        self, weights: tuple[tuple[str, float], ...], avg_len: float, k1: float, b: float
    ) -> list[float]:
        """``scoring.bm25`` of every unit."""

    def features(
        self,
        parts: ClaimParts,
        weights: tuple[tuple[str, float], ...],
        total: float,
        names: Iterable[str],
        units: Sequence[int],
    ) -> list[float]:
        """``scoring.support_features`` of the claim and the terms of ``units`` read in that order; a
        ``ValueError`` for a unit out of range."""

    def terms(self) -> int:
        """The number of terms of all units together."""

    def __len__(self) -> int: ...

class ChunkAnalyser:
    """A chunk text's analysis in one call (``cite_core/_sources/chunk_analyser.py``) through the word
    table ``table``; ``ends``/``closers`` are the fragment rule's, ``separator(c)`` whether the non-ASCII
    ``c`` is a space to ``terms.ascii_separated``, ``cjk`` and ``cjk_stop`` the CJK ranges of
    ``terms._TOKEN`` and the CJK characters that are no term."""

    def __init__(
        self,
        table: TermTable,
        ends: str,
        closers: str,
        separator: Callable[[str], bool],
        cjk: list[tuple[str, str]],
        cjk_stop: str,
    ) -> None: ...
    def analyse(
        self, text: str, blocks: bool
    ) -> tuple[list[int], list[int], list[tuple[str, ...]], list[int], ChunkIndex] | None:
        """The units' starts, ends, terms and numbers of terms, and the analysis kept in Rust; None for a text
        with a capital sigma and a word that is not ASCII; ``UnicodeEncodeError`` for a lone surrogate."""

class ChunkIndex:
    """One chunk's analysis kept in Rust."""

    def counts(self) -> list[dict[str, int]]:
        """Each unit's term -> count, in order of first occurrence."""
    def terms(self) -> set[str]:
        """Every term of the chunk."""
    def fragments(self) -> list[bool]:
        """Whether each unit is a fragment rather than a sentence."""
    def breaks(self) -> list[bool]:
        """Whether a line break lies between each unit and the next."""
    def index(self) -> UnitIndex:
        """The compiled index of the units (segment 0)."""
    def __len__(self) -> int: ...

def compose_index(chunks: list[ChunkIndex], breaks: list[bool]) -> UnitIndex:
    """The compiled index of a source of several segments (chunk i in segment i); ``ValueError`` unless
    ``breaks`` has one flag between every two neighbouring units."""

class DocFreq:
    """Document frequencies over the units of several chunks, read as a ``Counter``."""

    def get(self, term: object, default: object = None) -> int | object: ...
    def __getitem__(self, term: object) -> int: ...
    def __contains__(self, term: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def items(self) -> list[tuple[str, int]]: ...

def doc_freq(table: TermTable, chunks: list[ChunkIndex]) -> DocFreq | None:
    """The frequencies over ``chunks`` (each once per segment with its text); None when they were
    analysed in different epochs of the word table."""

def _panic() -> None:
    """Panics (for the test that a panic becomes an exception, never an abort)."""
