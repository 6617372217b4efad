"""``verify`` plumbing on real answers, with a scripted judge that answers from the gold labels.

No model is called: the judge reads the claims out of the prompt ``verify`` built (``<claim id="n">``),
looks each up among the answer's expert-labelled claims (ExpertQA: ``Complete`` -> supported,
``Partial`` -> partially_supported, ``Incomplete`` -> not_supported) and replies with the JSON the
prompt asks for. What this checks is the plumbing, not a model: one call per answer, every claim of
the prompt found and answered, the reply parsed back onto the right claims (agreement with gold must
be 1.0), a malformed first reply asked again once (two calls, same verdicts), and a judge that never
answers properly reported on every answer, with no verdict guessed.

With a real model, pass it as the judge (``verify(answer, ChatOpenAI(...))``): docs/verify.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from cite_core import parse_answer, verify

from ._data import available, load_jsonl, missing, split
from .localisation import _as_answer
from .markers import FILE as EXPERTQA
from .markers import expertqa_sources

__all__ = ["LEVELS", "answers", "rows", "run", "scripted_judge"]

LEVELS = {"Complete": "supported", "Partial": "partially_supported", "Incomplete": "not_supported"}
_CLAIM = re.compile(r'<claim id="(\d+)">(.*?)</claim>', re.S)
_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")


def answers(which: str) -> list[tuple[str, list[Any], list[tuple[str, str]]]]:
    """Per ExpertQA answer of a split: an answer made of its judged, cited claims (each with its
    markers), its sources, and each claim's (text, gold level)."""
    out = []
    for record in split(load_jsonl(EXPERTQA), which):  # type: ignore[arg-type]
        texts = {p["n"]: p.get("text") for p in record["passages"]}
        parts, gold = [], []
        for claim in record["claims"]:
            level = LEVELS.get(claim.get("support"))
            cited = [n for n in claim.get("cited") or [] if texts.get(n)]
            plain = _MARKER.sub("", claim["claim"]).strip()
            if level is None or not cited or not plain:
                continue
            parts.append(_as_answer(plain, "".join(f"[{n}]" for n in cited)))
            gold.append((plain, level))
        if parts:
            out.append((" ".join(parts), expertqa_sources(record), gold))
    return out


def scripted_judge(gold: list[tuple[str, str]], calls: list[str], garble: int = 0) -> Callable[[str], str]:
    """A judge (a plain function) answering from ``gold``; it records each prompt in ``calls`` and
    replies with prose instead of JSON to its first ``garble`` calls."""

    def judge(prompt: str) -> str:
        calls.append(prompt)
        if len(calls) <= garble:
            return "I think most of these claims look fine."
        entries = []
        for ident, text in _CLAIM.findall(prompt):
            level = next((lvl for plain, lvl in gold if text.strip() and text.strip() in plain), None)
            entries.append({"id": int(ident), "verdict": level or "unmatched", "reason": "gold label"})
        return "```json\n" + json.dumps({"claims": entries}) + "\n```"

    return judge


def _case(text: str, sources: list[Any], gold: list[tuple[str, str]], garble: int) -> dict[str, Any]:
    answer = parse_answer(text, sources)
    calls: list[str] = []
    verified = verify(answer, scripted_judge(gold, calls, garble))
    claims = [c.text.strip().lstrip(".,;:!?").strip() for c in answer.claims]
    expected = [next((lvl for plain, lvl in gold if claim in plain), None) for claim in claims]
    got = [v.level if v is not None else None for v in verified.verdicts]
    verification = verified.verification
    assert verification is not None
    return {
        "claims": len(expected),
        "calls": len(calls),
        "agree": sum(g == e for g, e in zip(got, expected)),
        "unanswered": sum(g is None for g in got),
        "problem": verification.problem is not None,
    }


def run(which: str = "test") -> dict[str, Any]:
    """Per scenario (clean replies, first reply malformed, always malformed): answers, claims, calls
    per answer, agreement with gold, claims left without a verdict, answers reporting a problem."""
    if not available(EXPERTQA):
        return {"skipped": missing(EXPERTQA)}
    cases = answers(which)
    result: dict[str, Any] = {"answers": len(cases)}
    for name, garble in (("clean", 0), ("retried", 1), ("unreadable", 2)):
        done = [_case(text, sources, gold, garble) for text, sources, gold in cases]
        claims = sum(d["claims"] for d in done)
        result[name] = {
            "claims": claims,
            "calls_per_answer": max(d["calls"] for d in done if d["claims"]),
            "agreement": sum(d["agree"] for d in done) / claims if claims else float("nan"),
            "unanswered": sum(d["unanswered"] for d in done),
            "problems": sum(d["problem"] for d in done),
        }
    return result


def rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The table rows of ``run``."""
    if "skipped" in r:
        return [("verify plumbing (scripted judge)", "skipped", r["skipped"])]
    out = []
    for name, want in (("clean", "1 call, agreement 1.000"), ("retried", "2 calls, agreement 1.000")):
        s = r[name]
        value = f"{s['calls_per_answer']} call(s)"
        ref = f"agreement {s['agreement']:.3f} on {s['claims']} claims of {r['answers']} answers; want {want}"
        out.append((f"verify plumbing: {name} replies", value, ref))
    s = r["unreadable"]
    out.append(
        (
            "verify plumbing: unreadable replies",
            f"{s['problems']}/{r['answers']}",
            f"answers reporting the problem; {s['unanswered']} claims left without a verdict, none guessed",
        )
    )
    return out


if __name__ == "__main__":
    print(json.dumps(run(), indent=1))
