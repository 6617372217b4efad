"""The golden dump: whole and streamed parses of every case are what tests/data/golden.json records.

A behaviour change updates the file with ``python -m bench.golden write`` in the commit that says why.
Cases built from ``../shared/data`` (the essay, the full ExpertQA file) are checked only where it is
present; the rest (the shipped ExpertQA subset, synthetic prose, soup, multilingual) are checked
everywhere, so the suite passes the same in a clone with no ``../shared`` beside it.
"""

from __future__ import annotations

import json

from bench import golden


def test_parser_behaviour_matches_the_golden_dump() -> None:
    expected = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))
    current = golden.digests()
    changed = sorted(k for k in current if k in expected and current[k] != expected[k])
    assert changed == [], (
        f"{len(changed)} cases changed (python -m bench.golden dump DIR to compare): {changed[:10]}"
    )
    assert set(current) <= set(expected), sorted(set(current) - set(expected))[:10]


def test_the_cases_without_shared_data_are_built_from_the_project_alone(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(golden, "SHARED", tmp_path / "absent")
    names = [name for name, _items, _text in golden.cases()]
    assert not [n for n in names if n.startswith("bench/")]  # the essay is not shipped: skipped
    assert len([n for n in names if n.startswith("bench-prose/")]) == 9
    subset = (golden.ROOT / "tests" / "data" / "expertqa_subset.jsonl").read_text(encoding="utf-8")
    assert len([n for n in names if n.startswith("expertqa/")]) == sum(
        1 for line in subset.splitlines() if line.strip()
    )
    expected = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))
    assert set(names) <= set(expected)
