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
    # the one-shot document as plain text: the prompt's own numbering is LongCite's, so the spans are exact
    plain = result["longbench"]["plain_text"]
    assert result["longbench"]["numbering_agrees"] == result["longbench"]["chunks"]
    assert plain["exact"] == plain["cited_statements"] and plain["streamed"] == plain["outputs"]
    lb = result["longbench"]
    assert longcite.rows(result)[0][1] == f"{lb['exact']}/{lb['cited_statements']}"
