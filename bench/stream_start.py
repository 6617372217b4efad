"""The start of a cold stream, alone: for each of the first 100 ExpertQA answers (``bench_stream``'s),
fresh sources (``number_sources``), ``clear_caches()``, then ``CitationStream(sources)`` and the corpus's
term statistics (``Corpus(sources).stats``, which analyses every source). Wall time, best of ROUNDS::

    python bench/stream_start.py TREE 30              # stats ... ms  init ... ms (best of 30)

or, with a MODE of ``stats``, ``init`` or ``none``, one pass that does only that, for an instruction
count (``valgrind --tool=callgrind``; subtract the total of ``none``)::

    valgrind --tool=callgrind python bench/stream_start.py TREE stats

TREE holds a ``cite_core`` package (``.`` for this checkout, ``/work/base`` for another build).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main() -> None:
    tree, how = sys.argv[1], sys.argv[2]
    sys.path.insert(0, str(Path(tree).resolve()))
    import cite_core

    sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
    from bench.bench_stream import answers
    from cite_core import CitationStream, clear_caches, number_sources
    from cite_core._locate.localize import Corpus

    assert Path(cite_core.__file__).resolve().is_relative_to(Path(tree).resolve()), cite_core.__file__
    data = answers(100)
    if not how.isdigit():  # one pass of one mode, for callgrind
        for _, items in data:
            sources = number_sources(items)
            clear_caches()
            if how == "stats":
                _ = Corpus(sources).stats
            elif how == "init":
                CitationStream(sources)
        return
    best_stats = best_init = float("inf")
    for _ in range(int(how)):
        stats = init = 0
        for _, items in data:
            sources = number_sources(items)
            clear_caches()
            start = time.perf_counter_ns()
            CitationStream(sources)
            middle = time.perf_counter_ns()
            _ = Corpus(sources).stats
            init, stats = init + middle - start, stats + time.perf_counter_ns() - middle
        best_stats, best_init = min(best_stats, stats), min(best_init, init)
    print(f"stats {best_stats / 1e6:.2f} ms  init {best_init / 1e6:.2f} ms (best of {how})")


if __name__ == "__main__":
    main()
