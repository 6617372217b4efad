"""The weak-support flag per ExpertQA system: does it depend on how the answer was produced?

ExpertQA's answers come from six systems: retrieve-then-read (``rr_*``: sources first, answer written
from them; ``bing_chat``), and post-hoc (``post_hoc_*``: the answer written first, sources attached
afterwards; ``gpt4``: GPT-4's own references). Per system: the share of expert-``Complete`` claims
flagged at the built-in threshold (each claim parsed inside its answer, as ``bench.eval.flag`` does).

The documented answer for post-hoc pipelines is ``calibrate_flag`` on examples of one's own: the
``post-hoc calibrated`` figures choose a threshold per post-hoc system with ``calibrate_flag`` on the
dev half of its claims (``Complete`` as supported, ``Partial``/``Incomplete`` as not), then flag the
reported half at it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from cite_core import calibrate_flag, parse_answer
from cite_core._schema.support import SUPPORT_THRESHOLD

from ._data import available, load_jsonl, missing, split
from .localisation import _as_answer
from .markers import FILE as EXPERTQA
from .markers import expertqa_sources

__all__ = ["POST_HOC", "claims", "run"]

POST_HOC = ("post_hoc_gs_gpt4", "post_hoc_sphere_gpt4")
"""The systems that attach sources after writing the answer."""
_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")


def claims(which: str) -> list[dict[str, Any]]:
    """Each judged, cited ExpertQA claim of a split: system, label, score and cited passage texts."""
    out = []
    for record in split(load_jsonl(EXPERTQA), which):  # type: ignore[arg-type]
        texts = {p["n"]: p.get("text") for p in record["passages"]}
        sources = expertqa_sources(record)
        for claim in record["claims"]:
            label = claim.get("support")
            cited = [n for n in claim.get("cited") or [] if texts.get(n)]
            plain = _MARKER.sub("", claim["claim"]).strip()
            if label not in ("Complete", "Partial", "Incomplete") or not cited or not plain:
                continue
            answer = parse_answer(_as_answer(plain, "".join(f"[{n}]" for n in cited)), sources)
            out.append(
                {
                    "system": record["system"],
                    "complete": label == "Complete",
                    "claim": plain,
                    "evidence": [texts[n] for n in cited],
                    "score": max((c.support for c in answer.citations), default=0.0),
                }
            )
    return out


def _flagged(rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    complete = [r["score"] for r in rows if r["complete"]]
    return {
        "complete": len(complete),
        "false_flags": sum(s < threshold for s in complete) / len(complete) if complete else float("nan"),
    }


def run(which: str = "test") -> dict[str, Any]:
    """Per system, the Complete claims flagged at the built-in threshold, and each post-hoc system at
    the threshold ``calibrate_flag`` chose on its own dev claims."""
    if not available(EXPERTQA):
        return {"skipped": missing(EXPERTQA)}
    by_system: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in claims(which):
        by_system[row["system"]].append(row)
    result: dict[str, Any] = {
        name: _flagged(rows, SUPPORT_THRESHOLD) for name, rows in sorted(by_system.items())
    }
    dev = claims("dev")
    calibrated: dict[str, Any] = {}
    for name in POST_HOC:  # one calibration per pipeline, on its own dev claims
        mine = [(r["claim"], r["evidence"], r["complete"]) for r in dev if r["system"] == name]
        calibration = calibrate_flag(mine)
        calibrated[name] = {
            **_flagged(by_system[name], calibration.threshold),
            "threshold": calibration.threshold,
            "report": calibration.report,
        }
    result["post_hoc_calibrated"] = calibrated
    return result


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=1))
