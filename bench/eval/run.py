"""Run the whole citation-quality evaluation and print one table (``python -m bench.eval``).

Tuned numbers (BM25 ``b``, support weights and threshold) were chosen on the dev halves (records at
even positions); the table reports the test halves (odd positions) unless ``--split`` says otherwise.
Sets missing from ``../shared/data`` are reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from cite_core._scoring import SUPPORT_THRESHOLD

from . import flag, localisation, longcite, markers, multilingual, posthoc, verification
from ._data import DATA_DIR, find_data_dir, searched
from ._model import load_embeddings, save_vectors

__all__ = ["main", "run_all"]


def run_all(which: str = "test", hybrid: bool = True) -> dict[str, Any]:
    embeddings, why = load_embeddings() if hybrid else (None, "not asked for (--no-hybrid)")
    result = {
        "markers": markers.run(),
        "wice": localisation.wice(which),
        "flag": flag.run(which),
        "hybrid": {"skipped": why},
        "quotesum": localisation.quotesum(which),
        "cookbook": localisation.cookbook(),
        "verification": verification.run(which),
        "posthoc": posthoc.run(which),
        "multilingual": multilingual.run(which),
        "longcite": longcite.run(),  # recorded outputs of citation models; nothing tuned, no split
    }
    if embeddings is not None:
        result["hybrid"] = {
            "wice": localisation.wice(which, embeddings=embeddings),
            "flag": flag.run(which, embeddings=embeddings),
        }
        save_vectors()
    return result


def _baseline(w: dict[str, Any]) -> str:
    if "skipped" in w:
        return ""
    return f"idf-overlap baseline {_f(w['baseline_idf_overlap_top1'])} ({w['claims']} claims)"


def _f(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def table(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []

    def add(name: str, section: dict[str, Any], key: str, ref: str = "") -> None:
        if "skipped" in section:
            rows.append((name, "skipped", section["skipped"]))
        else:
            rows.append((name, _f(section[key]), ref))

    m = r["markers"]
    if "skipped" in m:
        rows.append(("ExpertQA markers", "skipped", m["skipped"]))
    else:
        rows.append(
            (
                "ExpertQA markers resolved to gold passage",
                f"{m['resolved_to_gold_passage']}/{m['gold_markers']}",
                (
                    f"all; none invented: {m['invented_or_invalid']} extra/invalid; "
                    f"{m['answers_exact']}/{m['answers']} answers exact"
                ),
            )
        )
    for mode, section in (("lexical", r), ("hybrid", r["hybrid"])):
        if "skipped" in section:
            rows.append((f"{mode}: WiCE and flag rows", "skipped", section["skipped"]))
            continue
        w = section["wice"]
        add(
            f"{mode}: WiCE top-1, first sentence of the span",
            w,
            "first",
            "target >= 0.90 lexical, 0.92 hybrid",
        )
        add(f"{mode}: WiCE top-1, any covered sentence", w, "top1", _baseline(w))
        for name, rates in section["flag"].items():
            if isinstance(rates, str):
                rows.append((f"{mode}: flag on {name}", "skipped", rates))
                continue
            rows.append(
                (
                    f"{mode}: {name} supported claims flagged",
                    _f(rates["false_flags"]),
                    f"target <= 0.10 ({rates['supported']} claims)",
                )
            )
            if "caught" in rates:
                rows.append(
                    (
                        f"{mode}: {name} not-supported claims caught",
                        _f(rates["caught"]),
                        f"target >= 0.50 ({rates['not_supported']} claims)",
                    )
                )
    w = r["wice"]
    add("WiCE sentence precision", w, "precision")
    q = r["quotesum"]
    add("QuoteSum cited span overlaps gold quote", q, "overlaps_quote")
    add("QuoteSum gold-quote chars covered", q, "quote_recall")
    c = r["cookbook"]
    add("Cookbook: overlaps Claude's cited_text", c, "overlaps_claude", "all (5 citations, nothing tuned)")
    add("Cookbook: char Jaccard with Claude's span", c, "char_jaccard")
    v = r["verification"]
    for key, label in (
        ("attributionbench", "AttributionBench"),
        ("expertqa", "ExpertQA Complete vs Partial"),
    ):
        s = v[key]
        add(
            f"{label} balanced acc @ {v['threshold']}",
            s,
            "balanced_accuracy",
            ("target >= 0.80; " if key == "attributionbench" else "")
            + "lexical baseline best-threshold "
            + (_f(s.get("baseline_oracle_balanced_accuracy")) if "skipped" not in s else ""),
        )
        add(
            f"{label} AUROC",
            s,
            "auroc",
            "lexical baseline " + (_f(s.get("baseline_auroc")) if "skipped" not in s else ""),
        )
    p = r["posthoc"]
    add("attribute(): original citations recovered", p, "recovered")
    add("attribute(): our citations matching Complete", p, "precision_vs_complete")
    if "skipped" not in p:
        rows.append(
            (
                "attribute(): citations on Missing-support claims",
                str(p["citations_on_missing_claims"]),
                (
                    f"{p['missing_claims_cited']}/{p['missing_claims']} such claims cited; "
                    f"{p['citations_on_partial_pairs']} on Partial pairs"
                ),
            )
        )
    for lang, section in r["multilingual"].items():
        add(
            f"{lang.upper()} localisation top-1",
            section,
            "top1",
            f"{section.get('cases', 0)} cases; precision {_f(section.get('precision', float('nan')))}",
        )
    rows.extend(longcite.rows(r["longcite"]))
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.eval", description=__doc__)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--json", action="store_true", help="print the raw results as JSON")
    parser.add_argument("--no-hybrid", action="store_true", help="skip the embedding-model rows")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if find_data_dir() is None:
        print("no shared data found; looked in: " + ", ".join(str(p) for p in searched()))
        print("set CITE_EVAL_DATA to the folder holding the evaluation sets")
    results = run_all(args.split, hybrid=not args.no_hybrid)
    if args.json:
        print(json.dumps(results, indent=2, default=str))
        return results
    rows = table(results)
    width = max(len(r[0]) for r in rows)
    print(f"citation quality, {args.split} split, data {DATA_DIR}, support threshold {SUPPORT_THRESHOLD}")
    for name, value, ref in rows:
        print(f"{name:<{width}}  {value:>10}  {ref}")
    print(f"({time.perf_counter() - started:.1f}s)")
    return results


if __name__ == "__main__":
    main()
