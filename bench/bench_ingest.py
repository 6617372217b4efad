"""``cite ingest`` speed: per-file cost at 1,000 and 10,000 files, one-file re-ingest, a large one-line file.

    python -m bench.bench_ingest                 # 1,000 and 10,000 files, 10 MB one-line file
    python -m bench.bench_ingest --sizes 500 2000 --large-mb 2

Figures are wall-clock on this machine, embedded Qdrant on a temporary disk folder, no dense model.
The per-file cost must not grow with the store: the ratio of ms/file at the largest and smallest size
is printed (1.0 = flat). The one-file re-ingest is the cost of updating one document in a store of N
files (the whole command: open, plan, write, commit), against the same in an empty store.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from cite_cli.__main__ import main
from cite_cli._documents import chunk_spans, read_document

WORDS = """light sky blue scattering wavelength molecule air sunset red photon energy atmosphere dust
    rayleigh mie particle colour spectrum angle observer cloud water vapour ozone layer""".split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18))).capitalize() + "."


def make_corpus(folder: Path, files: int, seed: int = 0) -> None:
    """``files`` text files of 400 to 1,600 characters (one or two chunks each)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        text = " ".join(_sentence(rng) for _ in range(rng.randint(4, 14)))
        (folder / f"doc{i:06d}.txt").write_text(f"Document {i}. {text}\n", encoding="utf-8")


def _cite(*argv: str) -> float:
    start = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(list(argv))
    if code != 0:
        raise SystemExit(f"cite {' '.join(argv)} failed: {err.getvalue()}")
    return time.perf_counter() - start


def folder_ingest(files: int) -> dict[str, float]:
    """ms per file for a first ingest, an unchanged re-run, and a one-file update in that store."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus = root / "corpus"
        make_corpus(corpus, files)
        index = str(root / "index")
        first = _cite("ingest", str(corpus), "--quiet", "--path", index)
        again = _cite("ingest", str(corpus), "--quiet", "--path", index)
        one = corpus / "doc000000.txt"
        one.write_text(one.read_text(encoding="utf-8") + " Changed.\n", encoding="utf-8")
        update = _cite("ingest", str(one), "--quiet", "--path", index)
    return {
        "files": files,
        "ingest_ms_per_file": first * 1000 / files,
        "unchanged_ms_per_file": again * 1000 / files,
        "one_file_update_ms": update * 1000,
    }


def large_file(megabytes: float) -> dict[str, float]:
    """Chunking time and peak memory of one single-line file, and the whole ingest time."""
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one-line.txt"
        parts, size = [], 0
        while size < megabytes * 1_000_000:
            sentence = _sentence(rng) + " "
            parts.append(sentence)
            size += len(sentence)
        path.write_text("".join(parts), encoding="utf-8")
        doc = read_document(path)
        start = time.perf_counter()
        spans = chunk_spans(doc)
        chunking = time.perf_counter() - start
        tracemalloc.start()
        chunk_spans(doc)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        total = _cite("ingest", str(path), "--quiet", "--path", str(Path(tmp) / "index"))
    return {
        "megabytes": megabytes,
        "chunks": len(spans),
        "chunking_s": chunking,
        "chunking_peak_mb": peak / 1e6,
        "ingest_s": total,
    }


def run(sizes: list[int], large_mb: float) -> str:
    folder_ingest(20)  # imports and first-use costs out of the figures
    rows = [folder_ingest(n) for n in sizes]
    lines = [
        "| files | ingest ms/file | unchanged re-run ms/file | one-file update ms |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['files']:,} | {r['ingest_ms_per_file']:.2f} | {r['unchanged_ms_per_file']:.2f} "
            f"| {r['one_file_update_ms']:.0f} |"
        )
    ratio = rows[-1]["ingest_ms_per_file"] / rows[0]["ingest_ms_per_file"]
    lines.append(f"\nms/file at {sizes[-1]:,} files / at {sizes[0]:,} files: {ratio:.2f}")
    if large_mb:
        big = large_file(large_mb)
        lines.append(
            f"one-line file of {big['megabytes']:g} MB: {big['chunks']:,} chunks, chunking "
            f"{big['chunking_s']:.2f} s (peak {big['chunking_peak_mb']:.0f} MB allocated), "
            f"whole ingest {big['ingest_s']:.1f} s"
        )
    return "\n".join(lines)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--large-mb", type=float, default=10.0)
    args = parser.parse_args()
    os.environ.pop("CITE_QDRANT_URL", None)
    print(run(sorted(args.sizes), args.large_mb))


if __name__ == "__main__":
    cli()
