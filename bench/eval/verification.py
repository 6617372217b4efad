"""Verification: does ``citation.support`` separate supported from unsupported citations?

* AttributionBench (662 claim / reference pairs, attributable or not): the claim is one answer sentence
  citing every reference as its own source; the pair's score is the best ``support`` of its citations
  (no reference: 0). A bare short answer ("George II", at most ``SHORT_CLAIM`` words) is read with its
  question in front, as a model would have written it in a sentence (chosen on the dev half).
* ExpertQA: every claim an expert judged with a cited passage whose text is available; positive =
  ``Complete`` support, negative = ``Partial`` / ``Incomplete``; the score is the best ``support`` of the
  claim's citations (the claim parsed inside its whole answer, with the other passages as sources).

The decision threshold is ``cite_core._schema.support.SUPPORT_THRESHOLD``, chosen on the dev halves only.
Reported: balanced accuracy at that threshold, AUROC, and (optimistic, for reference) the balanced
accuracy of the best threshold on the reported half itself, and of the lexical baseline (share of claim
words found in the evidence) with its best threshold.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from cite_core import CitedAnswer, number_sources, parse_answer
from cite_core._schema.support import SUPPORT_THRESHOLD

from ._data import available, load_jsonl, missing, split
from ._metrics import auroc, balanced_accuracy, best_threshold
from .localisation import _as_answer
from .markers import FILE as EXPERTQA
from .markers import expertqa_sources

__all__ = [
    "attributionbench_cases",
    "attributionbench_pairs",
    "best_support",
    "expertqa_cases",
    "expertqa_pairs",
    "run",
    "score_table",
]

ATTRIBUTIONBENCH = "attributionbench_sample.jsonl"
_MARKER = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_WORD = re.compile(r"[^\W_]+")
SHORT_CLAIM = 5


def attributionbench_claim(record: dict[str, Any]) -> str:
    """The claim as the answer sentence to cite: a bare short answer gets its question in front."""
    claim = _MARKER.sub("", record["claim"]).strip()
    if claim and len(claim.split()) <= SHORT_CLAIM:
        claim = f"{record['question'].strip()} {claim}"
    return claim


def attributionbench_cases(which: str) -> Iterator[tuple[str | None, list[Any], bool, str, str]]:
    """(answer to parse or None when there is nothing to cite, sources, attributable?, claim, evidence)
    for each AttributionBench pair of a split."""
    for record in split(load_jsonl(ATTRIBUTIONBENCH), which):  # type: ignore[arg-type]
        claim = attributionbench_claim(record)
        refs = [r for r in record["references"] if r.strip()]
        label = record["attribution_label"] == "attributable"
        if not refs or not claim:
            yield None, [], label, claim, ""
            continue
        marks = "".join(f"[{i + 1}]" for i in range(len(refs)))
        yield _as_answer(claim, marks), number_sources(refs, merge=False), label, claim, " ".join(refs)


def expertqa_cases(which: str) -> Iterator[tuple[str, list[Any], bool, str, str]]:
    """(answer to parse, sources, Complete?, claim, evidence) for each judged, cited ExpertQA claim."""
    for record in split(load_jsonl(EXPERTQA), which):  # type: ignore[arg-type]
        texts = {p["n"]: p.get("text") for p in record["passages"]}
        sources = expertqa_sources(record)
        for claim in record["claims"]:
            label = claim.get("support")
            cited = [n for n in claim.get("cited") or [] if texts.get(n)]
            if label not in ("Complete", "Partial", "Incomplete") or not cited:
                continue
            plain = _MARKER.sub("", claim["claim"]).strip()
            if not plain:
                continue
            marks = "".join(f"[{n}]" for n in cited)
            evidence = " ".join(texts[n] for n in cited)
            yield _as_answer(plain, marks), sources, label == "Complete", plain, evidence


def best_support(
    text: str | None,
    sources: list[Any],
    rescorer: Callable[[CitedAnswer], CitedAnswer] | None = None,
    *,
    embeddings: Any = None,
) -> float:
    """The best ``support`` among the citations of the parsed answer (none: 0), after ``rescorer``."""
    if text is None:
        return 0.0
    answer = parse_answer(text, sources, embeddings=embeddings)
    if rescorer is not None:
        answer = rescorer(answer)
    return max((c.support for c in answer.citations), default=0.0)


def attributionbench_pairs(which: str, embeddings: Any = None) -> list[tuple[float, bool, float]]:
    """(our support, attributable?, lexical baseline) for each AttributionBench pair of a split."""
    return [
        (best_support(text, sources, embeddings=embeddings), label, _word_share(claim, evidence))
        for text, sources, label, claim, evidence in attributionbench_cases(which)
    ]


def expertqa_pairs(which: str, embeddings: Any = None) -> list[tuple[float, bool, float]]:
    """(our support, Complete?, lexical baseline) for each judged, cited ExpertQA claim of a split."""
    return [
        (best_support(text, sources, embeddings=embeddings), label, _word_share(claim, evidence))
        for text, sources, label, claim, evidence in expertqa_cases(which)
    ]


def _word_share(claim: str, evidence: str) -> float:
    """The issue's lexical baseline: the fraction of claim words found in the evidence."""
    words = _WORD.findall(claim.lower())
    have = set(_WORD.findall(evidence.lower()))
    return sum(w in have for w in words) / len(words) if words else 0.0


def score_table(pairs: list[tuple[float, bool, float]], threshold: float) -> dict[str, Any]:
    scores = [p[0] for p in pairs]
    labels = [p[1] for p in pairs]
    base = [p[2] for p in pairs]
    return {
        "pairs": len(pairs),
        "balanced_accuracy": balanced_accuracy(scores, labels, threshold),
        "auroc": auroc(scores, labels),
        "oracle_balanced_accuracy": best_threshold(scores, labels)[1],
        "baseline_oracle_balanced_accuracy": best_threshold(base, labels)[1],
        "baseline_auroc": auroc(base, labels),
    }


def run(which: str = "test", threshold: float = SUPPORT_THRESHOLD, embeddings: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"threshold": threshold}
    if available(ATTRIBUTIONBENCH):
        result["attributionbench"] = score_table(attributionbench_pairs(which, embeddings), threshold)
    else:
        result["attributionbench"] = {"skipped": missing(ATTRIBUTIONBENCH)}
    if available(EXPERTQA):
        result["expertqa"] = score_table(expertqa_pairs(which, embeddings), threshold)
    else:
        result["expertqa"] = {"skipped": missing(EXPERTQA)}
    return result
