"""Fit the support score's weights and threshold on the dev half of AttributionBench (pure Python).

``python -m bench.eval.calibrate`` prints ``SUPPORT_WEIGHTS`` and ``SUPPORT_THRESHOLD`` to paste into
``cite_core/_scoring.py``. Only dev records (even positions) are read; the test half never is.
``python -m bench.eval.calibrate --cv`` cross-validates inside dev instead (how the features were
chosen); ``--features 4`` uses only the first four (the score before the last two were added).
"""

from __future__ import annotations

import argparse
import math
import random
from typing import Any

from cite_core import parse_answer
from cite_core._localize import Corpus
from cite_core._scoring import ClaimTerms, analyze, support_features

from ._data import available
from ._metrics import auroc, balanced_accuracy, best_threshold
from .verification import ATTRIBUTIONBENCH, attributionbench_cases

__all__ = ["cross_validate", "dev_features", "fit_logistic", "main"]


def dev_features() -> tuple[list[list[tuple[float, ...]]], list[bool]]:
    """The support features of every citation the evaluation makes for each dev pair (the claim parsed
    as in ``verification.attributionbench_pairs``: the text a marker cites, so the last sentence of a
    longer claim), and the pairs' labels. A pair with no reference or no cited term has none (the
    evaluation scores it 0)."""
    xs, ys = [], []
    for text, sources, label, _, _ in attributionbench_cases("dev"):
        ys.append(label)
        feats: list[tuple[float, ...]] = []
        if text is not None:
            stats = Corpus(sources).stats  # the statistics parse_answer's own corpus computes
            for block in parse_answer(text, sources).content:
                terms = analyze(block.text)
                for citation in block.citations or []:
                    if terms:
                        feats.append(
                            support_features(ClaimTerms.of(terms, stats), analyze(citation.cited_text))
                        )
        xs.append(feats)
    return xs, ys


def fit_logistic(
    xs: list[tuple[float, ...]], ys: list[bool], *, l2: float = 1e-3, steps: int = 4000, rate: float = 0.5
) -> list[float]:
    """Logistic regression by batch gradient descent: [bias, w1, ...]."""
    w = [0.0] * (len(xs[0]) + 1)
    n = len(xs)
    for _ in range(steps):
        grad = [0.0] * len(w)
        for x, y in zip(xs, ys):
            z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x))
            p = 1.0 / (1.0 + math.exp(-z))
            err = p - (1.0 if y else 0.0)
            grad[0] += err
            for i, xi in enumerate(x):
                grad[i + 1] += err * xi
        w = [wi - rate * (g / n + (l2 * wi if i else 0.0)) for i, (wi, g) in enumerate(zip(w, grad))]
    return w


def _support(w: list[float], x: tuple[float, ...]) -> float:
    return round(1.0 / (1.0 + math.exp(-(w[0] + sum(a * b for a, b in zip(w[1:], x))))), 4)


def _fit(xs: list[list[tuple[float, ...]]], ys: list[bool], steps: int = 4000) -> list[float]:
    """Weights fitted on the best-covering citation of each pair that has one (coverage comes first)."""
    fit_x, fit_y = zip(*[(max(x), y) for x, y in zip(xs, ys) if x])
    return [round(v, 3) for v in fit_logistic(list(fit_x), list(fit_y), steps=steps)]  # as pasted


def _scores(w: list[float], xs: list[list[tuple[float, ...]]]) -> list[float]:
    """The score the evaluation reads: the best support of the pair's citations (none: 0)."""
    return [max((_support(w, f) for f in x), default=0.0) for x in xs]


def cross_validate(
    xs: list[list[tuple[float, ...]]],
    ys: list[bool],
    *,
    folds: int = 10,
    shuffles: int = 3,
    steps: int = 2000,
) -> tuple[float, float]:
    """Mean balanced accuracy and AUROC over ``shuffles`` k-fold splits of dev: weights and threshold
    fitted on the training folds, scored on the held-out fold (all folds pooled, each shifted by its
    threshold)."""
    baccs, aurocs = [], []
    for seed in range(shuffles):
        order = list(range(len(xs)))
        random.Random(seed).shuffle(order)
        shifted, labels = [], []
        for k in range(folds):
            held = set(order[k::folds])
            train = [i for i in range(len(xs)) if i not in held]
            w = _fit([xs[i] for i in train], [ys[i] for i in train], steps)
            threshold, _ = best_threshold(_scores(w, [xs[i] for i in train]), [ys[i] for i in train])
            test = sorted(held)
            shifted += [s - threshold for s in _scores(w, [xs[i] for i in test])]
            labels += [ys[i] for i in test]
        baccs.append(balanced_accuracy(shifted, labels, 0.0))
        aurocs.append(auroc(shifted, labels))
    return sum(baccs) / shuffles, sum(aurocs) / shuffles


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.eval.calibrate", description=__doc__)
    parser.add_argument("--cv", action="store_true", help="10-fold cross-validation inside dev instead")
    parser.add_argument("--features", type=int, default=0, help="use only the first N features")
    args = parser.parse_args(argv)
    if not available(ATTRIBUTIONBENCH):
        print(f"skipped: {ATTRIBUTIONBENCH} not found")
        return {}
    xs, ys = dev_features()
    if args.features:
        xs = [[f[: args.features] for f in x] for x in xs]
    if args.cv:
        bacc, area = cross_validate(xs, ys)
        print(f"dev 10-fold cross-validation: balanced accuracy {bacc:.3f}, AUROC {area:.3f}")
        return {"cv_balanced_accuracy": bacc, "cv_auroc": area}
    w = _fit(xs, ys)
    scores = _scores(w, xs)
    threshold, bacc = best_threshold(scores, ys)
    print(f"SUPPORT_WEIGHTS = ({', '.join(f'{v:.3f}' for v in w)})")
    print(
        f"balanced threshold {threshold:.3f}  # dev balanced accuracy {bacc:.3f}, "
        f"dev AUROC {auroc(scores, ys):.3f} (the flag threshold: python -m bench.eval.flag --calibrate)"
    )
    return {"weights": w, "threshold": threshold}


if __name__ == "__main__":
    main()
