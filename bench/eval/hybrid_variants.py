"""Dense support variants tried for the weak-support flag, on the dev halves only (issue 13.2).

``python -m bench.eval.hybrid_variants`` (needs the eval extra) parses every dev claim of
AttributionBench, WiCE and ExpertQA with all-MiniLM-L6-v2 and records, per citation: the lexical
features and support of each reading ``support`` scores (the cited span; the source's best units read
together, ``SOURCE_UNITS``) and three cosines of the claim, all from vectors the library computes
anyway (the claim and the cited source's units): with the cited span's mean vector (what
``hybrid_support`` reads today), with the source's best single unit, and with the mean of the best
units read together. Each variant in ``VARIANTS`` turns a citation into readings (a claim scores the
best of its readings, as the flag reads it) and is fitted as ``calibrate`` fits the support weights;
the table gives dev, held-out (one dataset at a time) and 5-fold rates, and the same 5-fold check of a
fit on AttributionBench alone (what the variant can do where the catch target is missed, when no other
dataset's supported claims hold the threshold down). The test halves are never read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from cite_core import parse_answer
from cite_core._locate import dense as dense_module  # the recording hooks wrap the library's own functions
from cite_core._locate import localize as localize
from cite_core._locate import scoring as scoring

from . import calibrate
from ._data import available
from .flag import FILES, cases, flag_rates, highest_safe

__all__ = ["ALONE", "VARIANTS", "Reading", "citation_records", "main", "variant_sets"]


class Reading(NamedTuple):
    """What one citation's support was computed from, with the embedding model."""

    lexical: list[float]
    """``support`` of each reading: the cited span, then (when scored) the source's best units."""
    features: list[tuple[float, ...]]
    """``support_features`` of the same readings."""
    span: float
    """Cosine of the claim and the cited span's mean vector (``hybrid_support``'s input today)."""
    best_unit: float
    """The highest cosine of the claim and one unit of the cited source."""
    best_units: float
    """Cosine of the claim and the mean vector of the source's best units (those the lexical
    best-units reading reads; the span when there are none)."""


@contextmanager
def _recording(into: list[Reading]) -> Iterator[None]:
    """Record a ``Reading`` for every citation ``Corpus.cite`` scores with an embedding model."""
    state: dict[str, Any] = {}
    originals: dict[str, Any] = {
        "support": scoring.support,  # what _localize imported
        "features": scoring.support_features,
        "hybrid": localize.hybrid_support,
        "best": localize.Corpus._best,
        "vectors": dense_module.DenseModel.vectors,
    }

    def vectors(self: Any, texts: Any) -> Any:
        found = originals["vectors"](self, texts)
        state.clear()
        state.update(vectors=found, scores=None, span=None, lexical=[], features=[])
        return found

    def best(self: Any, *args: Any) -> Any:
        first, last, scores = originals["best"](self, *args)
        state["scores"] = scores
        return first, last, scores

    def support(claim: Any, cited: Any, source: Any = None) -> float:
        value = originals["support"](claim, cited, source)
        state.setdefault("lexical", []).append(value)
        return value

    def features(claim: Any, cited: Any, source: Any = None) -> tuple[float, ...]:
        value = originals["features"](claim, cited, source)
        state.setdefault("features", []).append(value)
        return value

    def hybrid(lexical: float, similarity: float) -> float:
        into.append(_reading(state, similarity))
        return originals["hybrid"](lexical, similarity)

    hooks = [
        (localize, "support", support),
        (scoring, "support_features", features),
        (localize, "hybrid_support", hybrid),
        (localize.Corpus, "_best", best),
        (dense_module.DenseModel, "vectors", vectors),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in hooks]
    for owner, name, hook in hooks:
        setattr(owner, name, hook)
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def _reading(state: dict[str, Any], span: float) -> Reading:
    """The citation's ``Reading`` from what its ``cite`` call computed (vectors: the claim's, then the
    source's units'; scores: the units' mixed localisation scores)."""
    claim, *units = state["vectors"]
    cosines = [dense_module.cosine(claim, v) for v in units]
    scores = state.get("scores")
    best_units = span
    if scores is not None and cosines:
        top = sorted(range(len(units)), key=lambda i: -scores[i])[: localize.SOURCE_UNITS]
        chosen = [units[i] for i in sorted(top) if scores[i] > 0]
        if chosen:
            best_units = dense_module.cosine(claim, localize.mean_vector(chosen))
    return Reading(
        list(state.get("lexical", [])),
        list(state.get("features", [])),
        span,
        max(cosines, default=span),
        best_units,
    )


def citation_records(text: str | None, sources: list[Any], embeddings: Any) -> list[Reading]:
    """The ``Reading`` of each citation ``parse_answer`` scores for an answer, with ``embeddings``."""
    into: list[Reading] = []
    if text is not None:
        with _recording(into):
            parse_answer(text, sources, embeddings=embeddings)
    return into


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


Variant = Callable[[Reading], list[tuple[float, ...]]]

VARIANTS: dict[str, Variant] = {
    # today: hybrid_support(best lexical reading, span cosine)
    "logit(lexical), span cosine": lambda r: [(_logit(max(r.lexical)), r.span)],
    "+ best unit cosine": lambda r: [(_logit(max(r.lexical)), r.span, r.best_unit)],
    "+ best unit - span (gap)": lambda r: [(_logit(max(r.lexical)), r.span, r.best_unit - r.span)],
    "readings: span/span, units/best unit": lambda r: [
        (_logit(x), c) for x, c in zip(r.lexical, (r.span, r.best_unit))
    ],
    "readings: span/span, units/best units": lambda r: [
        (_logit(x), c) for x, c in zip(r.lexical, (r.span, r.best_units))
    ],
    "joint: lexical features + span cosine": lambda r: [(*f, r.span) for f in r.features],
    "joint: + best unit, best units, gap": lambda r: [
        (*f, r.span, r.best_unit, r.best_units, r.best_unit - r.span) for f in r.features
    ],
}
"""Each variant: a citation's readings, as the features of one logistic model (the first: the inputs of
``hybrid_support``). All are fitted and flagged at a 10% in-sample limit, without ``fit_hybrid``'s margin."""


def variant_sets(
    records: dict[str, list[tuple[str, list[Reading]]]], variant: Variant
) -> dict[str, list[Any]]:
    """``calibrate`` claims (label, readings of all its citations) of each dataset under ``variant``."""
    return {
        name: [(label, [x for r in readings if r.lexical for x in variant(r)]) for label, readings in claims]
        for name, claims in records.items()
    }


ALONE = "attributionbench"
"""The dataset also fitted on its own (its catch rate is the one below target)."""


def _fitter(sets: dict[str, list[Any]]) -> list[float]:
    k = len(next(f for claims in sets.values() for _, readings in claims for f in readings))
    return calibrate.fit(sets, start=[0.0] * (k + 1))


def _row(rates: dict[str, Any], names: list[str]) -> str:
    flagged = " ".join(f"{rates[n]['false_flags']:.3f}" for n in names)
    caught = " ".join(f"{rates[n]['caught']:.3f}" for n in names if "caught" in rates[n])
    return f"{flagged} / {caught}"


def main() -> dict[str, Any]:
    from ._model import load_embeddings, save_vectors

    embeddings, why = load_embeddings()
    if embeddings is None:
        print(f"skipped: {why}")
        return {}
    records = {
        name: [
            (label, citation_records(text, sources, embeddings))
            for label, text, sources in cases(name, "dev")
        ]
        for name, file in FILES.items()
        if available(file)
    }
    save_vectors()
    names = list(records)
    print(f"false flags ({', '.join(names)}) / caught (those with unsupported claims), dev halves")
    out: dict[str, Any] = {}
    for label, variant in VARIANTS.items():
        sets = variant_sets(records, variant)
        w = _fitter(sets)
        scores = {n: calibrate._scores(w, c) for n, c in sets.items()}
        t = highest_safe(list(scores.values()))
        dev = {n: flag_rates(s, t) for n, s in scores.items()}
        held = calibrate.leave_one_out(sets, _fitter)
        folds = calibrate.cross_validate(sets, _fitter)
        alone = {n: sets[n] for n in sets if n == ALONE}
        own = calibrate.cross_validate(alone, _fitter) if alone else {}
        print(
            f"{label:40s} dev {_row(dev, names)}  held out {_row(held, names)}  5-fold {_row(folds, names)}"
            + (f"  {ALONE} alone, 5-fold {_row(own, [ALONE])}" if own else "")
        )
        out[label] = {
            "weights": w,
            "dev": dev,
            "leave_one_out": held,
            "cross_validation": folds,
            "alone": own,
        }
    return out


if __name__ == "__main__":
    main()
