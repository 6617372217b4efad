"""The cost of ``CitationStream.feed`` per character, 1-character and 8-character chunks.

    python bench/bench_feed.py                 # table; --json for machine-readable output
    python bench/bench_feed.py --answers 100 --repeat 5

The first 100 ExpertQA answers (as bench/bench_stream.py reads them) with their markers removed, so that
no claim is localised and no source analysed: what is timed is the feed loop alone (the stream is built
before the clock starts and finished after it stops), the lexer and the assembler per chunk. The
answers as written are timed too (their citations localised inside ``feed``, sources analysed on first
use; caches cleared before each run). Each figure is the sum over answers of the best of ``--repeat``
runs, divided by the number of characters. ``plain chunks`` is the share of ``feed`` calls taken by the
plain-text fast path. ``CITE_PURE_PYTHON=1`` times the Python implementation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_stream import _MARKER, answers, chunks  # noqa: E402
from cite_core import CitationStream, clear_caches, number_sources  # noqa: E402
from cite_core._accel import NATIVE  # noqa: E402


def feed_seconds(text: str, items: list[dict[str, Any]], size: int) -> float:
    """Seconds of feeding ``text`` in chunks of ``size`` to a fresh stream (built and finished untimed)."""
    sources = number_sources(items)
    clear_caches()
    pieces = chunks(text, size)
    stream = CitationStream(sources)
    feed = stream.feed
    start = time.perf_counter()
    for piece in pieces:
        feed(piece)
    elapsed = time.perf_counter() - start
    stream.finish()
    return elapsed


def plain_share(data: list[tuple[str, list[dict[str, Any]]]], size: int) -> float:
    """The share of ``feed`` calls the plain-text fast path takes (the stream's ``_steady_feed`` or
    ``_path_feed`` answers)."""
    taken = calls = 0
    for text, items in data:
        stream = CitationStream(number_sources(items))
        path_feed = getattr(stream, "_path_feed", None)
        if path_feed is None:  # a tree from before the hook (bench/compare_trees.py): not counted
            return float("nan")

        def counted(chunk: str, path_feed: Any = path_feed) -> Any:
            nonlocal taken
            events = path_feed(chunk)
            taken += events is not None
            return events

        stream._path_feed = counted  # type: ignore[method-assign]
        steady_feed = getattr(stream, "_steady_feed", None)  # the steady path takes plain chunks first
        if steady_feed is not None:

            def steady(chunk: str, steady_feed: Any = steady_feed) -> Any:
                nonlocal taken
                events = steady_feed(chunk)
                taken += events is not None
                return events

            stream._steady_feed = steady
        for piece in chunks(text, size):
            calls += 1
            stream.feed(piece)
        stream.finish()
    return taken / max(calls, 1)


def run(limit: int, repeat: int) -> dict[str, Any]:
    cases = answers(limit)
    variants = {"without markers": [(_MARKER.sub("", t), i) for t, i in cases], "answers as written": cases}
    result: dict[str, Any] = {"answers": len(cases), "native": NATIVE is not None, "repeat": repeat}
    result["rows"] = []
    for name, data in variants.items():
        chars = sum(len(text) for text, _ in data)
        for size in (1, 8):
            total = sum(min(feed_seconds(text, items, size) for _ in range(repeat)) for text, items in data)
            result["rows"].append(
                {
                    "text": name,
                    "chunking": f"{size}-character chunks",
                    "chars": chars,
                    "feed_us_per_char": total / chars * 1e6,
                    "feed_us_per_chunk": total / sum(-(-len(t) // size) for t, _ in data) * 1e6,
                    "plain_chunks": plain_share(data, size),
                }
            )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.answers, args.repeat)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    mode = "extension" if result["native"] else "pure Python"
    print(f"{result['answers']} answers, best of {result['repeat']}, {mode}")
    print("| text | chunking | feed µs/char | feed µs/chunk | plain chunks |")
    print("|---|---|---|---|---|")
    for row in result["rows"]:
        print(
            f"| {row['text']} | {row['chunking']} | {row['feed_us_per_char']:.3f} | "
            f"{row['feed_us_per_chunk']:.3f} | {row['plain_chunks']:.0%} |"
        )


if __name__ == "__main__":
    main()
