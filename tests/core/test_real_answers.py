"""Real GPT-4 and Bing answers (ExpertQA, MIT): every marker resolves to its passage, none invented."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cite_core import number_sources, parse_answer

SUBSET = Path(__file__).resolve().parent.parent / "data" / "expertqa_subset.jsonl"
MARKER_GROUP = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _check(rows: list[dict]) -> tuple[int, int]:
    markers = resolved = 0
    for row in rows:
        by_n = {p["n"]: p for p in row["passages"]}
        items = [
            {
                "text": (by_n.get(n, {}).get("text") or "").strip() or "(no text)",
                "url": by_n.get(n, {}).get("url"),
            }
            for n in range(1, max(by_n, default=0) + 1)
        ]
        sources = number_sources(items)
        answer = parse_answer(row["answer"], sources)
        expected = [int(n) for group in MARKER_GROUP.findall(row["answer"]) for n in group.split(",")]
        markers += len(expected)
        assert answer.invalid_markers == [], row["id"]
        got = [c.document_index + 1 for c in answer.citations]
        # every marker resolved to its passage (a group repeating a source cites it once)
        assert sorted(set(got)) == sorted(set(expected)), row["id"]
        for c in answer.citations:
            assert sources[c.document_index].text[c.source_start : c.source_end] == c.cited_text
        resolved += len(got)
    return markers, resolved


def test_subset_shipped_with_the_tests() -> None:
    markers, resolved = _check(_rows(SUBSET))
    assert markers > 40 and resolved >= markers - 2


def test_all_243_answers(shared_data) -> None:
    rows = _rows(shared_data / "expertqa_domain_test_attributed_answers.jsonl")
    assert len(rows) == 243
    markers, resolved = _check(rows)
    assert markers == 1487  # 1,481 single markers and 3 two-number groups
    assert resolved == markers
