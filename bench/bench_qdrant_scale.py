"""Retrieval scale: embedded Qdrant with 1k, 10k (and 100k) chunks; our per-query overhead stays flat.

    python bench/bench_qdrant_scale.py                         # 1k and 10k chunks; --json for JSON
    python bench/bench_qdrant_scale.py --sizes 1000,10000,100000

Chunks are 500-character slices of the demo essay (synthetic prose without ../shared) with deterministic
64-dimensional random vectors (numpy, seed 0), uploaded in batches to ``QdrantClient(path=tmpdir)``.
Per query: Qdrant's search for the top 10 (timed), then our overhead on those 10 (number + prompt +
parse of a fixed cited answer, timed apart). Peak Python memory is tracemalloc's over one query, and the
process's peak RSS (``ru_maxrss``) after each size.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from qdrant_client import QdrantClient, models  # noqa: E402

from bench.eval._data import essay_or_prose  # noqa: E402
from cite_core import build_messages, number_sources, parse_answer, split_sentences  # noqa: E402

DIM = 64


def text_pool() -> str:
    return essay_or_prose(2000, capitalize=True)


def build(client: QdrantClient, name: str, size: int, batch: int = 2000) -> float:
    text = text_pool()
    rng = np.random.default_rng(0)
    client.create_collection(
        name, vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
    )
    start = time.perf_counter()
    for lo in range(0, size, batch):
        hi = min(size, lo + batch)
        vectors = rng.standard_normal((hi - lo, DIM)).astype(np.float32)
        payloads = []
        for i in range(lo, hi):
            at = (i * 500) % max(1, len(text) - 500)
            payloads.append(
                {
                    "text": text[at : at + 500],
                    "title": f"Chunk {i}",
                    "url": f"https://example.org/c/{i}",
                    "document_id": f"doc-{i // 4}",
                    "start_index": at,
                }
            )
        client.upload_collection(
            name, vectors=vectors, payload=payloads, ids=list(range(lo, hi)), batch_size=batch
        )
    return time.perf_counter() - start


def answer_for(items: list[dict]) -> str:
    parts = []
    for n, item in enumerate(items[:6], start=1):
        spans = split_sentences(item["text"])
        if spans:
            a, b = spans[len(spans) // 2]
            parts.append(f"{item['text'][a:b].rstrip('.')} [{n}].")
    return " ".join(parts) or "Nothing [1]."


def ours(items: list[dict]) -> None:
    sources = number_sources(items)
    messages = build_messages("What did the author work on?", sources)
    parse_answer(answer_for(items), messages.sources)


def measure(client: QdrantClient, name: str, queries: int) -> dict[str, float]:
    rng = np.random.default_rng(1)
    search, overhead = [], []
    for _ in range(queries + 3):
        query = rng.standard_normal(DIM).astype(np.float32)
        start = time.perf_counter()
        hits = client.query_points(name, query=query, limit=10, with_payload=True).points
        middle = time.perf_counter()
        items = [dict(hit.payload or {}) for hit in hits]
        ours(items)
        end = time.perf_counter()
        search.append(middle - start)
        overhead.append(end - middle)
    search, overhead = search[3:], overhead[3:]  # warm-up
    tracemalloc.start()
    hits = client.query_points(
        name, query=rng.standard_normal(DIM).astype(np.float32), limit=10, with_payload=True
    ).points
    ours([dict(hit.payload or {}) for hit in hits])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "qdrant_search_ms": statistics.median(search) * 1e3,
        "our_overhead_ms": statistics.median(overhead) * 1e3,
        "query_tracemalloc_peak_mb": peak / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="1000,10000", help="chunk counts, comma-separated (100000: minutes)"
    )
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        client = QdrantClient(path=tmp)
        for size in (int(s) for s in args.sizes.split(",")):
            name = f"chunks_{size}"
            upload = build(client, name, size)
            row = {
                "chunks": size,
                "upload_s": upload,
                **measure(client, name, args.queries),
                "process_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
            rows.append(row)
            if not args.json:
                print(
                    f"{size:>7} chunks: upload {upload:6.1f} s, "
                    f"Qdrant search {row['qdrant_search_ms']:7.2f} ms, "
                    f"our overhead {row['our_overhead_ms']:5.2f} ms, "
                    f"query peak {row['query_tracemalloc_peak_mb']:.1f} MB, "
                    f"process peak RSS {row['process_peak_rss_mb']:.0f} MB",
                    flush=True,
                )
        client.close()
    result = {
        "rows": rows,
        "overhead_ratio_largest_to_smallest": rows[-1]["our_overhead_ms"] / rows[0]["our_overhead_ms"],
        "search_ratio_largest_to_smallest": rows[-1]["qdrant_search_ms"] / rows[0]["qdrant_search_ms"],
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"our overhead, largest / smallest: {result['overhead_ratio_largest_to_smallest']:.2f}x; "
            f"Qdrant search: {result['search_ratio_largest_to_smallest']:.2f}x"
        )


if __name__ == "__main__":
    main()
