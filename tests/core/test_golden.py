"""The golden dump: whole and streamed parses of 656 answers are what tests/data/golden.json records.

A behaviour change updates the file with ``python -m bench.golden write`` in the commit that says why.
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
