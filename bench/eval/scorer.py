"""Measure any support scorer (an NLI model, an embedding model, an LLM judge) the way the lexical one is.

    python -m bench.eval.scorer --scorer my_package.my_module:make_scorer
    python -m bench.eval.scorer --scorer lexical          # the built-in score, through the same path

``make_scorer`` is called with no argument and returns a ``cite_core.SupportScorer`` (a function from
``(claim, cited_text)`` pairs to scores in 0..1; ``cite_core.embedding_scorer(model)`` makes one from an
embedding model). Every AttributionBench and ExpertQA pair is parsed as in ``bench.eval``, rescored with
``cite_core.rescore``, and the decision threshold is the best one on the **dev** halves of
AttributionBench; the test halves then report balanced accuracy at that threshold and AUROC, beside the
lexical score's. Nothing is downloaded: the scorer is whatever the given module builds.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Iterator
from typing import Any

from cite_core import SupportScorer, rescore

from ._data import available, missing
from ._metrics import auroc, balanced_accuracy, best_threshold
from .markers import FILE as EXPERTQA
from .verification import ATTRIBUTIONBENCH, attributionbench_cases, best_support, expertqa_cases

__all__ = ["evaluate", "load_scorer", "main"]


def load_scorer(spec: str) -> SupportScorer | None:
    """``module:factory`` -> the scorer it builds; ``lexical`` -> None (the built-in score)."""
    if spec == "lexical":
        return None
    module, _, name = spec.partition(":")
    if not module or not name:
        raise SystemExit(f"--scorer must be 'lexical' or 'module:factory', got {spec!r}")
    factory: Callable[[], SupportScorer] = getattr(importlib.import_module(module), name)
    return factory()


def _pairs(cases: Iterator[tuple[Any, ...]], scorer: SupportScorer | None) -> list[tuple[float, bool]]:
    rescorer = None if scorer is None else (lambda answer: rescore(answer, scorer, threshold=0.5))
    return [(best_support(text, sources, rescorer), label) for text, sources, label, _, _ in cases]


def attributionbench(scorer: SupportScorer | None, which: str) -> list[tuple[float, bool]]:
    return _pairs(attributionbench_cases(which), scorer)


def expertqa(scorer: SupportScorer | None, which: str) -> list[tuple[float, bool]]:
    return _pairs(expertqa_cases(which), scorer)


def evaluate(scorer: SupportScorer | None) -> dict[str, Any]:
    """Threshold chosen on AttributionBench dev; balanced accuracy and AUROC on the test halves."""
    if not available(ATTRIBUTIONBENCH):
        return {"skipped": missing(ATTRIBUTIONBENCH)}
    dev = attributionbench(scorer, "dev")
    threshold, dev_bacc = best_threshold([s for s, _ in dev], [y for _, y in dev])
    result: dict[str, Any] = {"threshold": threshold, "dev_balanced_accuracy": dev_bacc}
    sets = [("attributionbench", attributionbench)] + (
        [("expertqa", expertqa)] if available(EXPERTQA) else []
    )
    for name, pairs_of in sets:
        pairs = pairs_of(scorer, "test")
        scores, labels = [s for s, _ in pairs], [y for _, y in pairs]
        result[name] = {
            "pairs": len(pairs),
            "balanced_accuracy": balanced_accuracy(scores, labels, threshold),
            "auroc": auroc(scores, labels),
        }
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.eval.scorer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--scorer", required=True, help="'lexical' or 'module:factory'")
    args = parser.parse_args(argv)
    result = evaluate(load_scorer(args.scorer))
    if "skipped" in result:
        print(f"skipped: {result['skipped']}")
        return result
    print(
        f"scorer {args.scorer}: threshold {result['threshold']:.3f} chosen on AttributionBench dev "
        f"(dev balanced accuracy {result['dev_balanced_accuracy']:.3f})"
    )
    for name in ("attributionbench", "expertqa"):
        if name in result:
            row = result[name]
            print(
                f"  {name} test: balanced accuracy {row['balanced_accuracy']:.3f}, AUROC {row['auroc']:.3f} "
                f"({row['pairs']} pairs)"
            )
    return result


if __name__ == "__main__":
    main()
