"""Small metrics: balanced accuracy, AUROC, threshold choice, span overlap."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["auroc", "balanced_accuracy", "best_threshold", "char_overlap", "mean"]


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def balanced_accuracy(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> float:
    """Mean of the true-positive and true-negative rates when ``score >= threshold`` predicts True."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return float("nan")
    tpr = sum(s >= threshold for s in pos) / len(pos)
    tnr = sum(s < threshold for s in neg) / len(neg)
    return (tpr + tnr) / 2


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Area under the ROC curve (ties count one half), by ranks."""
    pairs = sorted(zip(scores, labels))
    n_pos = sum(1 for _, y in pairs if y)
    n_neg = len(pairs) - n_pos
    if not n_pos or not n_neg:
        return float("nan")
    rank_sum = 0.0
    i = 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        avg_rank = (i + j + 1) / 2  # 1-based ranks i+1..j
        rank_sum += avg_rank * sum(1 for _, y in pairs[i:j] if y)
        i = j
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def best_threshold(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, float]:
    """The threshold maximising balanced accuracy (midpoint between scores) and that accuracy."""
    values = sorted(set(scores))
    candidates = [values[0] - 1e-9] + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[-1] + 1e-9]
    best = max(candidates, key=lambda t: (balanced_accuracy(scores, labels, t), -abs(t - 0.5)))
    return best, balanced_accuracy(scores, labels, best)


def char_overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Number of characters two half-open spans share."""
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))
