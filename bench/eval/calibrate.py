"""Fit the support score's weights, the flag threshold and the supported level on the dev halves.

``python -m bench.eval.calibrate`` reads the dev halves (even positions) of AttributionBench, WiCE and
ExpertQA, records the support features of every reading ``parse_answer`` scores for each claim (the
cited span and the source's best units, per citation), and fits one logistic model over all three
(pure Python, Newton steps on standardised features with an L2 penalty ``L2``): a claim is represented
by its best-scoring reading, as the flag reads it, and each dataset's supported and not-supported claims
weigh the same in total (ExpertQA ``Partial`` claims are left out: partly supported is not "not
supported"). It prints ``SUPPORT_WEIGHTS``, ``SUPPORT_THRESHOLD`` (the highest threshold that flags at
most 10% of the supported claims of every dev set) and ``SUPPORTED_LEVEL`` (at most 10% of the dev
not-supported claims score this high) to paste into ``cite_core/_locate/scoring.py`` (the weights) and
``cite_core/_schema/support.py`` (the thresholds), then the same fit with one dataset held out at a time
(weights and threshold from the other two, rates on the held-out one), and a cross-validation inside the
dev halves (``cross_validate``). ``--hybrid`` fits ``HYBRID_WEIGHTS`` the same way with the embedding
model, its flag kept with a margin (``choose_limit``) and mapped onto the lexical threshold and
supported level. The test halves are never read.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from cite_core import parse_answer
from cite_core._locate import hybrid as hybrid
from cite_core._locate import localize as localize  # the recording hooks wrap the library's own functions
from cite_core._locate import scoring as scoring
from cite_core._locate.scorer import PYTHON_SCORER
from cite_core._schema import support as thresholds

from ._data import available
from .flag import FILES, MAX_FALSE_FLAGS, cases, flag_rates, highest_safe

__all__ = [
    "FOLDS",
    "HYBRID_LIMIT",
    "HYBRID_LIMITS",
    "L2",
    "Claim",
    "Threshold",
    "choose_limit",
    "cross_validate",
    "dataset_features",
    "fit",
    "fit_hybrid",
    "fit_logistic",
    "leave_one_out",
    "main",
    "score",
]

L2 = 0.1
"""L2 penalty on the standardised weights (chosen on dev by the leave-one-dataset-out rates among
0.001, 0.01 and 0.1: the worst held-out false-flag rate is lowest at 0.1)."""

FOLDS = 5
"""Folds of ``cross_validate`` (inside each dataset's dev half)."""

Claim = tuple[str, list[tuple[float, ...]]]
"""A claim's label ("supported", "not_supported", "partial") and the features of each reading."""


@contextmanager
def _recording(into: list[tuple[float, ...]], hybrid: bool = False) -> Iterator[None]:
    """Record every feature tuple ``support`` computes while the block runs (``hybrid``: the logit of
    the lexical support and the dense similarity ``hybrid_support`` combines). The Python scorer runs
    meanwhile: the compiled one computes the same features (tests/core/test_native_scorer.py) where no
    hook sees them."""
    module: Any = localize if hybrid else scoring
    name = "hybrid_support" if hybrid else "support_features"
    original = getattr(module, name)
    scorer = localize.SCORER

    def record(*args: Any) -> Any:
        result = original(*args)
        into.append(_hybrid_features(*args) if hybrid else result)
        return result

    setattr(module, name, record)
    localize.SCORER = PYTHON_SCORER
    try:
        yield
    finally:
        setattr(module, name, original)
        localize.SCORER = scorer


def _hybrid_features(lexical: float, similarity: float) -> tuple[float, float]:
    p = min(max(lexical, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p)), similarity


def _claim(label: str, text: str | None, sources: list[Any], embeddings: Any = None) -> Claim:
    features: list[tuple[float, ...]] = []
    if text is not None:
        with _recording(features, hybrid=embeddings is not None):
            parse_answer(text, sources, embeddings=embeddings)
    return label, features


def dataset_features(which: str = "dev", embeddings: Any = None) -> dict[str, list[Claim]]:
    """Per available dataset, each claim's label and the features of every reading parse_answer scores
    (with ``embeddings``: the two inputs of ``hybrid_support`` for each citation)."""
    return {
        name: [_claim(*case, embeddings) for case in cases(name, which)]
        for name, file in FILES.items()
        if available(file)
    }


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the Newton step)."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit_logistic(
    xs: Sequence[Sequence[float]],
    ys: Sequence[bool],
    weights: Sequence[float] | None = None,
    *,
    l2: float = L2,
) -> list[float]:
    """Weighted logistic regression, [bias, w1, ...] in the features' own units: Newton steps on the
    standardised features with ``l2`` on the (standardised) weights, not on the bias."""
    n, k = len(xs), len(xs[0])
    sw = list(weights) if weights is not None else [1.0] * n
    mean_w = sum(sw) / n
    sw = [w / mean_w for w in sw]
    mu = [sum(x[j] for x in xs) / n for j in range(k)]
    sd = [math.sqrt(sum((x[j] - mu[j]) ** 2 for x in xs) / n) or 1.0 for j in range(k)]
    zs = [[1.0] + [(x[j] - mu[j]) / sd[j] for j in range(k)] for x in xs]
    v = [0.0] * (k + 1)
    for _ in range(25):
        grad = [l2 * vi if i else 0.0 for i, vi in enumerate(v)]
        hess = [[(l2 if i == j and i else 0.0) for j in range(k + 1)] for i in range(k + 1)]
        for z, y, w in zip(zs, ys, sw):
            p = _sigmoid(sum(a * b for a, b in zip(v, z)))
            err, curv = w * (p - (1.0 if y else 0.0)) / n, w * p * (1 - p) / n
            for i in range(k + 1):
                grad[i] += err * z[i]
                row = hess[i]
                for j in range(k + 1):
                    row[j] += curv * z[i] * z[j]
        step = _solve(hess, grad)
        v = [a - b for a, b in zip(v, step)]
        if max(map(abs, step)) < 1e-9:
            break
    coef = [v[j + 1] / sd[j] for j in range(k)]
    return [v[0] - sum(c * m for c, m in zip(coef, mu)), *coef]


def score(w: Sequence[float], features: Sequence[Sequence[float]]) -> float:
    """A claim's score: the best support of its readings, as ``support`` computes and rounds it."""
    return max(
        (round(_sigmoid(w[0] + sum(a * b for a, b in zip(w[1:], f))), 4) for f in features), default=0.0
    )


def fit(sets: dict[str, list[Claim]], rounds: int = 3, start: Sequence[float] | None = None) -> list[float]:
    """Weights fitted on the given datasets, each claim read by its best-scoring reading (re-chosen with
    the weights of the previous round; the first round starts from ``start``, by default the library's
    current ``SUPPORT_WEIGHTS``)."""
    w: list[float] = list(scoring.SUPPORT_WEIGHTS if start is None else start)
    for _ in range(rounds):
        xs, ys, sw = [], [], []
        for claims in sets.values():
            for label, value in (("supported", True), ("not_supported", False)):
                group = [f for lab, f in claims if lab == label and f]
                for features in group:
                    xs.append(max(features, key=lambda f: score(w, [f])))
                    ys.append(value)
                    sw.append(1.0 / len(group))
        w = [round(v, 3) for v in fit_logistic(xs, ys, sw)]
    return w


def _scores(w: Sequence[float], claims: list[Claim]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"supported": [], "not_supported": [], "partial": []}
    for label, features in claims:
        out[label].append(score(w, features))
    return out


def supported_level(sets: list[dict[str, list[float]]], share: float = MAX_FALSE_FLAGS) -> float:
    """The lowest score that at most ``share`` of the pooled not-supported claims reach."""
    negatives = sorted((s for scores in sets for s in scores["not_supported"]), reverse=True)
    if not negatives:
        return 1.0
    allowed = int(share * len(negatives))
    return round(negatives[allowed] + 1e-4, 4) if allowed < len(negatives) else 0.0


Threshold = Callable[[list[dict[str, list[float]]]], float]
"""The flag threshold a fit's scores on its training claims give (default: ``highest_safe``; the
hybrid fit puts its flag at ``SUPPORT_THRESHOLD`` itself)."""


def leave_one_out(
    dev: dict[str, list[Claim]],
    fitter: Callable[[dict[str, list[Claim]]], list[float]] = fit,
    threshold: Threshold = highest_safe,
) -> dict[str, dict[str, Any]]:
    """For each dataset: weights and threshold from the others, its rates at that threshold."""
    out = {}
    for held in dev:
        others = {k: v for k, v in dev.items() if k != held}
        w = fitter(others)
        t = threshold([_scores(w, v) for v in others.values()])
        out[held] = {"threshold": t, **flag_rates(_scores(w, dev[held]), t)}
    return out


def cross_validate(
    dev: dict[str, list[Claim]],
    fitter: Callable[[dict[str, list[Claim]]], list[float]] = fit,
    folds: int = FOLDS,
    threshold: Threshold = highest_safe,
) -> dict[str, dict[str, float | int]]:
    """Each dataset's rates with every claim scored by weights and threshold fitted without it: claim
    ``i`` of a dataset is in fold ``i % folds``, and each fold is scored by a fit on the other folds of
    all datasets. Unlike ``leave_one_out``, the fit sees the dataset's own kind of claims (the check
    for choices that weigh one dataset, which holding it out cannot judge)."""
    held: dict[str, dict[str, list[float]]] = {
        name: {"supported": [], "not_supported": [], "partial": []} for name in dev
    }
    flagged: dict[str, dict[str, int]] = {name: {} for name in dev}
    for fold in range(folds):
        train = {name: [c for i, c in enumerate(claims) if i % folds != fold] for name, claims in dev.items()}
        w = fitter(train)
        t = threshold([_scores(w, claims) for claims in train.values()])
        for name, claims in dev.items():
            scores = _scores(w, [c for i, c in enumerate(claims) if i % folds == fold])
            for label, values in scores.items():
                held[name][label].extend(values)
                flagged[name][label] = flagged[name].get(label, 0) + sum(v < t for v in values)
    out: dict[str, dict[str, float | int]] = {}
    for name, scores in held.items():
        row: dict[str, float | int] = {}
        for label, rate in (
            ("supported", "false_flags"),
            ("not_supported", "caught"),
            ("partial", "partial_flagged"),
        ):
            if scores[label]:
                row[rate] = flagged[name][label] / len(scores[label])
                row[label] = len(scores[label])
        out[name] = row
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.eval.calibrate", description=__doc__)
    parser.add_argument(
        "--hybrid",
        action="store_true",
        help="fit HYBRID_WEIGHTS with the real embedding model (the eval extra), at SUPPORT_THRESHOLD",
    )
    args = parser.parse_args(argv)
    if args.hybrid:
        return main_hybrid()
    dev = dataset_features("dev")
    if not dev:
        print("skipped: no dev data found")
        return {}
    w = fit(dev)
    sets = [_scores(w, claims) for claims in dev.values()]
    threshold = highest_safe(sets)
    level = supported_level(sets)
    print(f"SUPPORT_WEIGHTS = ({', '.join(f'{v:.3f}' for v in w)})")
    print(f"SUPPORT_THRESHOLD = {threshold}")
    print(f"SUPPORTED_LEVEL = {level}")
    for name, scores in zip(dev, sets):
        print(f"dev {name}", {k: round(v, 3) for k, v in flag_rates(scores, threshold).items()})
    held = leave_one_out(dev)
    for name, row in held.items():
        print(f"held out {name}", {k: round(v, 3) for k, v in row.items()})
    folds = cross_validate(dev)
    for name, row in folds.items():
        print(f"{FOLDS}-fold {name}", {k: round(v, 3) for k, v in row.items()})
    return {
        "weights": w,
        "threshold": threshold,
        "supported_level": level,
        "leave_one_out": held,
        "cross_validation": folds,
    }


HYBRID_LIMITS = (0.10, 0.095, 0.09, 0.085, 0.08)
"""In-sample false-flag limits ``choose_limit`` tries for the hybrid flag, highest first."""
HYBRID_LIMIT = 0.095
"""The share of every dev set's supported claims the hybrid flag may mark in-sample: the highest of
``HYBRID_LIMITS`` whose 5-fold false flags stay at most ``MAX_FALSE_FLAGS`` in every dev set
(``choose_limit``; at 0.10 ExpertQA's 5-fold rate was 0.102, at 0.095 0.092)."""


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _mapped(w: list[float], sets: list[dict[str, list[float]]], limit: float) -> list[float]:
    """``w`` moved and scaled on the logit scale (the ranking unchanged) so that the highest threshold
    flagging at most ``limit`` of every set's supported claims falls at ``SUPPORT_THRESHOLD`` (halfway
    between that score and the next lower one, so no score sits on the line) and ``supported_level``
    at ``SUPPORTED_LEVEL``: one flag threshold and one "supported" level for both scores."""
    t = highest_safe(sets, limit)
    below = [s for scores in sets for values in scores.values() for s in values if s < t]
    lo = _logit(t) if not below else (_logit(t) + _logit(max(below))) / 2
    hi = _logit(supported_level(sets))
    target_lo, target_hi = _logit(thresholds.SUPPORT_THRESHOLD), _logit(thresholds.SUPPORTED_LEVEL)
    scale = (target_hi - target_lo) / (hi - lo) if hi - lo > 0.1 else 1.0
    shift = target_lo - scale * lo
    return [round(scale * w[0] + shift, 3), *(round(scale * v, 3) for v in w[1:])]


def fit_hybrid(sets: dict[str, list[Claim]], limit: float | None = None) -> list[float]:
    """``HYBRID_WEIGHTS`` fitted on ``sets`` (logistic, as the lexical weights), then mapped so that the
    lexical flag threshold and supported level serve the hybrid score too, the flag marking at most
    ``limit`` (default ``HYBRID_LIMIT``) of every set's supported claims."""
    w = fit(sets, start=hybrid.HYBRID_WEIGHTS)
    return _mapped(
        w, [_scores(w, claims) for claims in sets.values()], HYBRID_LIMIT if limit is None else limit
    )


def _library_threshold(sets: list[dict[str, list[float]]]) -> float:
    return thresholds.SUPPORT_THRESHOLD


def choose_limit(dev: dict[str, list[Claim]], limits: Sequence[float] = HYBRID_LIMITS) -> float:
    """The highest of ``limits`` whose 5-fold false flags (each fold fitted with ``fit_hybrid`` at that
    limit, flagged at ``SUPPORT_THRESHOLD``) stay at most ``MAX_FALSE_FLAGS`` in every dataset."""
    for limit in limits:
        folds = cross_validate(dev, partial(fit_hybrid, limit=limit), threshold=_library_threshold)
        if all(row.get("false_flags", 0.0) <= MAX_FALSE_FLAGS for row in folds.values()):
            return limit
    return limits[-1]


def main_hybrid() -> dict[str, Any]:
    """Fit and report ``HYBRID_WEIGHTS`` (dev), with each dataset held out and 5-fold."""
    from ._model import load_embeddings, save_vectors

    embeddings, why = load_embeddings()
    if embeddings is None:
        print(f"skipped: {why}")
        return {}
    dev = dataset_features("dev", embeddings)
    save_vectors()
    limit = choose_limit(dev)
    w = fit_hybrid(dev, limit)
    threshold = thresholds.SUPPORT_THRESHOLD
    print(f"HYBRID_LIMIT = {limit}")
    print(f"HYBRID_WEIGHTS = ({', '.join(f'{v:.3f}' for v in w)})")
    sets = [_scores(w, claims) for claims in dev.values()]
    print(f"dev supported level {supported_level(sets)} (SUPPORTED_LEVEL {thresholds.SUPPORTED_LEVEL})")
    for name, scores in zip(dev, sets):
        print(f"dev {name}", {k: round(v, 3) for k, v in flag_rates(scores, threshold).items()})
    fitter = partial(fit_hybrid, limit=limit)
    held = leave_one_out(dev, fitter, _library_threshold)
    for name, row in held.items():
        print(f"held out {name}", {k: round(v, 3) for k, v in row.items()})
    folds = cross_validate(dev, fitter, threshold=_library_threshold)
    for name, row in folds.items():
        print(f"{FOLDS}-fold {name}", {k: round(v, 3) for k, v in row.items()})
    return {"limit": limit, "weights": w, "leave_one_out": held, "cross_validation": folds}


if __name__ == "__main__":
    main()
