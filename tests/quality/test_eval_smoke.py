"""A small run of the evaluation suite on a few records; skipped when ../shared/data is absent."""

import pytest

from bench.eval import _data

pytestmark = pytest.mark.skipif(
    not _data.available("expertqa_domain_test_attributed_answers.jsonl"), reason="../shared/data not found"
)


def test_markers_on_a_few_expertqa_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.eval import markers

    records = _data.load_jsonl(markers.FILE)[:5]
    monkeypatch.setattr(markers, "load_jsonl", lambda name: records)
    result = markers.run()
    assert result["found"] == result["gold_markers"] == result["resolved_to_gold_passage"]
    assert result["invented_or_invalid"] == 0


def test_wice_and_verification_on_a_few_records(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.eval import localisation, verification

    if not (_data.available(localisation.WICE) and _data.available(verification.ATTRIBUTIONBENCH)):
        pytest.skip("WiCE / AttributionBench not found")
    wice = _data.load_jsonl(localisation.WICE)[:8]
    ab = _data.load_jsonl(verification.ATTRIBUTIONBENCH)[:6]
    monkeypatch.setattr(localisation, "load_jsonl", lambda name: wice)
    result = localisation.wice("all")
    assert result["claims"] >= 1 and 0.0 <= result["top1"] <= 1.0
    monkeypatch.setattr(verification, "load_jsonl", lambda name: ab)
    pairs = verification.attributionbench_pairs("all")
    assert len(pairs) == 6 and all(0.0 <= s <= 1.0 for s, _, _ in pairs)


def test_posthoc_on_a_few_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.eval import posthoc

    records = _data.load_jsonl(posthoc.FILE)[:4]
    monkeypatch.setattr(posthoc, "load_jsonl", lambda name: records)
    result = posthoc.run("all")
    assert result["original_citations"] > 0 and 0.0 <= result["recovered"] <= 1.0
