"""The weak-support flag on Chinese: CiteCheck (real Chinese RAG statements, faithful or not).

Each statement had its citation marks removed by the dataset; the documents it cited are in ``quote``,
numbered ``[i] ``. The statement is parsed as ``calibrate_flag`` parses an example (``[1]…[k]`` before
its final ``。``), each document a source; its score is the best ``support`` of its citations.
Reported: AUROC of the score, the share of faithful statements flagged (false flags) and of unfaithful
ones caught, at the built-in threshold (with the CJK family bias, ``cite_core._sources.families``).

``python -m bench.eval.citecheck --calibrate`` chooses that bias on the dev half: the unbiased score's
highest threshold flagging at most 10% of the faithful statements, mapped onto ``SUPPORT_THRESHOLD``;
then 5-fold cross-validation of the same choice inside the dev half (the held-out half of CiteCheck is
measured outside this repository).
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Any

from cite_core._answer.calibrate import _score, calibrated_threshold
from cite_core._schema.support import SUPPORT_THRESHOLD
from cite_core._sources.families import FAMILY_BIAS

from ._data import available, load_jsonl, missing, split
from ._metrics import auroc

__all__ = ["FILE", "calibrate", "examples", "run"]

FILE = "citecheck_dev_zh.jsonl"
_DOC = re.compile(r"(?:^|\s)\[\d+\] ")
FOLDS = 5


def examples(which: str) -> list[tuple[str, list[str], bool]]:
    """(statement, cited documents, faithful?) of each record of a split of the dev file. The file is
    CiteCheck's dev half: ``--split dev`` and ``test`` are halves of it, ``all`` is the whole of it."""
    out = []
    for record in split(load_jsonl(FILE), which):  # type: ignore[arg-type]
        docs = [d.strip() for d in _DOC.split(record["quote"]) if d.strip()]
        out.append((record["statement"], docs, record["label"] == 1))
    return out


def scores(which: str, embeddings: Any = None) -> list[tuple[float, bool]]:
    return [(_score(claim, docs, embeddings), label) for claim, docs, label in examples(which)]


def _rates(pairs: list[tuple[float, bool]], threshold: float) -> dict[str, Any]:
    pos = [s for s, y in pairs if y]
    neg = [s for s, y in pairs if not y]
    return {
        "statements": len(pairs),
        "faithful": len(pos),
        "auroc": auroc([s for s, _ in pairs], [y for _, y in pairs]),
        "false_flags": sum(s < threshold for s in pos) / len(pos),
        "caught": sum(s < threshold for s in neg) / len(neg),
    }


def run(which: str = "all", embeddings: Any = None) -> dict[str, Any]:
    """The Chinese row: AUROC, false flags and catch at the built-in threshold."""
    if not available(FILE):
        return {"skipped": missing(FILE)}
    return _rates(scores(which, embeddings), SUPPORT_THRESHOLD)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def calibrate(which: str = "all", max_false_flags: float = 0.10) -> dict[str, Any]:
    """The CJK bias chosen on ``which`` (unbiased scores), and ``FOLDS``-fold figures of that choice."""
    saved = FAMILY_BIAS["cjk"]
    FAMILY_BIAS["cjk"] = 0.0
    try:
        raw = scores(which)
    finally:
        FAMILY_BIAS["cjk"] = saved
    pos = [s for s, y in raw if y]
    cut = calibrated_threshold(pos, max_false_flags)
    flagged = caught = 0
    folds = []
    for fold in range(FOLDS):  # stratified: the i-th faithful / unfaithful statement is in fold i % 5
        p = [s for i, s in enumerate(pos) if i % FOLDS != fold]
        t = calibrated_threshold(p, max_false_flags)
        held_pos = [s for i, s in enumerate(pos) if i % FOLDS == fold]
        held_neg = [s for i, s in enumerate([s for s, y in raw if not y]) if i % FOLDS == fold]
        f, c = sum(s < t for s in held_pos), sum(s < t for s in held_neg)
        flagged, caught = flagged + f, caught + c
        folds.append((round(t, 4), f / len(held_pos), c / len(held_neg)))
    neg = [s for s, y in raw if not y]
    return {
        "unbiased_threshold": cut,
        "bias": round(_logit(SUPPORT_THRESHOLD) - _logit(cut), 4),
        "dev": _rates(raw, cut),
        "cv_false_flags": flagged / len(pos),
        "cv_caught": caught / len(neg),
        "folds": folds,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.eval.citecheck", description=__doc__)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--calibrate", action="store_true", help="choose the CJK bias on --split")
    args = parser.parse_args(argv)
    if args.calibrate:
        print(calibrate(args.split))
    else:
        print(run(args.split))


if __name__ == "__main__":
    main()
