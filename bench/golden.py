"""The golden dump: every parsed answer (whole and streamed) of a fixed corpus, for behaviour checks.

``python -m bench.golden check`` compares the current parser with ``tests/data/golden.json`` and prints
each differing field; ``python -m bench.golden write`` records the current behaviour (do it only in a
commit that says which behaviour changed and why: ``git diff`` of the file then shows the change);
``python -m bench.golden dump DIR`` writes every case in full (every event as streamed) so two trees
can be compared with ``diff -r``.

The file holds each case's canonical output (see :func:`canonical`): the answer's blocks, citations and
numbering, and what the stream said (its text and thinking joined, its citation events), written once
when the whole parse and the four streamed parses agree and per stream where one differs. The exact
event boundaries and the references' echoed sources are covered by the case's ``digest`` of the full
record, so nothing the parser says escapes the check.

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
import re
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


_LATER_FIELDS = {"stopped_in_reasoning": False, "truncated": False}
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


_STREAMS = ("stream_1", "stream_7", "stream_64", "stream_random")


def _citation(c: dict[str, Any]) -> dict[str, Any]:
    """A citation without the fields every citation of the dump repeats (its type)."""
    return {k: v for k, v in c.items() if k != "type"}


def _answer(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as the reader compares it: blocks and citations in full, references by number (each
    reference's source echoes the input and is covered by the digest)."""
    out = {k: v for k, v in answer.items() if k not in ("content", "references")}
    out["content"] = [_block(block) for block in answer["content"]]
    out["references"] = [[ref["number"], ref["source"]["number"]] for ref in answer["references"]]
    return out


def _block(block: dict[str, Any]) -> dict[str, Any]:
    """A block with its citations in full; its marker groups name their citations by where they point
    (``[document_index, source_start, source_end]``: the citation itself is in full in its block)."""
    out = {**block}
    if block["citations"] is not None:
        out["citations"] = [_citation(c) for c in block["citations"]]
    if block.get("marker_groups"):
        out["marker_groups"] = [
            {
                **group,
                "citations": [
                    [c["document_index"], c["source_start"], c["source_end"]] for c in group["citations"]
                ],
            }
            for group in block["marker_groups"]
        ]
    return out


def _said(events: list[dict[str, Any]]) -> list[Any]:
    """What a stream said, independent of how it was cut: runs of text (or thinking) deltas joined into
    one string, each citation event as [claim_start, claim_end, citation]."""
    said: list[Any] = []
    kind = None
    for event in events:
        if event["type"] in ("text_delta", "thinking_delta"):
            key = "text" if event["type"] == "text_delta" else "thinking"
            if kind == key:
                said[-1][key] += event[key]
            else:
                said.append({key: event[key]})
            kind = key
        else:
            kind = None
            if event["type"] == "citations_delta":
                said.append([event["claim_start"], event["claim_end"], _citation(event["citation"])])
            else:
                said.append(event)
    return said


def digest(full: dict[str, Any]) -> str:
    blob = json.dumps(full, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def canonical(full: dict[str, Any]) -> dict[str, Any]:
    """One case's canonical output from its full record: the whole answer, what the first stream said,
    any stream whose answer or telling differs from those, and the digest of the full record."""
    out: dict[str, Any] = {"answer": _answer(full["whole"]), "stream": _said(full["stream_1"]["events"])}
    for label in _STREAMS:
        answer, said = _answer(full[label]["answer"]), _said(full[label]["events"])
        if answer != out["answer"]:
            out[f"{label}_answer"] = answer
        if said != out["stream"]:
            out[label] = said
    out["digest"] = digest(full)
    return out


def current() -> dict[str, dict[str, Any]]:
    """Every case's canonical output, by name."""
    return {name: canonical(record(name, items, text)) for name, items, text in cases()}


def differences(expected: Any, got: Any, path: str = "") -> Iterator[str]:
    """Each field (``answer.content[3].citations[0].support``) where ``got`` differs from ``expected``."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in sorted(set(expected) | set(got), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in got:
                yield f"{where}: removed"
            elif key not in expected:
                yield f"{where}: added {_short(got[key])}"
            else:
                yield from differences(expected[key], got[key], where)
    elif isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        for i, (a, b) in enumerate(zip(expected, got)):
            yield from differences(a, b, f"{path}[{i}]")
    elif expected != got:
        yield f"{path}: {_short(expected)} -> {_short(got)}"


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def write(cases_out: dict[str, dict[str, Any]]) -> None:
    text = json.dumps(cases_out, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    # Lone surrogates (soup cases cut inside a pair) stay JSON escapes so the file is valid UTF-8.
    text = re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
    GOLDEN.write_text(text, encoding="utf-8")


def read() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


def changed_cases(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    return sorted(k for k in got if k in expected and got[k] != expected[k])


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
    got = current()
    if args.command == "write":
        write(got)
        print(f"golden: wrote {len(got)} cases to {GOLDEN.relative_to(ROOT)}")
        return 0
    expected = read()
    changed = changed_cases(expected, got)
    missing = sorted(set(expected) - set(got))
    new = sorted(set(got) - set(expected))
    print(f"golden: {len(got)} cases, {len(changed)} changed, {len(missing)} missing, {len(new)} new")
    for name in changed[:40]:
        print(f"  changed: {name}")
        fields = list(differences(expected[name], got[name]))
        for line in fields[:12]:
            print(f"    {line}")
        if len(fields) > 12:
            print(f"    ... {len(fields) - 12} more fields")
    if missing and SHARED.is_dir():
        print(f"  missing: {missing[:10]}")
    ok = not changed and (not missing or not SHARED.is_dir())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
