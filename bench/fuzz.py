"""Coverage-guided fuzzing of the parser, the sentence segmenter and number_sources, for a fixed budget.

    python bench/fuzz.py --seconds 300 --target parser      # atheris (pip install atheris), libFuzzer
    python bench/fuzz.py --seconds 60 --target all          # each target in turn, a summary at the end

Each target checks invariants, not only "no exception": the parser's streamed answer (under a chunking
the fuzzer chooses) equals the whole parse, every ``cited_text`` is ``source.text[start:end]``, the
references are the cited sources in order of first appearance and the renumbering is a bijection, and
the answer serialises to JSON; the segmenter's spans are ordered, trimmed and cover every non-space
character; ``number_sources`` either raises ``SourceError`` or returns sources whose segments sit at
their offsets. A failing input is saved under ``bench/results/fuzz/`` (libFuzzer's ``crash-*`` file);
turn it into a test in tests/robustness/test_regressions.py. Without atheris, ``--engine hypothesis``
(the default when atheris is missing) runs the same checks on hypothesis-generated input for the budget.
The inputs and the invariants are in bench/fuzz_checks.py; this file runs the engines.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "fuzz"
TARGETS = ("parser", "segmenter", "sources")
sys.path.insert(0, str(ROOT))

from bench.fuzz_checks import (  # noqa: E402
    SEEDS,
    TOKENS,
    check_parser,
    check_segmenter,
    check_sources,
    make_sources,
    measure_holdback,
)

# -- atheris ---------------------------------------------------------------------------------------


def decode_parser_input(data: bytes) -> tuple[str, list[int]]:
    """The answer text and the chunk boundaries the fuzzer chose (also for ``--replay``)."""
    import atheris

    fdp = atheris.FuzzedDataProvider(data)
    cuts = [fdp.ConsumeIntInRange(1, 64) for _ in range(fdp.ConsumeIntInRange(0, 12))]
    text = (
        fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
        if fdp.ConsumeBool()
        else fdp.ConsumeUnicode(fdp.remaining_bytes())
    )
    positions, total = [], 0
    for step in cuts:
        total += step
        positions.append(total)
    return text, positions


def atheris_main(target: str) -> None:
    """Entry point inside the libFuzzer process (argv holds libFuzzer flags)."""
    import atheris

    with atheris.instrument_imports(include=["cite_core"]):
        import cite_core  # noqa: F401
        from cite_core._answer import parser as _parser  # noqa: F401
        from cite_core._sources import numbering as _sources  # noqa: F401
        from cite_core._sources import segment as _segment  # noqa: F401
        from cite_core._stream import lexer as _lexer  # noqa: F401
        from cite_core._stream import line_starts as _line_starts  # noqa: F401
        from cite_core._stream import markers as _markers  # noqa: F401
        from cite_core._stream import tags as _tags  # noqa: F401
    sources = make_sources()

    def parser_input(data: bytes) -> None:
        check_parser(*decode_parser_input(data), sources)

    def segmenter_input(data: bytes) -> None:
        check_segmenter(atheris.FuzzedDataProvider(data).ConsumeUnicode(len(data)))

    def sources_input(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        items: list = []  # type: ignore[type-arg]
        for _ in range(fdp.ConsumeIntInRange(0, 4)):
            kind = fdp.ConsumeIntInRange(0, 5)
            text = fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 40))
            if kind == 0:
                items.append(text)
            elif kind == 1:
                items.append(
                    {
                        "text": text,
                        "title": fdp.ConsumeUnicode(8),
                        "document_id": str(fdp.ConsumeIntInRange(0, 2)),
                        "start_index": fdp.ConsumeIntInRange(0, 30),
                    }
                )
            elif kind == 2:
                items.append(
                    {"pages": [text, fdp.ConsumeUnicode(10)], "first_page": fdp.ConsumeIntInRange(0, 3)}
                )
            elif kind == 3:
                items.append({"blocks": [text, {"type": "text", "text": fdp.ConsumeUnicode(10)}]})
            elif kind == 4:
                items.append({"text": text, "score": fdp.ConsumeFloat(), "page": fdp.ConsumeIntInRange(0, 3)})
            else:
                items.append({"type": "document", "source": {"type": "text", "data": text}})
        check_sources(items)

    test = {"parser": parser_input, "segmenter": segmenter_input, "sources": sources_input}[target]
    atheris.Setup(sys.argv, test)
    atheris.Fuzz()


def _dict_entry(token: str) -> str:
    """A libFuzzer dictionary line: the UTF-8 bytes, printable ASCII as is, the rest as \\xNN."""
    body = "".join(
        chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else f"\\x{c:02X}" for c in token.encode("utf-8")
    )
    return f'"{body}"'


def run_atheris(target: str, seconds: int) -> dict:  # type: ignore[type-arg]
    out = RESULTS / target
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(SEEDS):
        (corpus / f"seed-{i}").write_bytes(seed.encode("utf-8"))
    dictionary = out / "tokens.dict"
    dictionary.write_text("\n".join(_dict_entry(t) for t in TOKENS) + "\n", encoding="ascii")
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        target,
        f"-max_total_time={seconds}",
        "-max_len=2048",
        "-timeout=20",
        "-rss_limit_mb=3072",
        f"-dict={dictionary}",
        f"-artifact_prefix={out}/",
        "-print_final_stats=1",
        str(corpus),
    ]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", check=False)
    log = proc.stdout + proc.stderr
    (out / "last.log").write_text(log, encoding="utf-8")
    stats = {}
    for line in log.splitlines():
        if line.startswith("stat::"):
            key, _, value = line[6:].partition(":")
            stats[key.strip()] = value.strip()
    crashes = sorted(p.name for p in out.glob("crash-*")) + sorted(p.name for p in out.glob("timeout-*"))
    return {
        "target": target,
        "engine": "atheris",
        "seconds": round(time.perf_counter() - start, 1),
        "runs": int(stats.get("number_of_executed_units", 0)),
        "exit_code": proc.returncode,
        "crashes": (crashes or [f"exit code {proc.returncode}, see {out}/last.log"])
        if proc.returncode
        else [],
        "corpus_files": len(list(corpus.iterdir())),
        "peak_rss_mb": int(stats.get("peak_rss_mb", 0)),
    }


# -- hypothesis fallback ---------------------------------------------------------------------------


def run_hypothesis(target: str, seconds: int) -> dict:  # type: ignore[type-arg]
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    sources = make_sources()
    text = st.one_of(
        st.text(st.characters(codec=None, exclude_categories=()), max_size=200),
        st.lists(st.sampled_from(TOKENS + SEEDS + ["a", " ", ".", "\n"]), max_size=60).map("".join),
    )
    runs = 0
    deadline = time.monotonic() + seconds
    failure = None
    while time.monotonic() < deadline and failure is None:
        if target == "parser":

            @given(text, st.lists(st.integers(1, 300), max_size=20))
            def prop(t: str, cuts: list[int]) -> None:
                check_parser(t, cuts, sources)
        elif target == "segmenter":

            @given(text)
            def prop(t: str) -> None:
                check_segmenter(t)
        else:

            @given(
                st.lists(
                    st.one_of(
                        text,
                        st.fixed_dictionaries({"text": text, "title": text}),
                        st.fixed_dictionaries({"pages": st.lists(text, max_size=3)}),
                    ),
                    max_size=4,
                )
            )
            def prop(items: list) -> None:  # type: ignore[type-arg]
                check_sources(items)

        batch = 500
        try:
            settings(
                max_examples=batch, deadline=None, database=None, suppress_health_check=list(HealthCheck)
            )(prop)()
        except Exception as exc:
            failure = f"{type(exc).__name__}: {exc}"[:2000]
        runs += batch
    return {
        "target": target,
        "engine": "hypothesis",
        "seconds": seconds,
        "runs": runs,
        "crashes": [failure] if failure else [],
    }


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        target = sys.argv[2]
        sys.argv = [sys.argv[0], *sys.argv[3:]]
        sys.path.insert(0, str(ROOT))
        atheris_main(target)
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=60, help="budget per target")
    parser.add_argument("--target", choices=[*TARGETS, "all"], default="all")
    parser.add_argument("--engine", choices=["atheris", "hypothesis"], default=None)
    parser.add_argument("--replay", type=Path, help="print the parser input (text, cuts) of a crash file")
    parser.add_argument("--holdback", action="store_true", help="print the measured hold-back per construct")
    args = parser.parse_args()
    if args.holdback:
        sys.path.insert(0, str(ROOT))
        print(json.dumps(measure_holdback(), indent=1))
        return
    if args.replay:
        text, cuts = decode_parser_input(args.replay.read_bytes())
        print(json.dumps({"text": text, "cuts": cuts}))
        sys.path.insert(0, str(ROOT))
        check_parser(text, cuts, make_sources())
        return
    engine = args.engine
    if engine is None:
        try:
            import atheris  # noqa: F401

            engine = "atheris"
        except ImportError:
            print("atheris is not installed (pip install atheris): using hypothesis for the budget")
            engine = "hypothesis"
    sys.path.insert(0, str(ROOT))
    results = []
    for target in TARGETS if args.target == "all" else (args.target,):
        result = (
            run_atheris(target, args.seconds) if engine == "atheris" else run_hypothesis(target, args.seconds)
        )
        results.append(result)
        print(json.dumps(result), flush=True)
    failed = [r for r in results if r["crashes"]]
    print(
        f"{len(results)} target(s), {sum(r['runs'] for r in results):,} executions, "
        f"{sum(len(r['crashes']) for r in results)} crash(es)"
    )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
