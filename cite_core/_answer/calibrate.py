"""Calibrating the weak-support flag on a user's own labelled examples.

The built-in threshold was chosen on English and Spanish data (and a bias per language family,
``_families``), for answers written from retrieved sources. A pipeline that writes the answer first
and attaches sources afterwards (post-hoc attribution: ExpertQA's post-hoc systems had 12.6% and 15.9%
of their expert-"Complete" claims flagged) or a language without built-in calibration can bring a few
hundred labelled ``(claim, source text, supported?)`` examples: ``calibrate_flag`` scores each exactly as
``parse_answer`` would and picks the highest threshold that flags at most ``max_false_flags`` of the
supported claims, reporting the rates reached and a cross-validated estimate of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._args import shown
from .._exceptions import ArgumentError
from .._schema.support import SUPPORT_THRESHOLD as DEFAULT_UNSUPPORTED_THRESHOLD
from .._sources.numbering import number_sources

__all__ = ["MIN_EXAMPLES", "FlagCalibration", "calibrate_flag", "calibrated_threshold", "example_answer"]

MIN_EXAMPLES = 10
"""The fewest supported and the fewest unsupported examples ``calibrate_flag`` accepts (a few hundred
give useful rates: with 100 supported examples one flag moves the false-flag rate by 0.01)."""
_ENDS = ".!?。！？"


class FlagCalibration(BaseModel):
    """A flag threshold chosen on labelled examples, with what it reached on them (``calibrate_flag``).

    Pass it as ``parse_answer(..., calibration=...)``, ``CitationStream(..., calibration=...)`` or to
    the adapters; ``report`` says what it reached."""

    model_config = ConfigDict(frozen=True)

    threshold: float
    """Citations whose ``support`` is below this are flagged (``unsupported_citations``)."""
    max_false_flags: float
    """The most it was allowed to flag of the supported examples."""
    supported: int
    """Supported examples it was chosen on."""
    unsupported: int
    """Unsupported examples it was measured on."""
    false_flags: float
    """Share of the supported examples flagged at ``threshold``."""
    catch: float
    """Share of the unsupported examples flagged at ``threshold``."""
    auroc: float
    """How well ``support`` ranks supported above unsupported examples (0.5: chance)."""
    folds: int
    """The folds of the cross-validated estimate (0: too few examples to fold)."""
    cv_false_flags: float
    """Cross-validated false-flag rate: each fold measured at the threshold chosen on the others."""
    cv_catch: float
    """Cross-validated catch rate, the same way."""

    @property
    def report(self) -> str:
        """What the calibration reached, in one paragraph."""
        text = (
            f"threshold {self.threshold:.4f} (built-in {DEFAULT_UNSUPPORTED_THRESHOLD}): flags "
            f"{self.false_flags:.1%} of {self.supported} supported examples (at most "
            f"{self.max_false_flags:.0%} asked) and catches {self.catch:.1%} of {self.unsupported} "
            f"unsupported ones; AUROC {self.auroc:.3f}."
        )
        if self.folds:
            text += (
                f" {self.folds}-fold cross-validated (threshold chosen without the fold): "
                f"{self.cv_false_flags:.1%} flagged, {self.cv_catch:.1%} caught."
            )
        return text

    def __str__(self) -> str:
        return self.report

    def threshold_for(self, unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD) -> float:
        """The flag threshold of a parse given this calibration and the ``unsupported_threshold``
        argument: this one's, unless a threshold of one's own was given too (``ArgumentError``)."""
        if unsupported_threshold != DEFAULT_UNSUPPORTED_THRESHOLD:
            raise ArgumentError(
                "give unsupported_threshold or calibration, not both (the calibration's threshold is "
                f"{self.threshold:.4f})"
            )
        return self.threshold


def example_answer(claim: str, count: int) -> str:
    """The answer ``calibrate_flag`` parses for a claim citing ``count`` sources: one sentence with the
    markers before its final stop (``claim [1][2].``, ``声明[1]。``; a stop is added when it has none)."""
    marks = "".join(f"[{i}]" for i in range(1, count + 1))
    claim = claim.strip()
    stop = claim[-1] if claim and claim[-1] in _ENDS else ""
    body = claim[: len(claim) - len(stop)].rstrip()
    return f"{body}{marks}{stop}" if stop in "。！？" and stop else f"{body} {marks}{stop or '.'}"


def _example(item: Any, index: int) -> tuple[str, list[str], bool]:
    if isinstance(item, Mapping):
        try:
            claim, source, label = item["claim"], item.get("source", item.get("sources")), item["supported"]
        except KeyError as missing:
            raise ArgumentError(
                f"examples[{index}] lacks {missing}: give (claim, source text, supported?) tuples or dicts "
                'with "claim", "source" and "supported"'
            ) from None
    elif isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 3:
        claim, source, label = item
    else:
        raise ArgumentError(
            f"examples[{index}] must be a (claim, source text, supported?) tuple or a dict, got "
            f"{type(item).__name__}"
        )
    sources = [source] if isinstance(source, str) else source
    if not isinstance(claim, str) or not claim.strip():
        raise ArgumentError(f"examples[{index}]: the claim must be a non-empty str, got {claim!r:.60}")
    if not isinstance(sources, Sequence) or not sources or not all(isinstance(s, str) for s in sources):
        raise ArgumentError(
            f"examples[{index}]: the source must be a str or a list of str, got {source!r:.60}"
        )
    if not isinstance(label, bool):
        raise ArgumentError(f"examples[{index}]: supported? must be True or False, got {shown(label)}")
    return claim, list(sources), label


def _score(claim: str, sources: list[str], embeddings: Any) -> float:
    from .parser import parse_answer  # the parser reads FlagCalibration from this module

    numbered = number_sources(sources, merge=False)
    answer = parse_answer(example_answer(claim, len(numbered)), numbered, embeddings=embeddings)
    return max((c.support for c in answer.citations), default=0.0)


def calibrated_threshold(supported: Sequence[float], max_false_flags: float) -> float:
    """The highest threshold that flags (``score < threshold``) at most ``max_false_flags`` of the
    supported scores less one standard error of that share (``sqrt(m (1 - m) / n)``), so that the
    promise holds on new claims too and not only on these: the k-th lowest score, k = floor(n (m - se))
    (500 supported examples at 10%: at most 8.66% of them)."""
    ordered = sorted(supported)
    n = len(ordered)
    share = max_false_flags - math.sqrt(max_false_flags * (1 - max_false_flags) / n) if n else 0.0
    k = max(0, math.floor(share * n + 1e-9))
    return ordered[k] if k < n else math.nextafter(ordered[-1], math.inf)


def _rate(scores: Sequence[float], threshold: float) -> float:
    return sum(s < threshold for s in scores) / len(scores) if scores else float("nan")


def _auroc(pos: Sequence[float], neg: Sequence[float]) -> float:
    pairs = sorted([(s, 1) for s in pos] + [(s, 0) for s in neg])
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        rank_sum += (i + j + 1) / 2 * sum(y for _, y in pairs[i:j])
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def calibrate_flag(
    examples: Iterable[Any],
    max_false_flags: float = 0.10,
    *,
    folds: int = 5,
    embeddings: Any = None,
) -> FlagCalibration:
    """A flag threshold from labelled examples of your own: ``(claim, source text, supported?)``
    tuples (or dicts with ``claim``, ``source`` and ``supported``; a source may be a list of texts, the
    claim then cites each). Each claim is parsed as the answer ``claim [1].`` (markers before its final
    punctuation) and scored as ``parse_answer`` scores it (``embeddings``: the model you parse with).

    The threshold is the highest that flags at most ``max_false_flags`` of the supported examples, less
    one standard error of that share (``calibrated_threshold``: 500 supported examples at 0.10 give at
    most 8.66% flagged on them, so that new claims stay within 10%); ``folds``-fold cross-validation
    (stratified by label, in the examples' order) estimates the rates on examples it was not chosen on."""
    if isinstance(max_false_flags, bool) or not isinstance(max_false_flags, (int, float)):
        raise ArgumentError(f"max_false_flags must be a number in 0..1, got {shown(max_false_flags)}")
    if not 0.0 <= max_false_flags < 1.0:
        raise ArgumentError(f"max_false_flags must be in 0..1 (0.10: 10%), got {shown(max_false_flags)}")
    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise ArgumentError(f"folds must be an int of at least 2, got {shown(folds)}")
    if isinstance(examples, (str, bytes, Mapping)) or not isinstance(examples, Iterable):
        raise ArgumentError(f"examples must be a list of examples, got {type(examples).__name__}")
    pos: list[float] = []
    neg: list[float] = []
    for index, item in enumerate(examples):
        claim, sources, label = _example(item, index)
        (pos if label else neg).append(_score(claim, sources, embeddings))
    if len(pos) < MIN_EXAMPLES or len(neg) < MIN_EXAMPLES:
        raise ArgumentError(
            f"calibrate_flag needs at least {MIN_EXAMPLES} supported and {MIN_EXAMPLES} unsupported "
            f"examples (a few hundred give useful rates), got {len(pos)} and {len(neg)}"
        )
    threshold = calibrated_threshold(pos, max_false_flags)
    k = folds if min(len(pos), len(neg)) >= folds else 0
    flagged = caught = 0
    for fold in range(k):
        train = [s for i, s in enumerate(pos) if i % k != fold]
        cut = calibrated_threshold(train, max_false_flags)
        flagged += sum(s < cut for i, s in enumerate(pos) if i % k == fold)
        caught += sum(s < cut for i, s in enumerate(neg) if i % k == fold)
    return FlagCalibration(
        threshold=threshold,
        max_false_flags=float(max_false_flags),
        supported=len(pos),
        unsupported=len(neg),
        false_flags=_rate(pos, threshold),
        catch=_rate(neg, threshold),
        auroc=_auroc(pos, neg),
        folds=k,
        cv_false_flags=flagged / len(pos) if k else float("nan"),
        cv_catch=caught / len(neg) if k else float("nan"),
    )


def resolve_threshold(unsupported_threshold: float, calibration: FlagCalibration | None) -> float:
    """The flag threshold of a parse: the calibration's when one is given (not together with a
    threshold of one's own), else ``unsupported_threshold``."""
    if calibration is None:
        return unsupported_threshold
    if not isinstance(calibration, FlagCalibration):
        raise ArgumentError(
            f"calibration must be a FlagCalibration (from calibrate_flag), got {type(calibration).__name__}"
        )
    return calibration.threshold_for(unsupported_threshold)
