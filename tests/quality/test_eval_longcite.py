"""The LongCite evaluation on the recorded outputs; skipped when ../shared/data is absent."""

import pytest

from bench.eval import _data, longcite

pytestmark = pytest.mark.skipif(
    not all(_data.available(f) for f in longcite.FILES.values()), reason="longcite_prompts not found"
)


def test_recorded_longcite_outputs_parse_into_the_gold_chunks() -> None:
    result = longcite.run()
    for name, r in result.items():
        assert r["statements"] > 0 and r["cited_statements"] > 0, name
        assert r["found"] == r["statements"], name
        assert r["resolved"] == r["gold_citations"] and r["exact"] == r["cited_statements"], name
        assert r["clean"] == r["streamed"] == r["outputs"], name
    assert [row[1] for row in longcite.rows(result)] == [
        f"{r['exact']}/{r['cited_statements']}" for r in result.values()
    ]
