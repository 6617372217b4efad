"""The support calibration: its features are the ones the evaluation scores, and its fit and
cross-validation work on data with a known answer."""

import random

import pytest

from bench.eval import _data, calibrate
from cite_core._scoring import SUPPORT_WEIGHTS


def test_features_reproduce_the_evaluated_support(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.eval import verification

    if not _data.available(verification.ATTRIBUTIONBENCH):
        pytest.skip("AttributionBench not found")
    records = _data.load_jsonl(verification.ATTRIBUTIONBENCH)[:12]
    monkeypatch.setattr(verification, "load_jsonl", lambda name: records)
    # the weights are fitted on the support of the cited span alone (no source-level reading)
    from cite_core._localize import Corpus

    monkeypatch.setitem(Corpus.__init__.__kwdefaults__, "source_units", 1)
    xs, ys = calibrate.dev_features()
    pairs = verification.attributionbench_pairs("dev")
    assert len(xs) == len(pairs) == 6
    assert ys == [label for _, label, _ in pairs]
    weights = list(SUPPORT_WEIGHTS)
    for feats, (score, _, _) in zip(xs, pairs):
        assert all(len(f) == len(weights) - 1 for f in feats)
        # the calibration fits exactly the score parse_answer gives the pair
        assert max((calibrate._support(weights, f) for f in feats), default=0.0) == score


def test_fit_and_cross_validation_separate_a_separable_set() -> None:
    rng = random.Random(0)
    xs: list[list[tuple[float, ...]]] = []
    ys: list[bool] = []
    for i in range(80):
        label = i % 2 == 0
        centre = 0.8 if label else 0.2
        xs.append([(centre + rng.uniform(-0.15, 0.15), rng.random())])
        ys.append(label)
    w = calibrate.fit_logistic([x[0] for x in xs], ys, steps=500)
    assert w[1] > 0  # the informative feature gets a positive weight
    bacc, area = calibrate.cross_validate(xs, ys, folds=4, shuffles=1, steps=300)
    assert bacc == 1.0 and area == 1.0
