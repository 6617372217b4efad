"""The weak-support flag: how often it flags claims judged supported, how often it catches the others.

Per dataset (each claim's score is the best ``support`` of its citations, parsed as in ``bench.eval``):

* AttributionBench: attributable (supported) vs not attributable (not supported);
* WiCE: ``supported`` vs ``not_supported`` claims (``partially_supported`` is reported on its own);
* ExpertQA: ``Complete`` (supported); ``Partial`` / ``Incomplete`` are not "not supported" (experts found
  some support), so ExpertQA only gives a false-flag rate.

``python -m bench.eval.flag --calibrate`` chooses a threshold for the current support score on the dev
halves, holding one dataset out at a time (``python -m bench.eval.calibrate`` fits the weights and the
threshold together): on the other datasets, the highest threshold whose false-flag rate is at most
``MAX_FALSE_FLAGS`` in each, then reports the held-out dataset at that threshold.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from cite_core import number_sources
from cite_core._schema.support import SUPPORT_THRESHOLD

from ._data import available, load_jsonl, missing, split
from .localisation import WICE, _as_answer
from .markers import FILE as EXPERTQA
from .verification import ATTRIBUTIONBENCH, attributionbench_cases, best_support, expertqa_cases

__all__ = [
    "FILES",
    "MAX_FALSE_FLAGS",
    "cases",
    "dataset_scores",
    "flag_rates",
    "leave_one_out",
    "main",
    "run",
]

MAX_FALSE_FLAGS = 0.10
"""The most a flag may mark of the claims judged supported, in every dataset."""

Scores = dict[str, list[float]]  # "supported" / "not_supported" / "partial" -> scores


FILES = {"attributionbench": ATTRIBUTIONBENCH, "wice": WICE, "expertqa": EXPERTQA}
"""The datasets of the flag, by name."""


def cases(name: str, which: str) -> Iterator[tuple[str, str | None, list[Any]]]:
    """``(label, answer text, sources)`` of each claim of a dataset's split, labelled ``supported``,
    ``not_supported`` or ``partial``."""
    if name == "attributionbench":
        for text, sources, label, _, _ in attributionbench_cases(which):
            yield ("supported" if label else "not_supported"), text, sources
    elif name == "wice":
        for record in split(load_jsonl(WICE), which):  # type: ignore[arg-type]
            label = {"supported": "supported", "not_supported": "not_supported"}.get(
                record["label"], "partial"
            )
            yield label, _as_answer(record["claim"]), number_sources(["\n".join(record["evidence"])])
    else:
        for text, sources, label, _, _ in expertqa_cases(which):
            yield ("supported" if label else "partial"), text, sources


def dataset_scores(which: str, embeddings: Any = None) -> dict[str, Scores | str]:
    """Scores per dataset of a split (a missing dataset: the message saying where it was looked for)."""
    out: dict[str, Scores | str] = {}
    for name, file in FILES.items():
        if not available(file):
            out[name] = missing(file)
            continue
        scores: Scores = {"supported": [], "not_supported": [], "partial": []}
        for label, text, sources in cases(name, which):
            scores[label].append(best_support(text, sources, embeddings=embeddings))
        out[name] = scores
    return out


def flag_rates(scores: Scores, threshold: float) -> dict[str, float | int]:
    """False-flag rate on supported claims, catch rate on not-supported ones (and partial)."""
    out: dict[str, float | int] = {}
    for key, name in (
        ("supported", "false_flags"),
        ("not_supported", "caught"),
        ("partial", "partial_flagged"),
    ):
        values = scores.get(key) or []
        if values:
            out[name] = sum(s < threshold for s in values) / len(values)
            out[key] = len(values)
    return out


def highest_safe(sets: list[Scores], limit: float = MAX_FALSE_FLAGS) -> float:
    """The highest threshold flagging at most ``limit`` of the supported claims of every set."""
    candidates = sorted({s for scores in sets for s in scores["supported"]} | {0.0})
    best = 0.0
    for t in candidates:
        if all(flag_rates(scores, t)["false_flags"] <= limit for scores in sets):  # type: ignore[operator]
            best = t
    return best


def leave_one_out(dev: dict[str, Scores]) -> dict[str, Any]:
    """For each dataset: the threshold chosen on the others' dev halves, and its rates on the one left out."""
    out = {}
    for held in dev:
        others = [dev[k] for k in dev if k != held]
        t = highest_safe(others)
        out[held] = {"threshold": t, **flag_rates(dev[held], t)}
    out["all"] = {"threshold": highest_safe(list(dev.values()))}
    return out


def run(which: str = "test", threshold: float = SUPPORT_THRESHOLD, embeddings: Any = None) -> dict[str, Any]:
    """Flag rates per dataset of a split (a missing dataset: where it was looked for)."""
    return {
        name: scores if isinstance(scores, str) else flag_rates(scores, threshold)
        for name, scores in dataset_scores(which, embeddings).items()
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.eval.flag", description=__doc__)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--threshold", type=float, default=SUPPORT_THRESHOLD)
    parser.add_argument("--calibrate", action="store_true", help="leave-one-dataset-out on dev")
    args = parser.parse_args(argv)
    if args.calibrate:
        dev = {k: v for k, v in dataset_scores("dev").items() if not isinstance(v, str)}
        result = leave_one_out(dev)
        for name, row in result.items():
            print(name, {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
        return result
    result = run(args.split, args.threshold)
    for name, row in result.items():
        print(name, row)
    return result


if __name__ == "__main__":
    main()
