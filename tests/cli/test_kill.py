"""Kill ``cite ingest`` (SIGINT and SIGKILL) at random points of a re-ingest: every file stays whole.

A corpus is ingested (version A), then every file changes (version B), one is deleted and one added, and
a re-ingest in a subprocess is killed after a random delay. Afterwards each file's visible chunks must be
exactly its A chunks or exactly its B chunks (a deleted file: A or nothing; a new file: nothing or B).
A final run must finish the job and leave nothing over. Small corpus by default; set
``CITE_KILL_FILES=2000`` (and ``CITE_KILL_ROUNDS``) for a larger run.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cite_cli.__main__ import main
from cite_cli._documents import chunk_document, read_document
from cite_cli._search import visible_chunks
from cite_cli._store import Store

REPO = Path(__file__).resolve().parents[2]
FILES = int(os.environ.get("CITE_KILL_FILES", "40"))
ROUNDS = int(os.environ.get("CITE_KILL_ROUNDS", "2"))
ARGS = ["--quiet", "--chunk-size", "200", "--overlap", "50"]


def text(i: int, version: str) -> str:
    # every 20th file is long enough to be written in several batches
    sentences = 1200 if i % 20 == 0 else 3 + i % 7
    return " ".join(f"File {i} version {version} sentence {k} about topic{i % 13}." for k in range(sentences))


def chunks_of(path: Path) -> list[str]:
    return [c.text for c in chunk_document(read_document(path), size=200, overlap=50)]


def visible(folder: Path, names: list[str]) -> dict[str, list[str]]:
    store = Store(create=False)
    try:
        return {n: [c["text"] for c in visible_chunks(store, str((folder / n).resolve()))] for n in names}
    finally:
        store.close()


def run_killed(folder: Path, work: Path, sig: int, delay: float) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITE_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cite_cli", "ingest", str(folder), *ARGS],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=600)
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_killed_reingest_leaves_every_file_whole(
    tmp_path: Path, workdir: Path, capsys: pytest.CaptureFixture[str], sig: int
) -> None:
    rng = random.Random(sig)
    interrupted = mid_run = 0
    for round_ in range(ROUNDS):
        folder = tmp_path / f"corpus{round_}"
        folder.mkdir()
        names = [f"f{i:05d}.txt" for i in range(FILES)]
        for i, name in enumerate(names):
            (folder / name).write_text(text(i, "A"), encoding="utf-8")
        start = time.monotonic()
        assert main(["ingest", str(folder), *ARGS]) == 0
        took = time.monotonic() - start
        a = {n: chunks_of(folder / n) for n in names}
        for i, name in enumerate(names):
            (folder / name).write_text(text(i, "B"), encoding="utf-8")
        deleted, added = names[1], f"f{FILES:05d}.txt"
        (folder / deleted).unlink()
        (folder / added).write_text(text(FILES, "B"), encoding="utf-8")
        b = {n: chunks_of(folder / n) for n in [*names, added] if n != deleted}

        # the subprocess also pays for starting Python and opening the index; the first round's kill comes
        # before the in-process ingest time has passed, so it lands before the end even on a loaded machine
        delay = rng.uniform(0.2, 0.2 + took) if round_ == 0 else rng.uniform(0.5, 1.5 + took)
        code, err = run_killed(folder, workdir, sig, delay)
        interrupted += code != 0
        if code == 130:
            assert "every other file keeps its previous version" in err
        assert "Traceback" not in err or (sig == signal.SIGINT and "KeyboardInterrupt" in err)

        seen = visible(folder, [*names, added])
        for name in names:
            allowed = [a[name], []] if name == deleted else [a[name], b[name]]
            assert seen[name] in allowed, (round_, name, code, len(seen[name]))
        assert seen[added] in ([], b[added])
        new = sum(seen[n] == b.get(n) for n in names if n != deleted)
        mid_run += 0 < new < len(names) - 1
        print(f"round {round_}: signal {sig}, exit {code}, {new} of {len(names) - 1} changed files new")

        capsys.readouterr()
        assert main(["ingest", str(folder), *ARGS]) == 0
        assert visible(folder, [*names, added]) == {**b, deleted: []}
        store = Store(create=False)
        try:
            assert store.count() == 1 + len(b) + sum(len(c) for c in b.values())
        finally:
            store.close()
        shutil.rmtree(workdir / ".cite")
    assert interrupted >= 1  # at least one kill landed before the run finished
    print(f"{interrupted} of {ROUNDS} runs killed before the end, {mid_run} with some files new, some old")
