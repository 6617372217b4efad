"""Metadata validation on shared references (issue 16 item 3), against the walk it replaced.

    python bench/bench_metadata.py        # prints a table; --json for machine-readable output

The shape: ``l = "x"; for _ in range(depth): l = [l, l]`` as metadata of one item (YAML aliases make
such DAGs). ``number_sources`` now visits each object once and bounds the size written out as JSON
(``MAX_METADATA_SIZE``), so depths 26 and 30 are refused at once. The previous walk (reproduced here
as ``path_walk``) visited every path: 2**depth visits, 81 s at depth 26 in the issue; it is timed
only up to depth 20 (about a second).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from cite_core import SourceError, number_sources


def shared_pairs(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value, value]
    return value


def path_walk(metadata: dict[str, Any]) -> None:
    """The previous check: every container pushed once per path that reaches it."""
    stack: list[tuple[Any, int]] = [(metadata, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > 100:
            return
        children = [*value, *value.values()] if isinstance(value, dict) else value
        for child in children:
            if isinstance(child, (dict, list, tuple, set, frozenset)):
                stack.append((child, depth + 1))


def timed(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def ours(depth: int) -> str:
    try:
        number_sources([{"text": "a b.", "metadata": {"k": shared_pairs(depth)}}])
    except SourceError:
        return "refused"
    return "kept"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for depth in (14, 16, 18, 20, 21, 22, 26, 30):
        shape = {"k": shared_pairs(depth)}
        outcome = ours(depth)
        new = timed(lambda d=depth: ours(d), 5)
        old = timed(lambda s=shape: path_walk(s), 1) if depth <= 20 else None
        rows.append({"depth": depth, "outcome": outcome, "ours_ms": new, "path_walk_ms": old})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| depth | number_sources | ours (ms) | previous path walk (ms) | ratio |")
    print("|---:|---|---:|---:|---:|")
    for r in rows:
        old = f"{r['path_walk_ms']:.1f}" if r["path_walk_ms"] is not None else "not run"
        ratio = f"{r['ours_ms'] / r['path_walk_ms']:.4f}" if r["path_walk_ms"] else ""
        print(f"| {r['depth']} | {r['outcome']} | {r['ours_ms']:.3f} | {old} | {ratio} |")


if __name__ == "__main__":
    main()
