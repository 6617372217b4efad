"""A/B of the text cache of ``_terms`` (``_analyze``: text -> terms), in one process, CPU time.

    python bench/ab_text_cache.py [--queries 500]

The cached function and its own uncached function (``__wrapped__``) alternate, query by query, on
bench_core's steady-state query (20 sources, the same answer: number, prompt, parse), then round by
round on streaming the first 100 ExpertQA answers in 8-character chunks with the caches cleared before
each (bench_stream's way). Prints medians and totals, uncached / cached.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_core import make_answer, make_sources, one_query
from bench.bench_stream import answers
from cite_core import CitationStream, clear_caches, number_sources
from cite_core._locate import scoring as _scoring
from cite_core._sources import analysis as _analysis
from cite_core._sources import terms as _terms

CACHED = _terms._analyze


class _Uncached:
    """The analyser without its cache (``clear_caches`` still calls ``cache_clear``)."""

    def __init__(self, analyze: Callable[[str], tuple[str, ...]]) -> None:
        self.analyze = analyze

    def __call__(self, text: str) -> tuple[str, ...]:
        return self.analyze(text)

    def cache_clear(self) -> None:
        pass


UNCACHED = _Uncached(CACHED.__wrapped__)


def use(analyze: object) -> None:
    for module in (_analysis, _scoring, _terms):  # every module that calls it by name
        module._analyze = analyze  # type: ignore[attr-defined]


def stream_all(data: list, size: int = 8) -> float:
    seconds = 0.0
    for text, items in data:
        sources = number_sources(items)
        clear_caches()
        start = time.process_time()
        stream = CitationStream(sources)
        for i in range(0, len(text), size):
            stream.feed(text[i : i + size])
        stream.finish()
        seconds += time.process_time() - start
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    items = make_sources(20)
    answer = make_answer(items)
    times: dict[str, list[float]] = {"cached": [], "uncached": []}
    for i in range(2 * args.queries):
        name = ("cached", "uncached")[(i + i // 2) % 2]  # c u u c c u ...: neither always goes first
        use(CACHED if name == "cached" else UNCACHED)
        start = time.process_time()
        one_query(items, answer, None)
        times[name].append(time.process_time() - start)
    c, u = times["cached"], times["uncached"]
    print(
        f"steady query: median {statistics.median(c) * 1e3:.3f} / {statistics.median(u) * 1e3:.3f} ms"
        f" (uncached / cached {statistics.median(u) / statistics.median(c):.3f}, total {sum(u) / sum(c):.3f})"
    )
    data = answers(100)
    rounds: dict[str, list[float]] = {"cached": [], "uncached": []}
    for r in range(4):
        for name in ("cached", "uncached") if r % 2 == 0 else ("uncached", "cached"):
            use(CACHED if name == "cached" else UNCACHED)
            rounds[name].append(stream_all(data))
    c, u = rounds["cached"], rounds["uncached"]
    print(
        f"stream, 8-character chunks: min {min(c) * 1e3:.0f} / {min(u) * 1e3:.0f} ms"
        f" (uncached / cached {min(u) / min(c):.3f}, total {sum(u) / sum(c):.3f})"
    )
    use(CACHED)


if __name__ == "__main__":
    main()
