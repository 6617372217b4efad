"""Core overhead for one query, and streaming cost per chunk.

    python bench/bench_core.py            # prints a table; --json for machine-readable output

One query: 20 sources of about 1 KB and a 400-word answer with 30 markers: number the sources, build
the prompt (no token budget, then with one), parse and localise. Streaming: the same answer fed one
character at a time; growth with answer length (doubling, 1 KB to 1 MB) and with the number of sources.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from cite_core import CitationStream, build_messages, number_sources, parse_answer, split_sentences

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def corpus_text() -> str:
    essay = SHARED / "paul_graham_essay.txt"
    if essay.is_file():
        return essay.read_text(encoding="utf-8")
    rng = random.Random(0)
    words = "the of grass sky water blue green life energy sun moon city river paper model data".split()
    return " ".join(" ".join(rng.choice(words) for _ in range(rng.randint(8, 20))) + "." for _ in range(2000))


def make_sources(n: int, size: int = 1000) -> list[dict]:
    text = corpus_text()
    out, pos = [], 0
    for i in range(n):
        if pos + size > len(text):
            pos = 0
        out.append({"text": text[pos : pos + size], "title": f"Chunk {i + 1}", "url": f"https://example.org/{i}"})
        pos += size
    return out


def make_answer(items: list[dict], words: int = 400, markers: int = 30, seed: int = 0) -> str:
    rng = random.Random(seed)
    sentences = []
    for number, item in enumerate(items, start=1):
        for start, end in split_sentences(item["text"]):
            sentences.append((number, item["text"][start:end]))
    out, count = [], 0
    per_marker = max(1, words // markers)
    while count < words:
        number, sentence = rng.choice(sentences)
        claim = " ".join(sentence.split()[:per_marker]).rstrip(".,;:")
        out.append(f"{claim} [{number}].")
        count += len(claim.split())
    return " ".join(out)


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def one_query(items: list[dict], answer: str, budget: int | None) -> None:
    sources = number_sources(items)
    messages = build_messages("What did the author do?", sources, max_tokens=budget)
    parse_answer(answer, messages.sources)


def stream_chars(items: list[dict], answer: str) -> None:
    stream = CitationStream(number_sources(items))
    for ch in answer:
        stream.feed(ch)
    stream.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    items = make_sources(20)
    answer = make_answer(items)
    results: dict[str, object] = {
        "answer_words": len(answer.split()), "answer_markers": answer.count("["),
    }
    one_query(items, answer, 100_000)  # warm caches (tiktoken, regexes)
    results["query_ms_median"] = statistics.median(timed(lambda: one_query(items, answer, None), args.repeat)) * 1e3
    results["query_with_budget_ms_median"] = statistics.median(
        timed(lambda: one_query(items, answer, 100_000), args.repeat)) * 1e3
    sources = number_sources(items)
    results["parse_only_ms_median"] = statistics.median(
        timed(lambda: parse_answer(answer, sources), args.repeat)) * 1e3
    chars = statistics.median(timed(lambda: stream_chars(items, answer), 20))
    results["stream_1char_us_per_chunk"] = chars / len(answer) * 1e6
    growth = []
    base = answer
    for size in (1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 1_024_000):
        text = (base * (size // len(base) + 1))[:size]
        seconds = min(timed(lambda: parse_answer(text, sources), 3))
        growth.append({"chars": size, "ms": seconds * 1e3})
    results["length_growth"] = growth
    results["max_doubling_ratio_from_16KB"] = max(
        b["ms"] / a["ms"] for a, b in zip(growth, growth[1:]) if a["chars"] >= 16_000)
    stream_growth = []
    for size in (2_000, 4_000, 8_000, 16_000):
        text = (base * (size // len(base) + 1))[:size]
        stream_growth.append({"chars": size, "ms": min(timed(lambda: stream_chars(items, text), 3)) * 1e3})
    results["stream_growth_1char"] = stream_growth
    by_sources = []
    for n in (5, 50, 500):
        many = make_sources(n)
        text = make_answer(many, markers=30, seed=1)
        by_sources.append({"sources": n, "ms": statistics.median(
            timed(lambda: one_query(many, text, None), 20)) * 1e3})
    results["sources_growth"] = by_sources
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"answer: {results['answer_words']} words, {results['answer_markers']} markers, 20 sources x 1 KB")
    print(f"one query (number + prompt + parse + localise): {results['query_ms_median']:.2f} ms median")
    print(f"  with a tiktoken budget:                       {results['query_with_budget_ms_median']:.2f} ms median")
    print(f"  parse + localise only:                        {results['parse_only_ms_median']:.2f} ms median")
    print(f"streaming, 1-character chunks: {results['stream_1char_us_per_chunk']:.2f} us per chunk")
    print("whole-answer parse time by length (chars: ms):",
          ", ".join(f"{g['chars']}: {g['ms']:.1f}" for g in growth))
    print(f"  worst doubling ratio from 16 KB up: {results['max_doubling_ratio_from_16KB']:.2f}x (linear = 2.0x)")
    print("streaming 1-char chunks by length (chars: ms):",
          ", ".join(f"{g['chars']}: {g['ms']:.1f}" for g in stream_growth))
    print("one query by number of sources (sources: ms):",
          ", ".join(f"{g['sources']}: {g['ms']:.1f}" for g in by_sources))


if __name__ == "__main__":
    main()
