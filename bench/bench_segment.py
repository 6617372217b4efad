"""Benchmark cite_core's sentence segmenter against pysbd: throughput and accuracy on the shared cases.

Builds about 1 MB (UTF-8) of prose from ../shared/data (English essay, Spanish and Chinese novels; any
missing file is skipped), times ``split_sentences`` (best of N runs) and, when installed, pysbd. pysbd
is slow, so it is timed on a slice of the corpus and its throughput is reported for that slice.

    python bench/bench_segment.py [--size-mb 1.0] [--repeat 5] [--pysbd-kb 50]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from cite_core._sources.segmenter import SEGMENTER, split_sentences  # noqa: E402

Splitter = Callable[[str], list[str]]


def load_sources() -> dict[str, str]:
    """Read the sample texts that exist, keyed by language."""
    files = {
        "en": [DATA / "paul_graham_essay.txt"],
        "es": sorted((DATA / "multilingual").glob("es_*.txt")),
        "zh": sorted((DATA / "multilingual").glob("zh_*.txt")),
    }
    sources = {}
    for lang, paths in files.items():
        text = "\n\n".join(p.read_text(encoding="utf-8") for p in paths if p.exists())
        if text.strip():
            sources[lang] = text
        else:
            print(f"  (skipping {lang}: no sample text under {DATA})")
    return sources


def build_corpus(sources: dict[str, str], size_bytes: int) -> str:
    """Repeat each language's text to an equal share of ``size_bytes`` UTF-8 bytes and join them."""
    share = size_bytes // len(sources)
    parts = []
    for text in sources.values():
        reps = share // len(text.encode("utf-8")) + 1
        block = "\n\n".join([text] * reps)
        parts.append(block.encode("utf-8")[:share].decode("utf-8", "ignore"))
    return "\n\n".join(parts)


def best_time(fn: Callable[[str], object], text: str, repeat: int) -> float:
    """Best wall-clock time of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - started)
    return best


def accuracy(split: Splitter, cases: list[dict]) -> tuple[int, list[int]]:
    """Number of shared cases split exactly as expected, and the ids of the others."""
    failed = [case["id"] for case in cases if split(case["text"]) != case["expected"]]
    return len(cases) - len(failed), failed


def ours(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def make_pysbd() -> dict[str, Splitter] | None:
    """Warmed-up pysbd segmenters per language (returning stripped strings), or None if absent."""
    try:
        import pysbd
    except ImportError:
        return None

    def segmenter(lang: str) -> Splitter:
        seg = pysbd.Segmenter(language=lang, clean=False)
        seg.segment("Warm up. Twice.")
        return lambda text: [sent.strip() for sent in seg.segment(text) if sent.strip()]

    return {lang: segmenter(lang) for lang in ("en", "es", "zh")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1.0, help="corpus size in MB (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing, best kept (default 5)")
    parser.add_argument("--pysbd-kb", type=int, default=50, help="slice timed with pysbd, in KB (default 50)")
    args = parser.parse_args()

    sources = load_sources()
    if not sources:
        sys.exit(f"no sample text found under {DATA}")
    corpus = build_corpus(sources, int(args.size_mb * 1_000_000))
    mb = len(corpus.encode("utf-8")) / 1e6
    print(f"corpus: {mb:.2f} MB ({len(corpus):,} chars; {', '.join(sources)})")

    elapsed = best_time(split_sentences, corpus, args.repeat)
    ours_mbs = mb / elapsed
    print(f"segmenter in use: {type(SEGMENTER).__name__}")
    print(
        f"cite_core split_sentences: {ours_mbs:8.2f} MB/s  ({elapsed * 1000:.1f} ms best of {args.repeat}, "
        f"{len(split_sentences(corpus)):,} sentences)"
    )

    pysbd_splitters = make_pysbd()
    if pysbd_splitters is None:
        print("pysbd: not installed (pip install pysbd) - skipped")
    else:
        # Time pysbd on a slice with the same language mix, each language with its own segmenter.
        per_lang = args.pysbd_kb * 1000 // len(sources)
        slices = {
            lang: text.encode("utf-8")[:per_lang].decode("utf-8", "ignore") for lang, text in sources.items()
        }
        slice_mb = sum(len(t.encode("utf-8")) for t in slices.values()) / 1e6
        pysbd_time = sum(best_time(pysbd_splitters[lang], t, 1) for lang, t in slices.items())
        pysbd_mbs = slice_mb / pysbd_time
        print(
            f"pysbd:                     {pysbd_mbs:8.2f} MB/s  (timed on a {slice_mb * 1000:.0f} KB slice, "
            f"1 run, {pysbd_time:.2f} s; full-corpus time extrapolated: {mb / pysbd_mbs:.1f} s)"
        )
        print(f"speed-up: {ours_mbs / pysbd_mbs:,.0f}x")

    cases_path = DATA / "segmentation_cases.json"
    if not cases_path.exists():
        print(f"accuracy: {cases_path} absent - skipped")
        return
    cases = json.loads(cases_path.read_text(encoding="utf-8"))
    passed, failed = accuracy(ours, cases)
    print(
        f"accuracy on {len(cases)} shared cases: cite_core {passed}/{len(cases)} (failed: {failed or 'none'})"
    )
    if pysbd_splitters is not None:
        by_lang = {lang: [c for c in cases if c["lang"] == lang] for lang in pysbd_splitters}
        results = [accuracy(pysbd_splitters[lang], group) for lang, group in by_lang.items()]
        passed = sum(r[0] for r in results)
        failed = sorted(i for r in results for i in r[1])
        print(f"accuracy on {len(cases)} shared cases: pysbd     {passed}/{len(cases)} (failed: {failed})")


if __name__ == "__main__":
    main()
