"""Run every benchmark present and write one results table (stdout and bench/results/latest.json).

    python -m bench                 # or: python bench/run_all.py
    python -m bench --quick         # fewer repeats, for a smoke run
    python -m bench --only core,segment --qdrant-100k

Each benchmark runs in its own process (``bench/bench_<name>.py``, with ``--json`` when it takes it), so
a missing extra (llama-index-core, langchain-core, qdrant-client, pysbd) skips that benchmark cleanly
with the reason, and one failing benchmark does not stop the others.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
# name -> (script, arguments, quick arguments)
BENCHMARKS: dict[str, tuple[str, list[str], list[str]]] = {
    "core": ("bench_core.py", [], ["--quick"]),
    "segment": ("bench_segment.py", [], ["--size-mb", "0.25", "--repeat", "2", "--pysbd-kb", "20"]),
    "langchain": ("bench_langchain.py", [], ["--queries", "40", "--stream-queries", "5"]),
    "llamaindex": ("bench_llamaindex.py", [], ["--queries", "20"]),
    "qdrant_scale": ("bench_qdrant_scale.py", [], ["--sizes", "1000,10000", "--queries", "20"]),
}
_MISSING = re.compile(r"(?:ModuleNotFoundError|MissingDependencyError|ImportError): (.*)")


def run_one(name: str, quick: bool, extra: list[str], timeout: int) -> dict[str, object]:
    script, args, quick_args = BENCHMARKS[name]
    path = BENCH / script
    if not path.is_file():
        return {"status": "skipped", "reason": f"{script} is not present"}
    help_text = subprocess.run(
        [sys.executable, str(path), "--help"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    missing = _MISSING.search(help_text.stderr)
    if help_text.returncode != 0 and missing:
        return {"status": "skipped", "reason": f"missing dependency: {missing.group(1).strip()}"}
    command = [sys.executable, str(path), *args, *(quick_args if quick else []), *extra]
    takes_json = "--json" in help_text.stdout
    if takes_json:
        command.append("--json")
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {
            "status": "failed",
            "reason": f"timed out after {timeout} s",
            "command": " ".join(command[1:]),
        }
    seconds = round(time.perf_counter() - start, 1)
    result: dict[str, object] = {
        "command": "python "
        + " ".join(str(Path(c).relative_to(ROOT)) if c.startswith(str(ROOT)) else c for c in command[1:]),
        "seconds": seconds,
    }
    if proc.returncode != 0:
        missing = _MISSING.search(proc.stderr)
        if missing:
            return {
                **result,
                "status": "skipped",
                "reason": f"missing dependency: {missing.group(1).strip()}",
            }
        return {
            **result,
            "status": "failed",
            "reason": proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"],
        }
    if takes_json:
        try:
            return {**result, "status": "ok", "results": json.loads(proc.stdout[proc.stdout.index("{") :])}
        except ValueError:
            pass
    return {**result, "status": "ok", "output": proc.stdout.strip().splitlines()}


def summary_lines(name: str, result: dict[str, object]) -> list[str]:
    if result["status"] != "ok":
        return [f"{name:<13} {result['status']}: {result.get('reason')}"]
    data = result.get("results")
    lines = [f"{name:<13} ok in {result['seconds']} s  ({result['command']})"]
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, (int, float)):
                lines.append(
                    f"    {key:<40} {value:.3f}" if isinstance(value, float) else f"    {key:<40} {value}"
                )
            elif isinstance(value, dict):
                lines += [f"    {key}.{k:<33} {v:.3f}" for k, v in value.items() if isinstance(v, float)]
            elif isinstance(value, list) and value and not isinstance(value[0], dict):
                lines.append(f"    {key:<40} {value}")
    else:
        lines += [f"    {line}" for line in result.get("output", [])]  # type: ignore[union-attr]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a smoke run of every benchmark")
    parser.add_argument("--only", default="", help=f"comma-separated subset of {', '.join(BENCHMARKS)}")
    parser.add_argument("--qdrant-100k", action="store_true", help="add the 100k-chunk Qdrant case (minutes)")
    parser.add_argument("--timeout", type=int, default=3600, help="per benchmark, in seconds")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    report: dict[str, object] = {
        "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": _cpus()},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "quick": args.quick,
        "benchmarks": {},
    }
    for name in names:
        extra = ["--sizes", "1000,10000,100000"] if name == "qdrant_scale" and args.qdrant_100k else []
        print(f"running {name} ...", file=sys.stderr, flush=True)
        result = run_one(name, args.quick, extra, args.timeout)
        report["benchmarks"][name] = result  # type: ignore[index]
        print("\n".join(summary_lines(name, result)), flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"\nwritten: {(RESULTS / 'latest.json').relative_to(ROOT)}")
    return 1 if any(r["status"] == "failed" for r in report["benchmarks"].values()) else 0  # type: ignore[union-attr]


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 0)


if __name__ == "__main__":
    sys.exit(main())
