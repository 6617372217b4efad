"""calibrate_flag: a flag threshold from the user's own labelled examples; the per-family bias."""

from __future__ import annotations

import math

import pytest

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    ArgumentError,
    CitationStream,
    FlagCalibration,
    calibrate_flag,
    parse_answer,
)
from cite_core._answer.calibrate import calibrated_threshold, example_answer
from cite_core._sources.families import FAMILY_BIAS, claim_family
from cite_core._sources.terms import analyze

SOURCE = "The harbour opened in 1850. Ferries leave every hour for the island. The museum shows old maps."
SUPPORTED = [
    "The harbour opened in 1850.",
    "Ferries leave every hour for the island.",
    "The museum shows old maps.",
    "Ferries leave for the island every hour.",
    "Old maps are shown at the museum.",
]
UNSUPPORTED = [
    "The airport closed in 1990.",
    "Trains run twice a week to the capital.",
    "The zoo keeps three tigers.",
    "Bridges were painted red by volunteers.",
    "The castle burned down in winter.",
]


def examples(n: int = 4) -> list[tuple[str, str, bool]]:
    return [(c, SOURCE, True) for c in SUPPORTED * n] + [(c, SOURCE, False) for c in UNSUPPORTED * n]


def test_the_threshold_separates_the_examples_and_the_report_says_what_it_reached() -> None:
    calibration = calibrate_flag(examples())
    assert isinstance(calibration, FlagCalibration)
    assert calibration.supported == 20 and calibration.unsupported == 20
    assert calibration.false_flags <= 0.10
    assert calibration.catch == 1.0 and calibration.auroc == 1.0
    # each fold holds out every copy of one supported claim: the folds' thresholds differ from the whole's
    assert calibration.folds == 5 and 0.0 <= calibration.cv_false_flags <= 1.0 and calibration.cv_catch == 1.0
    report = calibration.report
    assert "of 20 supported examples" in report and "5-fold cross-validated" in report
    assert str(calibration) == report


def test_a_calibration_sets_the_flag_of_parse_answer_and_of_a_stream() -> None:
    calibration = calibrate_flag(examples())
    answer = parse_answer("The zoo keeps three tigers [1].", [SOURCE], calibration=calibration)
    assert answer.unsupported_threshold == calibration.threshold
    assert answer.unsupported_citations == answer.citations
    stream = CitationStream([SOURCE], calibration=calibration)
    stream.feed("The harbour opened in 1850 [1].")
    finished = stream.finish()
    assert finished.unsupported_threshold == calibration.threshold and not finished.unsupported_citations


def test_dicts_and_several_sources_are_accepted() -> None:
    items = [{"claim": c, "source": [SOURCE, "Unrelated text."], "supported": s} for c, _, s in examples()]
    assert calibrate_flag(items).catch == 1.0


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ("not a list", "list of examples"),
        ([("claim", SOURCE)], "tuple or a dict"),
        ([("claim", SOURCE, "yes")], "True or False"),
        ([("", SOURCE, True)], "non-empty str"),
        ([("claim", 3, True)], "str or a list of str"),
        ([{"claim": "x", "supported": True}], "source must be"),
        ([{"source": "x", "supported": True}], "lacks 'claim'"),
        (examples()[:15], "at least 10 supported and 10 unsupported"),
    ],
)
def test_bad_examples_get_a_clear_error(items: object, message: str) -> None:
    with pytest.raises(ArgumentError, match=message):
        calibrate_flag(items)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [1.5, -0.1, True, "0.1"])
def test_max_false_flags_must_be_a_share(bad: object) -> None:
    with pytest.raises(ArgumentError, match="max_false_flags"):
        calibrate_flag(examples(), bad)  # type: ignore[arg-type]


def test_a_calibration_and_a_threshold_of_ones_own_are_not_given_together() -> None:
    calibration = calibrate_flag(examples())
    with pytest.raises(ArgumentError, match="not both"):
        parse_answer("x [1].", [SOURCE], unsupported_threshold=0.9, calibration=calibration)
    with pytest.raises(ArgumentError, match="FlagCalibration"):
        parse_answer("x [1].", [SOURCE], calibration=0.5)  # type: ignore[arg-type]
    assert parse_answer("x [1].", [SOURCE]).unsupported_threshold == DEFAULT_UNSUPPORTED_THRESHOLD


def test_the_threshold_keeps_a_margin_of_one_standard_error() -> None:
    scores = [i / 500 for i in range(500)]
    # at most 10% less sqrt(0.1 * 0.9 / 500) = 8.66%: 43 of 500 below the threshold
    threshold = calibrated_threshold(scores, 0.10)
    assert sum(s < threshold for s in scores) == 43
    assert calibrated_threshold([0.5] * 20, 0.0) == 0.5  # flags nothing
    assert calibrated_threshold([0.2, 0.3], 0.99) > 0.2


def test_the_example_answer_puts_the_markers_before_the_final_stop() -> None:
    assert example_answer("The sky is blue.", 2) == "The sky is blue [1][2]."
    assert example_answer("No stop", 1) == "No stop [1]."
    assert example_answer("天空是蓝色的。", 1) == "天空是蓝色的[1]。"


def test_chinese_claims_have_their_own_family_and_bias() -> None:
    assert claim_family(analyze("天空是蓝色的，草是绿色的。")) == "cjk"
    assert claim_family(analyze("The sky is blue.")) == "latin"
    assert claim_family(analyze("El cielo es azul.")) == "latin"
    assert claim_family(analyze("iPhone 15 在中国发布")) == "cjk"
    assert claim_family(()) == "latin"
    assert FAMILY_BIAS["latin"] == 0.0 and FAMILY_BIAS["cjk"] < 0


def test_the_cjk_bias_lowers_a_chinese_claims_support_and_not_an_english_one() -> None:
    source = "北京是中国的首都，也是政治和文化中心。上海是最大的城市。"
    claim = "北京是中国的政治中心[1]。"
    english = parse_answer("Beijing is the capital [1].", ["Beijing is the capital of China."])
    saved = FAMILY_BIAS["cjk"]
    try:
        with_bias = parse_answer(claim, [source]).citations[0].support
        FAMILY_BIAS["cjk"] = 0.0
        without = parse_answer(claim, [source]).citations[0].support
        unchanged = parse_answer("Beijing is the capital [1].", ["Beijing is the capital of China."])
    finally:
        FAMILY_BIAS["cjk"] = saved
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    assert with_bias < without
    assert logit(with_bias) - logit(without) == pytest.approx(saved, abs=0.01)
    assert english.citations[0].support == unchanged.citations[0].support
