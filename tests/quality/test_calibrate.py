"""The support calibration: its features are the ones the evaluation scores, and its fit, threshold
and leave-one-dataset-out check work on data with a known answer."""

import random
from typing import Any

import pytest

from bench.eval import _data, calibrate, flag
from cite_core._locate.scoring import SUPPORT_WEIGHTS


def test_features_reproduce_the_evaluated_support(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.eval import verification

    if not _data.available(verification.ATTRIBUTIONBENCH):
        pytest.skip("AttributionBench not found")
    records = _data.load_jsonl(verification.ATTRIBUTIONBENCH)[:12]
    monkeypatch.setattr(verification, "load_jsonl", lambda name: records)
    claims = [calibrate._claim(*case) for case in flag.cases("attributionbench", "dev")]
    pairs = verification.attributionbench_pairs("dev")
    assert len(claims) == len(pairs) == 6
    assert [label == "supported" for label, _ in claims] == [label for _, label, _ in pairs]
    for (_, features), (score, _, _) in zip(claims, pairs):
        assert all(len(f) == len(SUPPORT_WEIGHTS) - 1 for f in features)
        # the calibration fits exactly the score parse_answer gives the pair: the best of its readings
        assert calibrate.score(SUPPORT_WEIGHTS, features) == score


def _synthetic(rng: random.Random, n: int, noise: float) -> list[calibrate.Claim]:
    claims: list[calibrate.Claim] = []
    for i in range(n):
        supported = i % 2 == 0
        centre = 0.8 if supported else 0.2
        readings: list[tuple[float, ...]] = [
            (centre + rng.uniform(-noise, noise), rng.random()) for _ in range(2)
        ]
        claims.append(("supported" if supported else "not_supported", readings))
    return claims


def test_fit_separates_a_separable_set_and_weighs_the_informative_feature() -> None:
    rng = random.Random(0)
    xs = [
        (0.8 + rng.uniform(-0.15, 0.15), rng.random()) if i % 2 == 0 else (0.2, rng.random())
        for i in range(60)
    ]
    ys = [i % 2 == 0 for i in range(60)]
    w = calibrate.fit_logistic(xs, ys)
    assert w[1] > 0 and abs(w[2]) < w[1] / 5


def test_leave_one_out_reports_each_held_out_set_at_the_others_threshold() -> None:
    rng = random.Random(1)
    dev = {name: _synthetic(rng, 60, 0.2) for name in ("a", "b", "c")}
    held = calibrate.leave_one_out(dev, lambda sets: calibrate.fit(sets, rounds=2))
    for row in held.values():
        # the others' threshold flags about a tenth of their supported claims, and so of this one's;
        # the sets are separable, so it catches every unsupported claim
        assert row["false_flags"] <= 0.2 and row["caught"] == 1.0
    assert set(held) == {"a", "b", "c"}


def test_supported_level_lets_at_most_a_tenth_of_unsupported_claims_through() -> None:
    scores = {"supported": [0.9], "not_supported": [i / 20 for i in range(20)]}
    level = calibrate.supported_level([scores])
    assert sum(s >= level for s in scores["not_supported"]) <= 2
    assert sum(s >= level - 0.06 for s in scores["not_supported"]) > 2


def _hybrid_sets(seed: int) -> dict[str, list[calibrate.Claim]]:
    rng = random.Random(seed)
    sets: dict[str, list[calibrate.Claim]] = {}
    for name in ("a", "b"):
        claims: list[calibrate.Claim] = []
        for i in range(80):
            supported = i % 2 == 0
            similarity = (0.7 if supported else 0.3) + rng.uniform(-0.25, 0.25)
            logit = rng.uniform(-2, 2)  # the lexical reading says nothing here
            claims.append(("supported" if supported else "not_supported", [(logit, similarity)]))
        sets[name] = claims
    return sets


@pytest.mark.parametrize("limit", [0.10, 0.05])
def test_hybrid_fit_puts_the_flag_and_the_supported_level_at_the_lexical_ones(limit: float) -> None:
    from cite_core._schema.support import SUPPORT_THRESHOLD, SUPPORTED_LEVEL

    sets = _hybrid_sets(2)
    w = calibrate.fit_hybrid(sets, limit)
    assert w[2] > 0  # similarity carries the signal
    scores = [calibrate._scores(w, claims) for claims in sets.values()]
    # the library's one threshold flags exactly what the highest safe threshold at ``limit`` flags
    for values in scores:
        at_library = flag.flag_rates(values, SUPPORT_THRESHOLD)
        assert at_library == flag.flag_rates(values, calibrate.highest_safe(scores, limit))
        assert at_library["false_flags"] <= limit
    assert abs(calibrate.supported_level(scores) - SUPPORTED_LEVEL) < 0.01


def test_choose_limit_keeps_the_highest_limit_whose_folds_stay_in_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert calibrate.choose_limit(_hybrid_sets(4)) == calibrate.HYBRID_LIMITS[0]  # well separated
    tried: list[float] = []

    def folds(dev: object, fitter: Any, threshold: object = None) -> dict[str, dict[str, float]]:
        tried.append(fitter.keywords["limit"])
        return {"a": {"false_flags": 0.015 + fitter.keywords["limit"]}}  # 5-fold: 1.5 points more

    monkeypatch.setattr(calibrate, "cross_validate", folds)
    assert calibrate.choose_limit({}, (0.10, 0.09, 0.08, 0.07)) == 0.08
    assert tried == [0.10, 0.09, 0.08]


def test_cross_validation_scores_every_claim_once_with_weights_fitted_without_it() -> None:
    rng = random.Random(3)
    dev = {name: _synthetic(rng, 50, 0.2) for name in ("a", "b")}
    seen: list[int] = []

    def fitter(sets: dict[str, list[calibrate.Claim]]) -> list[float]:
        seen.append(sum(map(len, sets.values())))
        return calibrate.fit(sets, rounds=2)

    folds = calibrate.cross_validate(dev, fitter, folds=5)
    assert seen == [80] * 5  # each fit leaves one fifth of every dataset out
    for row in folds.values():
        assert row["supported"] == row["not_supported"] == 25
        assert row["false_flags"] <= 0.2 and row["caught"] == 1.0
