"""Fit the support score's weights and threshold on the dev half of AttributionBench (pure Python).

``python -m bench.eval.calibrate`` prints ``SUPPORT_WEIGHTS`` and ``SUPPORT_THRESHOLD`` to paste into
``cite_core/_scoring.py``. Only dev records (even positions) are read; the test half never is.
"""

from __future__ import annotations

import math
from typing import Any

from cite_core import number_sources
from cite_core._localize import Corpus
from cite_core._scoring import analyze, coverage, support_features

from ._data import available, load_jsonl, split
from ._metrics import auroc, best_threshold
from .localisation import _as_answer  # noqa: F401  (same claim shaping as the evaluation)
from .verification import ATTRIBUTIONBENCH, attributionbench_claim

__all__ = ["dev_features", "fit_logistic", "main"]


def dev_features() -> tuple[list[tuple[float, ...]], list[bool]]:
    """Features of the best-covering citation of each dev pair (no reference: all zeros)."""
    xs, ys = [], []
    for record in split(load_jsonl(ATTRIBUTIONBENCH), "dev"):
        claim = attributionbench_claim(record)
        refs = [r for r in record["references"] if r.strip()]
        ys.append(record["attribution_label"] == "attributable")
        terms = analyze(claim)
        if not refs or not terms:
            xs.append((0.0, 0.0, 1.0, 0.0))
            continue
        sources = number_sources(refs, merge=False)
        corpus = Corpus(sources)
        best: tuple[float, ...] | None = None
        for source in sources:
            cited = analyze(corpus.cite(source, claim, reference=1).cited_text)
            feats = support_features(terms, cited, corpus.stats)
            if best is None or coverage(terms, cited, corpus.stats) > best[0]:
                best = feats
        xs.append(best)  # type: ignore[arg-type]
    return xs, ys


def fit_logistic(xs: list[tuple[float, ...]], ys: list[bool], *, l2: float = 1e-3, steps: int = 4000,
                 rate: float = 0.5) -> list[float]:
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


def main() -> dict[str, Any]:
    if not available(ATTRIBUTIONBENCH):
        print(f"skipped: {ATTRIBUTIONBENCH} not found")
        return {}
    xs, ys = dev_features()
    w = fit_logistic(xs, ys)
    probs = [1.0 / (1.0 + math.exp(-(w[0] + sum(a * b for a, b in zip(w[1:], x))))) for x in xs]
    threshold, bacc = best_threshold([round(p, 4) for p in probs], ys)
    print(f"SUPPORT_WEIGHTS = ({', '.join(f'{v:.3f}' for v in w)})")
    print(f"SUPPORT_THRESHOLD = {threshold:.2f}  # dev balanced accuracy {bacc:.3f}, dev AUROC {auroc(probs, ys):.3f}")
    return {"weights": w, "threshold": threshold}


if __name__ == "__main__":
    main()
