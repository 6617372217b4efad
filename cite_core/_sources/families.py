"""Language families of the weak-support flag: one logistic bias per script family.

The support weights were fitted on English and Spanish claims (``python -m bench.eval.calibrate``). A
Chinese claim is matched by character unigrams and bigrams, which a faithful statement shares with its
source far more than English words do: on CiteCheck dev (1,000 Chinese RAG statements) the score ranks
well (AUROC 0.925) but every faithful statement scored above the Latin-script threshold, so the flag
caught 4% of the unfaithful ones. Each family therefore gets a bias added to the logit of ``support``
(one parameter each), chosen on dev data only so that the shared threshold ``SUPPORT_THRESHOLD`` flags
at most 10% of that family's supported claims, with a margin (``_calibrate.calibrated_threshold``;
``python -m bench.eval.citecheck --calibrate``). A monotone shift within a family: its ranking (AUROC)
is unchanged, and Latin-script scores are as before, to the bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .._text import CJK_RE

__all__ = ["FAMILY_BIAS", "Family", "claim_family"]

Family = Literal["latin", "cjk"]
"""``cjk``: claims written mostly in Han characters or kana; ``latin``: every other claim (the weights'
own family: English and Spanish)."""

FAMILY_BIAS: dict[Family, float] = {"latin": 0.0, "cjk": -2.1821}
"""Added to the logit of ``support`` per family. ``cjk``: ``logit(SUPPORT_THRESHOLD) - logit(0.859)``,
where 0.859 is the unbiased support chosen by ``calibrated_threshold`` on CiteCheck dev's 500 faithful
statements (at most 10% flagged less one standard error: 8.6% of them; 75.6% of the unfaithful ones
caught; 5-fold cross-validated 9.2% and 75.6%)."""


def claim_family(terms: Sequence[str]) -> Family:
    """The family of a claim from its terms (``analyze``): ``cjk`` when more than half of them are CJK
    characters or character pairs, else ``latin``."""
    if not terms:
        return "latin"
    cjk = sum(1 for t in terms if t[0] >= "\u3040" and CJK_RE.match(t) is not None)
    return "cjk" if 2 * cjk > len(terms) else "latin"
