"""The analyser of a chunk's words, chosen once: the compiled ``TermTable`` of the extension when it is
built, else (or with ``CITE_PURE_PYTHON=1``) the Python reference of ``terms.py``. Both give the same
terms, counts and lengths (tests/core/test_native_properties.py).

It takes the ASCII path of a chunk's analysis (``analysis._analyse_segment``): the chunk lower-cased
and cut by ``terms.ascii_separated``, and the spans of its units. Text with other words (accents, CJK)
goes through ``terms._analyze`` in Python. ``claim`` analyses a claim in one call (ASCII claims in Rust,
others in Python), with its distinct terms in order of first occurrence.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

from .._accel import NATIVE
from .._exceptions import NativeError
from .stopwords import STOP, SUFFIXES
from .terms import _TERMS_MAX, _analyze, clear_terms, term_of

__all__ = ["TERM_ANALYSER", "NativeTermAnalyser", "PythonTermAnalyser", "TermAnalyser", "counts_of"]

UnitTerms = tuple[list[tuple[str, ...]], list[dict[str, int]], list[int]]
ClaimTerms = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...] | None]


class TermAnalyser(Protocol):
    """Maps the words of each unit of a separated chunk to their terms."""

    def unit_terms(self, separated: str, spans: list[tuple[int, int]]) -> UnitTerms:
        """For each ``(start, end)`` span of ``separated`` (lower-cased; every character but an ASCII
        letter or digit a space): its terms (stop words dropped, stems), a dict term -> count in order
        of first occurrence (for BM25), and its number of terms."""
        ...

    def claim(self, text: str) -> ClaimTerms:
        """A claim's terms (``terms._analyze``: order and duplicates kept), its distinct terms in order
        of first occurrence and the terms of its names (``scoring.claim_names``; None: not computed, the
        caller computes them), in one call."""
        ...

    def clear(self) -> None:
        """Forget the terms of the words met (``clear_caches``)."""
        ...


def counts_of(terms: tuple[str, ...]) -> dict[str, int]:
    """Term -> count, in order of first occurrence (a plain dict: one per unit of every source kept)."""
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    return counts


class PythonTermAnalyser:
    """The reference: terms.py's word table."""

    def unit_terms(self, separated: str, spans: list[tuple[int, int]]) -> UnitTerms:
        term = term_of()  # "" (a stop word's term) is dropped
        terms = [tuple(filter(None, map(term, separated[a:b].split()))) for a, b in spans]
        return terms, [counts_of(t) for t in terms], [len(t) for t in terms]

    def claim(self, text: str) -> ClaimTerms:
        terms = _analyze(text)
        return terms, tuple(dict.fromkeys(terms)), None

    def clear(self) -> None:
        clear_terms()


class NativeTermAnalyser:
    """The Rust port (native/src/terms.rs), through the extension's ``TermTable``."""

    def __init__(self, native: ModuleType) -> None:
        self._table = native.TermTable(sorted(STOP), list(SUFFIXES), _TERMS_MAX)
        self._panic: type[BaseException] = native.PanicException

    @property
    def table(self) -> Any:
        """The extension's word table (``scoring.ClaimTerms.from_text`` analyses ASCII claims through it)."""
        return self._table

    def unit_terms(self, separated: str, spans: list[tuple[int, int]]) -> UnitTerms:
        try:
            terms, counts, lengths = self._table.units(separated, spans)
        except self._panic as exc:
            message = f"the compiled term analyser failed ({exc}); CITE_PURE_PYTHON=1 avoids it"
            raise NativeError(message) from exc
        return terms, counts, lengths

    def claim(self, text: str) -> ClaimTerms:
        if text.isascii():  # other text (accents, CJK, the final sigma): the Python reference
            try:
                found = self._table.claim(text)
            except self._panic as exc:
                message = f"the compiled term analyser failed ({exc}); CITE_PURE_PYTHON=1 avoids it"
                raise NativeError(message) from exc
            if found is not None:
                terms, distinct, names = found
                return terms, distinct, names
        return PYTHON_CLAIMS.claim(text)

    def clear(self) -> None:
        self._table.clear()
        clear_terms()  # the Python table serves claims and text with non-ASCII words


PYTHON_CLAIMS = PythonTermAnalyser()
"""The reference, for claims the compiled analyser leaves to Python."""

TERM_ANALYSER: TermAnalyser = NativeTermAnalyser(NATIVE) if NATIVE is not None else PythonTermAnalyser()
"""The term analyser every chunk's analysis uses."""
