"""The scorer in use, chosen once: the compiled ``UnitIndex`` of ``cite_core._native`` when it is built,
else (or with ``CITE_PURE_PYTHON=1``) the Python reference of ``span.py``. Both give the same spans and
best units for every claim and source (tests/core/test_native_locate.py), as the segmenter and the term
analyser do (``_sources.segmenter``, ``_sources.term_analyser``).

Localisation (``localize.Corpus.cite``) goes through ``SCORER.locate`` with the source's ``CountsIndex``
(``_sources.unit_index``): one call per citation scores every unit of the cited source (or its
candidates) and picks the span. A claim mixed with embeddings is located by ``span.best_span`` in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, Protocol

from .._accel import NATIVE
from .._exceptions import NativeError
from .._sources.unit_index import CountsIndex
from . import candidates, span
from .scoring import BM25_B, BM25_K1, SUM_COMPENSATES, SUPPORT_WEIGHTS, ClaimTerms, support, support_bias

__all__ = ["PYTHON_SCORER", "SCORER", "NativeScorer", "PythonScorer", "Scorer", "located_support"]


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

    def support(self, index: CountsIndex, claim: ClaimTerms, units: Sequence[int], source: set[str]) -> float:
        """``scoring.support`` of the claim and the terms of ``units`` read in that order (``source``:
        every term of the source, ``analysis.source_terms``)."""
        ...

    def cite(
        self,
        index: CountsIndex,
        claim: ClaimTerms,
        avg_len: float,
        verbatim: span.Verbatim,
        long: int,
        top: int,
        source: Callable[[], set[str]],
    ) -> tuple[int | None, int | None, float]:
        """``located_support``: the cited span's first and last unit and its support, in one call
        (``source()``: every term of the source, asked only where the reference scores the support)."""
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

    def support(self, index: CountsIndex, claim: ClaimTerms, units: Sequence[int], source: set[str]) -> float:
        return support(claim, _cited(index, units), source)

    def cite(
        self,
        index: CountsIndex,
        claim: ClaimTerms,
        avg_len: float,
        verbatim: span.Verbatim,
        long: int,
        top: int,
        source: Callable[[], set[str]],
    ) -> tuple[int | None, int | None, float]:
        return located_support(self, index, claim, avg_len, verbatim, long, top, source)


def located_support(
    scorer: Scorer,
    index: CountsIndex,
    claim: ClaimTerms,
    avg_len: float,
    verbatim: span.Verbatim,
    long: int,
    top: int,
    source: Callable[[], set[str]],
) -> tuple[int | None, int | None, float]:
    """What ``Corpus.cite`` asks of a claim without explicit sentences: ``locate``, then ``support`` of
    the cited units (those of the first segment when nothing was located) and, when ``top`` > 1 and the
    source has more than one unit, the better of that and the support of the ``top`` best units read
    together (a long claim is often supported by several sentences while the span cites one);
    ``source()``: every term of the source (``analysis.source_terms``)."""
    first, last, best = scorer.locate(index, claim, avg_len, verbatim, long, top)
    every = source()
    cited: Sequence[int]
    if first is None or last is None:  # both or neither
        cited = [i for i, u in enumerate(index.units) if u.segment == 0]
    else:
        cited = range(first, last + 1)
    score = scorer.support(index, claim, cited, every)
    if best is not None and claim.terms and top > 1 and len(index.units) > 1:  # in unit order
        score = max(score, scorer.support(index, claim, best, every))
    return first, last, score


def _cited(index: CountsIndex, units: Sequence[int]) -> Sequence[str]:
    """The terms of ``units`` one after another."""
    if len(units) == 1:
        return index.units[units[0]].terms
    every = index.units
    return [t for i in units for t in every[i].terms]


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
        try:
            compiled = self._compiled(index)
            if compiled is not None:
                params = self._params(long, top)
                first, last, best = compiled.locate(claim.weights, claim.total, avg_len, params, verbatim)
                return first, last, best
        except UnicodeEncodeError:
            pass  # a term with a lone surrogate has no UTF-8 form: the reference scores it
        except self._panic as exc:
            raise NativeError(f"the compiled scorer failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc
        return span.locate(index, claim, avg_len, verbatim, long, top)

    def support(self, index: CountsIndex, claim: ClaimTerms, units: Sequence[int], source: set[str]) -> float:
        if not claim.terms:
            return 0.0
        try:
            compiled = self._compiled(index)
            if compiled is not None:
                native = claim.__dict__.get("_native_support")
                if native is None:  # built once per claim, as support_parts
                    native = claim.__dict__["_native_support"] = self._claim_support(claim)
                # the features and the logistic of support_of in one call, to the last bit
                return round(native.support(compiled, units), 4)
        except UnicodeEncodeError:
            pass
        except self._panic as exc:
            raise NativeError(f"the compiled scorer failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc
        return support(claim, _cited(index, units), source)

    def cite(
        self,
        index: CountsIndex,
        claim: ClaimTerms,
        avg_len: float,
        verbatim: span.Verbatim,
        long: int,
        top: int,
        source: Callable[[], set[str]],
    ) -> tuple[int | None, int | None, float]:
        try:
            compiled = self._compiled(index)
            if compiled is not None:
                native = claim.__dict__.get("_native_support")  # an ASCII claim's from weighted_claim
                if native is None:  # a claim Python analysed: built once, as in support
                    native = claim.__dict__["_native_support"] = self._claim_support(claim)
                best = bool(claim.terms) and top > 1 and len(index.units) > 1
                params = self._params(long, top)
                first, last, score = native.cite(compiled, avg_len, params, verbatim, best)
                # rounding is monotone: the better one rounded is the better of the two rounded
                return first, last, round(score, 4)
        except UnicodeEncodeError:
            pass  # a term without a UTF-8 form: the reference scores it
        except self._panic as exc:
            raise NativeError(_FAILED.format(exc)) from exc
        return located_support(self, index, claim, avg_len, verbatim, long, top, source)

    def _params(self, long: int, top: int) -> tuple[float, float, float, float, float, int, int, int]:
        """``UnitIndex.locate``'s constants and limits."""
        return (
            BM25_K1,
            BM25_B,
            span.EXTEND_GAIN,
            span.FRAGMENT_WEIGHT,
            span.TIE,
            long,
            candidates.MAX_CANDIDATES,
            top,
        )

    def _claim_support(self, claim: ClaimTerms) -> Any:
        """The claim as ``ClaimSupport`` (native/src/claim_py.rs) reads it for every citation of it."""
        return self._native.ClaimSupport(
            claim.weights,
            claim.total,
            claim.terms,
            claim.names,
            support_bias(claim),
            SUPPORT_WEIGHTS[1:],
            SUM_COMPENSATES,
        )

    def _compiled(self, index: CountsIndex) -> Any:
        """The compiled index of ``index``'s units, built on first use; None when a term has no UTF-8
        form (a lone surrogate: the reference scores that source)."""
        compiled = index.native
        if compiled is None:
            natives = [c.native for c in index.chunks]
            try:
                if natives and None not in natives:  # from the chunks' compiled analyses, in Rust
                    if len(natives) == 1:
                        compiled = natives[0].index()
                    else:
                        compiled = self._native.compose_index(natives, index.breaks())
                else:  # from the units' term tuples (a chunk the reference analysed)
                    units = index.units
                    compiled = self._native.UnitIndex(
                        [u.terms for u in units], [u.segment for u in units], index.breaks(), index.fragments
                    )
            except UnicodeEncodeError:
                compiled = False
            index.native = compiled
        return compiled if compiled is not False else None


_FAILED = "the compiled scorer failed ({}); CITE_PURE_PYTHON=1 avoids it"

PYTHON_SCORER = PythonScorer()
"""The reference, for what stays in Python (a claim located with embeddings)."""

SCORER: Scorer = NativeScorer(NATIVE) if NATIVE is not None else PYTHON_SCORER
"""The scorer localisation uses."""
