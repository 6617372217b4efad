"""What a grounding check says about an answer's claims: one verdict per cited claim (``verify``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["VERDICT_LEVELS", "Verdict", "VerdictLevel", "Verification", "VerificationDelta"]

VerdictLevel = Literal["supported", "partially_supported", "not_supported", "contradicted"]
"""``supported``: the cited passages say everything the claim says; ``partially_supported``: part of it
(or the claim goes beyond them in a detail); ``not_supported``: they do not say it; ``contradicted``:
they say something incompatible with it."""
VERDICT_LEVELS: tuple[VerdictLevel, ...] = (
    "supported",
    "partially_supported",
    "not_supported",
    "contradicted",
)


class Verdict(BaseModel):
    """A judge's verdict on one cited claim, against the passages its citations quote."""

    model_config = ConfigDict(frozen=True)

    level: VerdictLevel
    reason: str = ""
    """The judge's short reason (for a cross-encoder: its label probabilities)."""
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    """A probability of support when the judge gives one (a cross-encoder's entailment), else None."""


class Verification(BaseModel):
    """How an answer was verified: by which judge, in how many calls, and what could not be read."""

    model_config = ConfigDict(frozen=True)

    judge: str
    """What judged: ``langchain:ChatOpenAI``, ``llamaindex:Ollama``, ``cross-encoder:CrossEncoder``,
    ``callable:my_judge``."""
    claims: int
    """Cited claims sent to the judge."""
    calls: int
    """Model calls made (one per answer; two when the first reply could not be read)."""
    verdicts: tuple[Verdict | None, ...] = ()
    """The verdict of each cited claim in answer order (``CitedAnswer.claims``); None for each when the
    reply could not be read."""
    problem: str | None = None
    """Why no verdict was given, when the judge's reply could not be read twice (never guessed)."""

    @property
    def ok(self) -> bool:
        """Whether every cited claim got a verdict."""
        return self.problem is None


class VerificationDelta(BaseModel):
    """Streamed by the adapters after the answer ends when verification is on: how it went and the
    verdict of each cited claim (``verification.verdicts``)."""

    type: Literal["verification"] = "verification"
    verification: Verification
