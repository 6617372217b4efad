"""Source analysis and whole parse of the first 100 ExpertQA answers, for several trees, alternating.

    python bench/compare_trees.py DIR_A DIR_B [--rounds 6] [--best 5]
    python bench/compare_trees.py . .:pure      # this tree with and without the compiled hot path

Each DIR holds a ``cite_core`` package (``git archive <commit> cite_core | tar -x -C DIR``); ``DIR:pure``
runs that tree with ``CITE_PURE_PYTHON=1`` (the Python implementation, even where the extension is
built). Each round
runs one fresh process per tree in turn; a process times, in CPU time (``time.process_time``), the
parses of the 100 answers on fresh sources with the caches cleared, best of ``--best``: once with the
answer ``x [1].`` (source analysis, one citation) and once with the real answers (whole parse). The
min and the median over rounds are printed per tree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker(data_path: str, best: int) -> None:
    from cite_core import clear_caches, number_sources, parse_answer

    data = json.loads(Path(data_path).read_text())

    def total(real: bool) -> float:
        seconds = 0.0
        for answer, items in data:
            sources = number_sources(items)
            clear_caches()
            start = time.process_time()
            parse_answer(answer if real else "x [1].", sources)
            seconds += time.process_time() - start
        return seconds

    analysis = min(total(False) for _ in range(best))
    whole = min(total(True) for _ in range(best))
    print(json.dumps({"analysis_ms": analysis * 1e3, "whole_ms": whole * 1e3}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("trees", nargs="*")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--best", type=int, default=5)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.best)
        return
    sys.path.insert(0, str(ROOT))
    from bench.bench_stream import answers

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "answers.json"
        data.write_text(json.dumps(answers(100)))
        runs: dict[str, list[dict[str, float]]] = {tree: [] for tree in args.trees}
        for _ in range(args.rounds):
            for tree in args.trees:
                folder, _, mode = tree.partition(":")
                env = dict(os.environ, PYTHONPATH=str(Path(folder).resolve()))
                if mode == "pure":
                    env["CITE_PURE_PYTHON"] = "1"
                command = [sys.executable, __file__, "--worker", str(data), "--best", str(args.best)]
                out = subprocess.run(command, env=env, cwd=tmp, capture_output=True, text=True, check=True)
                runs[tree].append(json.loads(out.stdout))
    for tree, rows in runs.items():
        analysis = [row["analysis_ms"] for row in rows]
        whole = [row["whole_ms"] for row in rows]
        print(
            f"{tree}: source analysis min {min(analysis):.1f} median {statistics.median(analysis):.1f} ms;"
            f" whole parse min {min(whole):.1f} median {statistics.median(whole):.1f} ms"
        )


if __name__ == "__main__":
    main()
