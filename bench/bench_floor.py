"""The floor: what the cheapest C-level passes over the same text cost, next to each peer, in one run.

    python bench/bench_floor.py                 # both cases; --json for machine-readable output
    python bench/bench_floor.py --answers 100 --repeat 5

Two cases, the ones issues 15 and 17 measure:

* **streaming** (``bench_stream.py``'s data: the first ExpertQA answers and their passages), per
  character of answer text, next to Onyx's ``DynamicCitationProcessor`` at 8-character chunks;
* **never seen** (``bench_core.py``'s top 10 of 4 KB nodes), per query, next to llama-index-core's
  ``CitationQueryEngine`` re-splitting the same nodes.

Each floor is a pass any design that analyses the sources must make at least once (times are the
sum over answers of the best of ``--repeat`` runs):

* ``lower``: ``str.lower()`` of every source text;
* ``words``: ``str.lower()`` then one ``findall`` of words over every source text (no stemming, no
  stop words: just the word strings);
* ``words_split``: the same words by ``str.translate`` (separators to spaces) and ``split()`` where
  every word is ASCII (what ``_analyse_segment`` does now), else ``words``;
* ``words_mapped``: ``words_split`` plus each word mapped to its stem through a warm ``dict`` with ``map``
  (the least Python-level work per word that stems);
* ``sentences``: the segmenter's candidate regex (``finditer``) over every source text, no checks;
* ``split_sentences``: our whole segmenter (for scale);
* ``answer_scan``: one ``finditer`` of ``[n]`` markers over the answer (the least a parser does).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_core import llama_resplit, make_sources  # noqa: E402
from bench.bench_stream import answers, load_onyx, onyx_stream  # noqa: E402
from cite_core import split_sentences  # noqa: E402
from cite_core._sources.segment import _EVENT  # noqa: E402
from cite_core._sources.terms import _analyze, ascii_separated  # noqa: E402

_WORDS = re.compile(r"[^\W_]+")
_ASCII_WORDS = re.compile(r"[a-z0-9]+")  # the same words in lower-cased ASCII text, 1.7x faster


def _split(text: str) -> list[str]:
    """The words of lower-cased ``text`` by translate and split where they are all ASCII."""
    separated = ascii_separated(text)
    return separated.split() if separated is not None else _findall(text)


def _findall(text: str) -> list[str]:
    """The words of lower-cased ``text`` (the ASCII class where it applies, as ``_analyze`` does)."""
    return _ASCII_WORDS.findall(text) if text.isascii() else _WORDS.findall(text)


_MARKER = re.compile(r"\[\d+\]")


def _stem_table(texts: list[str]) -> dict[str, str]:
    """A warm word -> stem table for every word of ``texts`` (built untimed)."""
    table: dict[str, str] = {}
    for text in texts:
        for word in _WORDS.findall(text.lower()):
            terms = _analyze(word)
            table[word] = terms[0] if terms else ""
    return table


def floors(texts: list[str], answer: str, table: dict[str, str]) -> dict[str, Callable[[], Any]]:
    """The floor passes over one answer's source texts (and the answer)."""
    findall, get = _findall, table.get
    return {
        "lower": lambda: [t.lower() for t in texts],
        "words": lambda: [findall(t.lower()) for t in texts],
        "words_split": lambda: [_split(t.lower()) for t in texts],
        "words_mapped": lambda: [list(map(get, _split(t.lower()))) for t in texts],
        "sentences": lambda: [list(_EVENT.finditer(t)) for t in texts],
        "split_sentences": lambda: [split_sentences(t) for t in texts],
        "answer_scan": lambda: list(_MARKER.finditer(answer)),
    }


def best_time(fn: Callable[[], Any], repeat: int) -> float:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return min(out)


def streaming_case(limit: int, repeat: int) -> dict[str, Any]:
    """Floors per answer character over bench_stream's answers, with Onyx at 8-character chunks."""
    data = answers(limit)
    chars = sum(len(text) for text, _ in data)
    source_chars = sum(len(i.get("text", "")) for _, items in data for i in items)
    onyx = load_onyx()
    totals: dict[str, float] = {}
    for text, items in data:
        texts = [i.get("text", "") for i in items]
        passes = floors(texts, text, _stem_table(texts))
        if onyx is not None:
            passes["onyx_8"] = lambda t=text, i=items: onyx_stream(onyx, t, i, 8)[0]
        for name, fn in passes.items():
            if name == "onyx_8":
                seconds = min(fn() for _ in range(repeat))
            else:
                seconds = best_time(fn, repeat)
            totals[name] = totals.get(name, 0.0) + seconds
    out: dict[str, Any] = {"answers": len(data), "chars": chars, "source_chars": source_chars}
    out["us_per_answer_char"] = {k: v / chars * 1e6 for k, v in totals.items()}
    if "onyx_8" in totals:
        out["ratio_to_onyx_8"] = {k: v / totals["onyx_8"] for k, v in totals.items() if k != "onyx_8"}
    return out


def never_seen_case(repeat: int) -> dict[str, Any]:
    """Floors per query over bench_core's top 10 of 4 KB nodes, with llama-index's re-split."""
    top = make_sources(10, 4000)[:10]
    texts = [i["text"] for i in top]
    passes = floors(texts, "", _stem_table(texts))
    del passes["answer_scan"]
    resplit = llama_resplit(top)
    if resplit is not None:
        passes["llamaindex_resplit"] = resplit
    samples: dict[str, list[float]] = {k: [] for k in passes}
    for _ in range(repeat):
        for name, fn in passes.items():  # interleaved
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    ms = {k: statistics.median(v) * 1e3 for k, v in samples.items()}
    out: dict[str, Any] = {"chars": sum(map(len, texts)), "median_ms": ms}
    if "llamaindex_resplit" in ms:
        out["ratio_to_resplit"] = {k: v / ms["llamaindex_resplit"] for k, v in ms.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {"streaming": streaming_case(args.answers, args.repeat), "never_seen": never_seen_case(50)}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    s = result["streaming"]
    print(
        f"streaming: {s['answers']} answers, {s['chars']:,} answer characters, "
        f"{s['source_chars']:,} source characters ({s['source_chars'] / s['chars']:.2f} per answer char)"
    )
    for name, value in s["us_per_answer_char"].items():
        ratio = s.get("ratio_to_onyx_8", {}).get(name)
        note = f"  ({ratio:.2f} of Onyx at 8-char chunks)" if ratio is not None else ""
        print(f"  {name:16} {value:.3f} µs per answer char{note}")
    n = result["never_seen"]
    print(f"never seen: top 10 of 4 KB nodes, {n['chars']:,} characters")
    for name, value in n["median_ms"].items():
        ratio = n.get("ratio_to_resplit", {}).get(name)
        note = f"  ({ratio:.3f} of llama-index's re-split)" if ratio is not None else ""
        print(f"  {name:18} {value:.3f} ms{note}")


if __name__ == "__main__":
    main()
