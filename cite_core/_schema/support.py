"""The support thresholds and the graded level they give a citation: one constants module that the
models (``Citation.support_level``), the parser, calibration and attribution read.

``SUPPORT_THRESHOLD`` and ``SUPPORTED_LEVEL`` were fitted with the logistic weights of ``_scoring``
on the dev halves of AttributionBench, WiCE and ExpertQA (``python -m bench.eval.calibrate``;
docs/quality.md).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["ATTRIBUTION_THRESHOLD", "SUPPORTED_LEVEL", "SUPPORT_THRESHOLD", "SupportLevel", "support_level"]

SUPPORT_THRESHOLD = 0.4073
"""A citation whose ``support`` is below this is flagged as weak support: the highest threshold that
flags at most 10% of the claims judged supported in every dev half (AttributionBench attributable,
WiCE supported, ExpertQA Complete), fitted with the weights (``python -m bench.eval.calibrate``,
which also reports each dataset held out: weights and threshold from the other two)."""
SUPPORTED_LEVEL = 0.7457
"""At or above this, a citation's support level is "supported": at most 10% of the dev claims judged
not supported (AttributionBench, WiCE) score this high. Between the two thresholds it is "uncertain"."""
ATTRIBUTION_THRESHOLD = 0.69
"""The sentence-level support at which ``attribute()`` cites a source: high, because a citation added
to a claim the model left uncited must rarely be wrong. Chosen on ExpertQA dev (docs/quality.md, "The
attribution threshold")."""

SupportLevel = Literal["supported", "uncertain", "weak"]


def support_level(
    support: float, threshold: float = SUPPORT_THRESHOLD, confident: float | None = None
) -> SupportLevel:
    """The graded signal of a support score: "weak" below ``threshold`` (the flag), "supported" from
    ``confident`` up (default: ``SUPPORTED_LEVEL``, moved with ``threshold``), else "uncertain"."""
    if confident is None:
        confident = SUPPORTED_LEVEL + (threshold - SUPPORT_THRESHOLD)
    if support < threshold:
        return "weak"
    return "supported" if support >= confident else "uncertain"
