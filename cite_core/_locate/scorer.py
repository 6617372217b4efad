"""The scorer in use, chosen once: the compiled ``UnitIndex`` of ``cite_core._native`` when it is built,
else (or with ``CITE_PURE_PYTHON=1``) the Python reference of ``span.py``. Both give the same spans and
best units for every claim and source (tests/core/test_native_locate.py), as the segmenter and the term
analyser do (``_sources.segmenter``, ``_sources.term_analyser``).

Localisation (``localize.Corpus.cite``) goes through ``SCORER.locate`` with the source's ``CountsIndex``
(``_sources.unit_index``): one call per citation scores every unit of the cited source (or its
candidates) and picks the span. A claim mixed with embeddings is located by ``span.best_span`` in Python.
"""

from __future__ import annotations

from types import ModuleType
from typing import Protocol

from .._accel import NATIVE
from .._exceptions import NativeError
from .._sources.unit_index import CountsIndex
from . import candidates, span
from .scoring import BM25_B, BM25_K1, ClaimTerms

__all__ = ["SCORER", "NativeScorer", "PythonScorer", "Scorer"]


class Scorer(Protocol):
    """Locates a claim in the units of one source."""

    def locate(
        self,
        index: CountsIndex,
        claim: ClaimTerms,
        avg_len: float,
        verbatim: span.Verbatim,
        long: int,
        top: int,
    ) -> span.Located:
        """``span.locate``: the cited span's first and last unit, and the ``top`` best units."""
        ...


class PythonScorer:
    """The reference implementation (span.py)."""

    def locate(
        self,
        index: CountsIndex,
        claim: ClaimTerms,
        avg_len: float,
        verbatim: span.Verbatim,
        long: int,
        top: int,
    ) -> span.Located:
        return span.locate(index, claim, avg_len, verbatim, long, top)


class NativeScorer:
    """The Rust port (native/src/scorer.rs): the compiled index of a source's units is built on its first
    citation and kept with its ``CountsIndex``."""

    def __init__(self, native: ModuleType) -> None:
        self._native = native
        self._panic: type[BaseException] = native.PanicException

    def locate(
        self,
        index: CountsIndex,
        claim: ClaimTerms,
        avg_len: float,
        verbatim: span.Verbatim,
        long: int,
        top: int,
    ) -> span.Located:
        compiled = index.native
        params = (
            BM25_K1,
            BM25_B,
            span.EXTEND_GAIN,
            span.FRAGMENT_WEIGHT,
            span.TIE,
            long,
            candidates.MAX_CANDIDATES,
            top,
        )
        try:
            if compiled is None:
                compiled = index.native = self._build(index)
            if compiled is not False:
                first, last, best = compiled.locate(claim.weights, claim.total, avg_len, params, verbatim)  # type: ignore[attr-defined]
                return first, last, best
        except UnicodeEncodeError:
            pass  # a term with a lone surrogate has no UTF-8 form: the reference scores it
        except self._panic as exc:
            raise NativeError(f"the compiled scorer failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc
        return span.locate(index, claim, avg_len, verbatim, long, top)

    def _build(self, index: CountsIndex) -> object:
        segments = [u.segment for u in index.units]
        try:
            return self._native.UnitIndex(
                index.counts, index.lengths, segments, index.breaks(), index.fragments
            )
        except UnicodeEncodeError:
            return False


SCORER: Scorer = NativeScorer(NATIVE) if NATIVE is not None else PythonScorer()
"""The scorer localisation uses."""
