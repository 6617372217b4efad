"""Never-seen queries for an instruction count: the ``cite_core`` of TREE, the ten 4 KB sources and the
16-marker answer of ``bench_core.py``'s never-seen phases, two queries, then N more (each:
``forget_chunks``, ``number_sources``, ``build_messages``, ``parse_answer``). Instructions per query are
the difference of two callgrind totals over N (steadier than wall clock on a shared machine)::

    valgrind --tool=callgrind --callgrind-out-file=cg0.out python bench/callgrind_never_seen.py TREE 0
    valgrind --tool=callgrind --callgrind-out-file=cg20.out python bench/callgrind_never_seen.py TREE 20
    # (summary of cg20.out - summary of cg0.out) / 20

TREE holds a ``cite_core`` package (``.`` for this checkout, ``/work/base`` for another build).
``CITE_EVAL_DATA`` points at the shared data when this checkout's search does not find it.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    tree, count = sys.argv[1], int(sys.argv[2])
    sys.path.insert(0, str(Path(tree).resolve()))
    import cite_core

    sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
    from bench import bench_core
    from cite_core import build_messages, number_sources, parse_answer
    from cite_core._sources.cache import forget_chunks

    assert Path(cite_core.__file__).resolve().is_relative_to(Path(tree).resolve()), cite_core.__file__
    items = bench_core.make_sources(10, 4000)
    answer = bench_core.make_answer(items, words=250, markers=16, seed=2)

    def query() -> None:
        forget_chunks()
        messages = build_messages("What did the author do?", number_sources(items))
        parse_answer(answer, messages.sources)

    for _ in range(2 + count):
        query()


if __name__ == "__main__":
    main()
