"""Streaming cost per character, side by side with Onyx's ``DynamicCitationProcessor``.

    python bench/bench_stream.py               # table; --json for machine-readable output
    python bench/bench_stream.py --answers 100 --repeat 5

The first 100 ExpertQA answers (``../shared/data``; the shipped 12-answer subset when absent) with their
passages as sources. For each answer, in one run: ``CitationStream`` construction + feed + finish on
fresh sources with our caches cleared (8-character and 1-character chunks, and whole ``parse_answer``),
and Onyx's processor (mapping set up + ``process_token`` per chunk + the final flush). Each figure is
the sum over answers of the best of ``--repeat`` runs, divided by the number of characters.

Where the time goes (``--json`` key ``phases``; the same answers, best of ``--repeat`` each, per
character of answer text): the analysis of every source of the answer (sentence units, terms and
term statistics, measured as ``parse_answer`` of a one-marker answer on fresh sources), the parse of
the answer with its markers removed (lexer and assembler only: no claim is localised), the
localisation of each citation (the whole parse minus those two, per citation), and the cost of
streaming per chunk (the stream minus the whole parse, per ``feed`` call). ``Corpus.cite`` alone is timed
too: every ``cite`` call the whole parse of each answer made, replayed on fresh sources whose units and
statistics are built first, caches cleared (``python bench/bench_stream.py --cite-only`` prints that
figure alone).

Onyx's file is not part of this repository: copy ``backend/onyx/chat/citation_processor.py`` from
onyx-dot-app/onyx (MIT outside ``ee/``) into ``bench/peers/_fetched/onyx_citation_processor.py`` with
its imports replaced by stand-ins (``CitationMode``, ``SearchDoc``, ``CitationInfo``; that folder is
git-ignored). Without it the peer columns are skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.golden import expertqa_cases  # noqa: E402
from cite_core import CitationStream, clear_caches, number_sources, parse_answer  # noqa: E402

ONYX = ROOT / "bench" / "peers" / "_fetched" / "onyx_citation_processor.py"


def answers(limit: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """(answer text, source items) of the first ``limit`` ExpertQA answers, as the golden dump reads them."""
    return [(answer, items) for _, items, answer in islice(expertqa_cases(), limit)]


def load_onyx() -> Any:
    if not ONYX.is_file():
        return None
    spec = importlib.util.spec_from_file_location("onyx_citation_processor", ONYX)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def ours_stream(text: str, items: list[dict[str, Any]], size: int) -> tuple[float, set[int]]:
    sources = number_sources(items)
    clear_caches()
    pieces = chunks(text, size)
    start = time.perf_counter()
    stream = CitationStream(sources)
    for piece in pieces:
        stream.feed(piece)
    answer = stream.finish()
    stream.pending_events()
    elapsed = time.perf_counter() - start
    return elapsed, {r.source.number for r in answer.references}


def ours_whole(text: str, items: list[dict[str, Any]]) -> float:
    sources = number_sources(items)
    clear_caches()
    start = time.perf_counter()
    parse_answer(text, sources)
    return time.perf_counter() - start


_MARKER = re.compile(r"[ \t]*\[\d+(?:\s*[,;\-–]\s*\d+)*\]")


def ours_parse(text: str, items: list[dict[str, Any]]) -> tuple[float, int]:
    """``parse_answer`` on fresh sources with our caches cleared: (seconds, citations made)."""
    sources = number_sources(items)
    clear_caches()
    start = time.perf_counter()
    answer = parse_answer(text, sources)
    return time.perf_counter() - start, len(answer.citations)


def phases(
    data: list[tuple[str, list[dict[str, Any]]]], repeat: int, streams: dict[int, float]
) -> dict[str, Any]:
    """Where the time goes, in µs per character (and per citation, per chunk), from the same answers."""
    chars = sum(len(text) for text, _ in data)
    analysis = plain = whole = 0.0
    citations = 0
    for text, items in data:
        analysis += best(lambda i=items: ours_parse("x [1].", i), repeat)[0]
        plain += best(lambda t=text, i=items: ours_parse(_MARKER.sub("", t), i), repeat)[0]
        seconds, made = best(lambda t=text, i=items: ours_parse(t, i), repeat)
        whole += seconds
        citations += made
    localise = max(whole - analysis - plain, 0.0)
    alone, calls = cite_alone(data, repeat)
    out: dict[str, Any] = {
        "cite_alone_us_per_citation": alone / max(calls, 1) * 1e6,
        "citations": citations,
        "source_analysis_us_per_char": analysis / chars * 1e6,
        "lexer_assembler_us_per_char": plain / chars * 1e6,
        "localisation_us_per_char": localise / chars * 1e6,
        "localisation_us_per_citation": localise / max(citations, 1) * 1e6,
        "whole_parse_us_per_char": whole / chars * 1e6,
    }
    for size, total in streams.items():
        feeds = sum(-(-len(text) // size) for text, _ in data)
        out[f"stream_{size}_overhead_us_per_chunk"] = max(total - whole, 0.0) / feeds * 1e6
        out[f"stream_{size}_overhead_us_per_char"] = max(total - whole, 0.0) / chars * 1e6
    return out


def cite_calls(data: list[tuple[str, list[dict[str, Any]]]]) -> list[list[tuple[int, str, int, Any]]]:
    """Every ``Corpus.cite`` call (source number, claim, reference, sentences) of each answer's parse."""
    from cite_core._locate import localize as _localize  # the recording hook wraps the library's own method

    recorded: list[list[tuple[int, str, int, Any]]] = []
    original = _localize.Corpus.cite

    def spy(self: Any, source: Any, claim: str, *, reference: int, sentences: Any = None) -> Any:
        recorded[-1].append((source.number, claim, reference, sentences))
        return original(self, source, claim, reference=reference, sentences=sentences)

    _localize.Corpus.cite = spy  # type: ignore[method-assign]
    try:
        for text, items in data:
            recorded.append([])
            parse_answer(text, number_sources(items))
    finally:
        _localize.Corpus.cite = original  # type: ignore[method-assign]
    return recorded


def cite_alone(data: list[tuple[str, list[dict[str, Any]]]], repeat: int) -> tuple[float, int]:
    """Seconds of the answers' ``Corpus.cite`` calls alone (sum over answers of the best of ``repeat``),
    each answer's sources analysed and its statistics built first, caches cleared; and the call count."""
    from cite_core._locate import localize as _localize

    total = 0.0
    recorded = cite_calls(data)
    for (_, items), calls in zip(data, recorded):

        def once(items: list[dict[str, Any]] = items, calls: list[Any] = calls) -> float:
            sources = number_sources(items)
            clear_caches()
            corpus = _localize.Corpus(sources)
            corpus.stats  # noqa: B018  # every source analysed, statistics built
            start = time.perf_counter()
            for number, claim, reference, sentences in calls:
                corpus.cite(corpus.by_number[number], claim, reference=reference, sentences=sentences)
            return time.perf_counter() - start

        total += best(once, repeat)
    return total, sum(map(len, recorded))


def onyx_stream(onyx: Any, text: str, items: list[dict[str, Any]], size: int) -> tuple[float, set[int]]:
    docs = {n: onyx.SearchDoc(document_id=f"d{n}", link=item.get("url")) for n, item in enumerate(items, 1)}
    pieces = chunks(text, size)
    start = time.perf_counter()
    processor = onyx.DynamicCitationProcessor()
    processor.update_citation_mapping(docs)
    for piece in pieces:
        for _ in processor.process_token(piece):
            pass
    for _ in processor.process_token(None):
        pass
    elapsed = time.perf_counter() - start
    return elapsed, set(processor.seen_citations)


def best(fn: Any, repeat: int) -> Any:
    results = [fn() for _ in range(repeat)]
    return min(results, key=lambda r: r[0] if isinstance(r, tuple) else r)


def run(limit: int, repeat: int) -> dict[str, Any]:
    data = answers(limit)
    onyx = load_onyx()
    chars = sum(len(text) for text, _ in data)
    result: dict[str, Any] = {"answers": len(data), "chars": chars, "repeat": repeat, "rows": []}
    streams: dict[int, float] = {}
    for size in (8, 1):
        ours_total = onyx_total = 0.0
        agree = 0
        for text, items in data:
            t, cited = best(lambda t=text, i=items, z=size: ours_stream(t, i, z), repeat)
            ours_total += t
            if onyx is not None:
                u, seen = best(lambda t=text, i=items, z=size: onyx_stream(onyx, t, i, z), repeat)
                onyx_total += u
                agree += cited == seen
        streams[size] = ours_total
        row = {"chunking": f"{size}-character chunks", "ours_us_per_char": ours_total / chars * 1e6}
        if onyx is not None:
            row["onyx_us_per_char"] = onyx_total / chars * 1e6
            row["ratio"] = ours_total / onyx_total
            row["same_cited_sources"] = agree
        result["rows"].append(row)
    whole = sum(best(lambda t=text, i=items: ours_whole(t, i), repeat) for text, items in data)
    result["rows"].append({"chunking": "whole parse_answer", "ours_us_per_char": whole / chars * 1e6})
    result["phases"] = phases(data, repeat, streams)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cite-only", action="store_true", help="time Corpus.cite alone, nothing else")
    args = parser.parse_args()
    if args.cite_only:
        data = answers(args.answers)
        alone, calls = cite_alone(data, args.repeat)
        per = alone / max(calls, 1) * 1e6
        print(f"{len(data)} answers, {calls} citations: Corpus.cite alone {per:.1f} µs per citation")
        return
    result = run(args.answers, args.repeat)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{result['answers']} answers, {result['chars']:,} characters, best of {result['repeat']}")
    print("| chunking | CitationStream µs/char | Onyx µs/char | ratio | same cited sources |")
    print("|---|---|---|---|---|")
    for row in result["rows"]:
        onyx = f"{row['onyx_us_per_char']:.3f}" if "onyx_us_per_char" in row else "-"
        ratio = f"{row['ratio']:.2f}" if "ratio" in row else "-"
        agree = f"{row['same_cited_sources']}/{result['answers']}" if "same_cited_sources" in row else "-"
        print(f"| {row['chunking']} | {row['ours_us_per_char']:.3f} | {onyx} | {ratio} | {agree} |")
    ph = result["phases"]
    print(f"\nwhere the time goes (µs per answer character; {ph['citations']} citations):")
    lines = [
        ("source analysis (units, terms, statistics of every source)", ph["source_analysis_us_per_char"], ""),
        ("lexer + assembler (the answer without its markers)", ph["lexer_assembler_us_per_char"], ""),
        (
            "localisation of the citations",
            ph["localisation_us_per_char"],
            f" ({ph['localisation_us_per_citation']:.1f} µs per citation)",
        ),
    ]
    lines.append(
        ("Corpus.cite alone (sources analysed first), µs per citation", ph["cite_alone_us_per_citation"], "")
    )
    for size in (8, 1):
        per_chunk = ph[f"stream_{size}_overhead_us_per_chunk"]
        lines.append(
            (
                f"streaming in {size}-character chunks, beyond the whole parse",
                ph[f"stream_{size}_overhead_us_per_char"],
                f" ({per_chunk:.2f} µs per chunk)",
            )
        )
    for label, value, note in lines:
        print(f"  {label + ':':62} {value:.3f}{note}")


if __name__ == "__main__":
    main()
