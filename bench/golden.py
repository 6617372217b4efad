"""The golden dump: every parsed answer (whole and streamed) of a fixed corpus, for behaviour checks.

``python -m bench.golden check`` compares the current parser with ``tests/data/golden.json`` (one
sha256 per case); ``python -m bench.golden write`` records the current behaviour (do it only in a
commit that says which behaviour changed and why); ``python -m bench.golden dump DIR`` writes every
case in full (JSON) so two trees can be compared with ``diff -r``.

Cases: all 243 ExpertQA answers (from ``../shared/data``; the shipped 12-answer subset when absent),
bench_core's generated queries (over the essay of ``../shared/data`` when present, and over
synthetic prose), 400 generated marker-soup answers, Spanish and Chinese sources. Each is
parsed whole and streamed at 1, 7 and 64 characters and at seeded random cuts; the stream's answer and
events are part of the dump.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cite_core import CitationStream, number_sources, parse_answer

from .eval._data import essay_or_prose, find_data_dir

ROOT = Path(__file__).resolve().parent.parent
SHARED = find_data_dir() or ROOT.parent / "shared" / "data"
GOLDEN = ROOT / "tests" / "data" / "golden.json"

_SOUP = [
    "[1]",
    "[2]",
    "[1][2]",
    "[1, 2]",
    "[1-3]",
    "[1–3]",
    "[[1]]",
    "【1】",
    "［2］",
    "[^1]",
    "[Source 2]",
    "(Source 1)",
    "[Doc 3]",
    "[ID:1]",
    "[ 2 ]",
    "[1](https://example.org/a)",
    "[0]",
    "[7]",
    "[2019]",
    "`[1]`",
    "\n```\n[2]\n```\n",
    "- [ ] ",
    "- [x] ",
    "[link](https://example.org)",
    "<CIT chunk_id='1' sentences='0-1'>",
    "</CIT>",
    "\n\nReferences:\n[1] Some title\n",
    "\nSources: https://example.org/x\n",
    " ",
    "  ",
    ".",
    ". ",
    "\n",
    "\n\n",
    "1. ",
    "According to ",
    "<think>",
    "</think>",
    "~~~\n",
    "**",
    "# ",
    "|",
    "[3]:",
    "。",
    "，",
]
_WORDS = "the grass is green sky blue water life energy sun moon city fusion hydrogen paper model".split()


def expertqa_cases() -> Iterator[tuple[str, list[Any], str]]:
    """(name, source items, answer) of every ExpertQA answer (the shipped subset without ../shared)."""
    path = SHARED / "expertqa_domain_test_attributed_answers.jsonl"
    if not path.is_file():
        path = ROOT / "tests" / "data" / "expertqa_subset.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        by_n = {p["n"]: p for p in row["passages"]}
        items = [
            {
                "text": (by_n.get(n, {}).get("text") or "").strip() or "(no text)",
                "url": by_n.get(n, {}).get("url"),
            }
            for n in range(1, max(by_n, default=0) + 1)
        ]
        yield f"expertqa/{row['id']}", items, row["answer"]


def _generated() -> Iterator[tuple[str, list[Any], str]]:
    """bench_core's generated queries: over the Paul Graham essay (``bench/...``, only where the shared
    data holds it: the essay may not be copied into the project) and over the seeded synthetic prose
    (``bench-prose/...``, everywhere), so a clone without ``../shared`` checks the cases it can build."""
    from bench.bench_core import make_answer, make_sources

    texts = [("bench-prose", essay_or_prose(2000, data=False))]
    essay = SHARED / "paul_graham_essay.txt"
    if essay.is_file():
        texts.insert(0, ("bench", essay.read_text(encoding="utf-8")))
    for prefix, text in texts:
        for n, size in ((20, 1000), (10, 4000), (5, 300)):
            items = make_sources(n, size, text)
            for seed in range(3):
                yield f"{prefix}/{n}x{size}/{seed}", items, make_answer(items, seed=seed)


def _soup() -> Iterator[tuple[str, list[Any], str]]:
    rng = random.Random(1234)
    items = [
        {"text": "The grass is green. The sky is blue. Water is essential for life.", "title": "Nature"},
        {"text": "Hydrogen fuses into helium in the core of the Sun. This releases energy.", "title": "Sun"},
        {"text": "The Moon orbits the Earth. It has no light of its own.", "url": "https://example.org/moon"},
    ]
    for i in range(400):
        parts = []
        for _ in range(rng.randint(3, 30)):
            if rng.random() < 0.45:
                parts.append(rng.choice(_SOUP))
            else:
                parts.append(" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 8))))
        yield f"soup/{i}", items, "".join(parts)


def _multilingual() -> Iterator[tuple[str, list[Any], str]]:
    es = [
        {
            "text": "En un lugar de la Mancha vivía un hidalgo. Tenía una lanza y un rocín flaco.",
            "title": "Quijote",
        },
        {"text": "El sol es una estrella. Produce energía por fusión nuclear.", "title": "Sol"},
    ]
    zh = [
        {"text": "太阳是一颗恒星。它通过核聚变产生能量。", "title": "太阳"},
        {"text": "月亮绕着地球转。它本身不发光。", "title": "月亮"},
    ]
    yield "es/1", es, "El hidalgo tenía un rocín flaco [1]. El sol produce energía por fusión [2]."
    yield "es/2", es, "Según [2], el sol es una estrella, y el hidalgo vivía en la Mancha [1][2]."
    yield "zh/1", zh, "太阳通过核聚变产生能量【1】。月亮本身不发光[2]。"
    yield "zh/2", zh, "月亮绕着地球转［2］，太阳是恒星[1, 2]。"


def cases() -> Iterator[tuple[str, list[Any], str]]:
    yield from expertqa_cases()
    yield from _generated()
    yield from _soup()
    yield from _multilingual()


_LATER_FIELDS = {"stopped_in_reasoning": False}
"""Answer fields added after most cases were recorded: left out at this default, so adding one changes
only the cases where it says something."""


def _answer_json(answer: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(answer.model_dump_json())
    for key, default in _LATER_FIELDS.items():
        if data.get(key, default) == default:
            data.pop(key, None)
    return data


def _event(event: Any) -> Any:
    if hasattr(event, "model_dump"):
        return event.model_dump(mode="json")
    return {k: (v.model_dump(mode="json") if hasattr(v, "model_dump") else v) for k, v in vars(event).items()}


def _streamed(text: str, sources: list[Any], cuts: list[int]) -> dict[str, Any]:
    stream = CitationStream(sources)
    events: list[Any] = []
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    for a, b in zip(bounds, bounds[1:]):
        events += stream.feed(text[a:b])
    answer = stream.finish()
    events += stream.pending_events()
    return {"answer": _answer_json(answer), "events": [_event(e) for e in events]}


def record(name: str, items: list[Any], text: str) -> dict[str, Any]:
    """Everything the parser says about one case: the whole parse and four streamed parses."""
    sources = number_sources(items)
    out: dict[str, Any] = {"name": name, "whole": _answer_json(parse_answer(text, sources))}
    rng = random.Random(name)
    for label, step in (("1", 1), ("7", 7), ("64", 64)):
        out[f"stream_{label}"] = _streamed(text, sources, list(range(step, len(text), step)))
    out["stream_random"] = _streamed(text, sources, [rng.randrange(1, max(2, len(text))) for _ in range(12)])
    return out


def digests() -> dict[str, str]:
    result = {}
    for name, items, text in cases():
        blob = json.dumps(record(name, items, text), sort_keys=True, ensure_ascii=False)
        result[name] = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.golden", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check", "write", "dump"])
    parser.add_argument("folder", nargs="?", help="with dump: where to write one JSON file per case")
    args = parser.parse_args(argv)
    if args.command == "dump":
        folder = Path(args.folder or "golden-dump")
        folder.mkdir(parents=True, exist_ok=True)
        for name, items, text in cases():
            data = json.dumps(record(name, items, text), sort_keys=True, ensure_ascii=False, indent=1)
            (folder / (name.replace("/", "__") + ".json")).write_text(
                data, encoding="utf-8", errors="surrogatepass"
            )
        print(f"golden: dumped to {folder}")
        return 0
    current = digests()
    if args.command == "write":
        GOLDEN.write_text(json.dumps(current, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"golden: wrote {len(current)} cases to {GOLDEN.relative_to(ROOT)}")
        return 0
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    changed = sorted(k for k in current if k in expected and current[k] != expected[k])
    missing = sorted(set(expected) - set(current))
    new = sorted(set(current) - set(expected))
    print(f"golden: {len(current)} cases, {len(changed)} changed, {len(missing)} missing, {len(new)} new")
    for name in changed[:40]:
        print(f"  changed: {name}")
    if missing and SHARED.is_dir():
        print(f"  missing: {missing[:10]}")
    ok = not changed and (not missing or not SHARED.is_dir())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
