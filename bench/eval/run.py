"""Run the whole citation-quality evaluation and print one table (``python -m bench.eval``).

Tuned numbers (BM25 ``b``, support weights and threshold) were chosen on the dev halves (records at
even positions); the table reports the test halves (odd positions) unless ``--split`` says otherwise.
Sets missing from ``../shared/data`` are reported as skipped. With the embedding model (the ``eval``
extra, ``bench/eval/_model.py``) every figure an embedding can change gets a ``+ hybrid`` row under its
lexical row, with the difference; without it (or with ``--no-hybrid``) one row says why they are skipped.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from cite_core._schema.support import SUPPORT_THRESHOLD

from . import citecheck, flag, localisation, longcite, markers, multilingual, posthoc, systems, verification
from . import verify as verify_check
from ._data import DATA_DIR, find_data_dir, searched
from ._model import load_embeddings, save_vectors

__all__ = ["main", "run_all"]


HYBRID_SETS = ("wice", "flag", "quotesum", "cookbook", "verification", "posthoc", "multilingual")
"""The sections whose figures an embedding model can change: each gets hybrid rows."""


def _sections(which: str, embeddings: Any) -> dict[str, Any]:
    """The sections of ``HYBRID_SETS`` of a split, lexical (no ``embeddings``) or hybrid."""
    return {
        "wice": localisation.wice(which, embeddings=embeddings),
        "flag": flag.run(which, embeddings=embeddings),
        "quotesum": localisation.quotesum(which, embeddings=embeddings),
        "cookbook": localisation.cookbook(embeddings=embeddings),
        "verification": verification.run(which, embeddings=embeddings),
        "posthoc": posthoc.run(which, embeddings=embeddings),
        "multilingual": multilingual.run(which, embeddings=embeddings),
    }


def run_all(which: str = "test", hybrid: bool = True, embeddings: Any = None) -> dict[str, Any]:
    """Every section of a split; ``result["hybrid"]`` holds the same sections with the embedding model
    (``embeddings``: anything ``parse_answer`` takes; default all-MiniLM-L6-v2 when installed), or
    ``{"skipped": why}``."""
    why = "not asked for (--no-hybrid)"
    minilm = hybrid and embeddings is None
    if minilm:
        embeddings, why = load_embeddings()
    result: dict[str, Any] = {"markers": markers.run(), **_sections(which, None)}
    result["hybrid"] = {"skipped": why}
    result["longcite"] = longcite.run()  # recorded outputs of citation models; nothing tuned, no split
    result["citecheck"] = citecheck.run("all")  # the whole file is CiteCheck's dev half
    result["systems"] = systems.run(which)
    result["verify"] = verify_check.run(which)
    if hybrid and embeddings is not None:
        result["hybrid"] = _sections(which, embeddings)
        if minilm:
            save_vectors()
    return result


def _baseline(w: dict[str, Any]) -> str:
    if "skipped" in w:
        return ""
    return f"idf-overlap baseline {_f(w['baseline_idf_overlap_top1'])} ({w['claims']} claims)"


def _f(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


HYBRID_ROW = "  + hybrid"
"""The name of a hybrid row, printed under the lexical row it compares with."""


def _get(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        result = result.get(key, {}) if isinstance(result, dict) else {}
    return result


def table(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(name, value, reference) rows: each lexical row, followed by its hybrid row when there is one."""
    rows: list[tuple[str, str, str]] = []
    hybrid = r["hybrid"] if "skipped" not in r["hybrid"] else None

    def add(name: str, path: tuple[str, ...], key: str, ref: str = "", also: str = "") -> None:
        """A lexical row, and its hybrid row (``also``: a further figure of the section, shown in both)."""
        section = _get(r, path)
        if isinstance(section, str) or "skipped" in section:
            rows.append((name, "skipped", section if isinstance(section, str) else section["skipped"]))
        else:
            rows.append((name, _f(section[key]), ref))
        if hybrid is not None:
            rows.append(_hybrid_row(_get(hybrid, path), section, key, also))

    def add_text(
        name: str, path: tuple[str, ...], value: Callable[[dict[str, Any]], tuple[str, str]]
    ) -> None:
        section = _get(r, path)
        if "skipped" in section:
            rows.append((name, "skipped", section["skipped"]))
            return
        rows.append((name, *value(section)))
        other = _get(hybrid, path) if hybrid is not None else None
        if other is not None and "skipped" not in other:
            rows.append((HYBRID_ROW, *value(other)))

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
    w = r["wice"]
    add(
        "lexical: WiCE top-1, first sentence of the span",
        ("wice",),
        "first",
        "target >= 0.90 lexical, 0.92 hybrid",
    )
    add("lexical: WiCE top-1, any covered sentence", ("wice",), "top1", _baseline(w))
    for name, rates in r["flag"].items():
        if isinstance(rates, str):
            rows.append((f"lexical: flag on {name}", "skipped", rates))
            continue
        add(
            f"lexical: {name} supported claims flagged",
            ("flag", name),
            "false_flags",
            f"target <= 0.10 ({rates['supported']} claims)",
        )
        if "caught" in rates:
            add(
                f"lexical: {name} not-supported claims caught",
                ("flag", name),
                "caught",
                f"target >= 0.50 ({rates['not_supported']} claims)",
            )
    rows.extend(_trust_rows(r))
    if hybrid is None:
        rows.append(("hybrid rows (every set)", "skipped", r["hybrid"]["skipped"]))
    add("WiCE sentence precision", ("wice",), "precision")
    add("QuoteSum cited span overlaps gold quote", ("quotesum",), "overlaps_quote")
    add("QuoteSum gold-quote chars covered", ("quotesum",), "quote_recall")
    add(
        "Cookbook: overlaps Claude's cited_text",
        ("cookbook",),
        "overlaps_claude",
        "all (5 citations, nothing tuned)",
    )
    add("Cookbook: char Jaccard with Claude's span", ("cookbook",), "char_jaccard")
    v = r["verification"]
    for key, label in (
        ("attributionbench", "AttributionBench"),
        ("expertqa", "ExpertQA Complete vs Partial"),
    ):
        s = v[key]
        add(
            f"{label} balanced acc @ {v['threshold']}",
            ("verification", key),
            "balanced_accuracy",
            ("target >= 0.80; " if key == "attributionbench" else "")
            + "lexical baseline best-threshold "
            + (_f(s.get("baseline_oracle_balanced_accuracy")) if "skipped" not in s else ""),
        )
        add(
            f"{label} AUROC",
            ("verification", key),
            "auroc",
            "lexical baseline " + (_f(s.get("baseline_auroc")) if "skipped" not in s else ""),
        )
    add("attribute(): original citations recovered", ("posthoc",), "recovered")
    add("attribute(): our citations matching Complete", ("posthoc",), "precision_vs_complete")
    if "skipped" not in r["posthoc"]:
        add_text("attribute(): citations on Missing-support claims", ("posthoc",), _missing_cited)
    for lang, section in r["multilingual"].items():
        add(
            f"{lang.upper()} localisation top-1",
            ("multilingual", lang),
            "top1",
            f"{section.get('cases', 0)} cases; precision {_f(section.get('precision', float('nan')))}",
            also="precision",
        )
    rows.extend(longcite.rows(r["longcite"]))
    return rows


def _trust_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The Chinese flag (CiteCheck dev), the flag per ExpertQA system, and the verify plumbing."""
    rows: list[tuple[str, str, str]] = []
    c = r.get("citecheck", {"skipped": "not run"})
    if "skipped" in c:
        rows.append(("lexical: CiteCheck (zh) flag", "skipped", c["skipped"]))
    else:
        n = f"({c['faithful']} faithful of {c['statements']}, CiteCheck dev: the CJK bias was chosen on it)"
        rows.append(("lexical: CiteCheck (zh) AUROC", _f(c["auroc"]), n))
        rows.append(("lexical: CiteCheck (zh) faithful flagged", _f(c["false_flags"]), "target <= 0.10"))
        rows.append(("lexical: CiteCheck (zh) unfaithful caught", _f(c["caught"]), "target >= 0.70"))
    s = r.get("systems", {"skipped": "not run"})
    if "skipped" in s:
        rows.append(("lexical: ExpertQA per system", "skipped", s["skipped"]))
    else:
        for name, figures in s.items():
            if name != "post_hoc_calibrated":
                ref = f"target <= 0.10 ({figures['complete']} Complete claims)"
                rows.append((f"lexical: ExpertQA {name} Complete flagged", _f(figures["false_flags"]), ref))
        for name, figures in s["post_hoc_calibrated"].items():
            ref = f"calibrate_flag on its dev claims: threshold {figures['threshold']}"
            rows.append((f"  + calibrated {name}", _f(figures["false_flags"]), ref))
    rows.extend(verify_check.rows(r.get("verify", {"skipped": "not run"})))
    return rows


def _hybrid_row(section: Any, lexical: Any, key: str, also: str = "") -> tuple[str, str, str]:
    """The hybrid row of a figure: its value and the difference with the lexical one."""
    if isinstance(section, str) or "skipped" in section:
        return HYBRID_ROW, "skipped", section if isinstance(section, str) else section["skipped"]
    value, before = section[key], lexical.get(key) if isinstance(lexical, dict) else None
    more = f"; {also} {_f(section[also])}" if also in section else ""
    if not (isinstance(value, float) and isinstance(before, float)):
        return HYBRID_ROW, _f(value), more.lstrip("; ")
    return HYBRID_ROW, _f(value), f"{value - before:+.3f} vs lexical{more}"


def _missing_cited(p: dict[str, Any]) -> tuple[str, str]:
    return (
        str(p["citations_on_missing_claims"]),
        (
            f"{p['missing_claims_cited']}/{p['missing_claims']} such claims cited; "
            f"{p['citations_on_partial_pairs']} on Partial pairs"
        ),
    )


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
