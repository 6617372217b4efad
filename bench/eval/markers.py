"""Markers: every ``[n]`` of the 243 real ExpertQA answers (GPT-4, Bing) goes to its passage, none invented.

Each answer is parsed with ``cite_core.parse_answer`` over its passages as numbered sources (a passage
whose text was not retrieved by ExpertQA becomes a placeholder source, so numbering is kept). The gold
is every number inside a ``[n]`` or ``[n, m]`` group of the raw answer, in order.
"""

from __future__ import annotations

import re
from typing import Any

from cite_core import number_sources, parse_answer

from ._data import available, load_jsonl, missing

__all__ = ["FILE", "expertqa_sources", "gold_markers", "run"]

FILE = "expertqa_domain_test_attributed_answers.jsonl"
_GOLD = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def gold_markers(answer: str) -> list[int]:
    """Every cited number of the raw answer, in order (``[1, 2]`` gives 1 and 2)."""
    return [int(n) for m in _GOLD.finditer(answer) for n in m.group(1).split(",")]


def expertqa_sources(record: dict[str, Any]) -> list[Any]:
    """The passages of an ExpertQA answer as sources numbered by their ``n``."""
    items = []
    for passage in sorted(record["passages"], key=lambda p: p["n"]):
        text = passage.get("text") or f"(passage text not available) {passage.get('url') or ''}".strip()
        items.append({"text": text, "url": passage.get("url")})
    return number_sources(items, merge=False)


def run(split: str = "all") -> dict[str, Any]:
    if not available(FILE):
        return {"skipped": missing(FILE)}
    records = load_jsonl(FILE)  # the marker check tunes nothing, so it always runs on all answers
    gold_total = found = resolved = invented = exact_answers = groups = 0
    for record in records:
        gold = gold_markers(record["answer"])
        groups += sum(1 for m in _GOLD.finditer(record["answer"]) if "," in m.group(1))
        answer = parse_answer(record["answer"], expertqa_sources(record))
        ours = [c.document_index + 1 for c in answer.citations]
        gold_total += len(gold)
        found += len(ours)
        resolved += (
            sum(1 for a, b in zip(gold, ours) if a == b) if len(gold) == len(ours) else _lcs(gold, ours)
        )
        invented += max(0, len(ours) - len(gold)) + len(answer.invalid_markers)
        exact_answers += gold == ours and not answer.invalid_markers
    return {
        "answers": len(records),
        "gold_markers": gold_total,
        "gold_groups": groups,
        "found": found,
        "resolved_to_gold_passage": resolved,
        "invented_or_invalid": invented,
        "answers_exact": exact_answers,
    }


def _lcs(a: list[int], b: list[int]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
