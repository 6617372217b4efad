"""The index checks itself: lost chunks are repaired by the next ingest, damaged storage is a clear
``cite: error:`` (exit 2) that says what to run, never a traceback or a misleading message."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from cite_cli import _store
from cite_cli.__main__ import main

INDEX = Path(".cite") / "qdrant"
CHUNKS = INDEX / "collection" / "cite" / "storage.sqlite"
RECORDS = INDEX / "collection" / "cite__files" / "storage.sqlite"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cite: error: "), err
    assert "Traceback" not in err and "older version" not in err
    return lines[0]


@pytest.fixture
def indexed(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    return corpus


def test_lost_chunks_are_reported_then_repaired_by_the_next_ingest(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    CHUNKS.write_bytes(b"")  # what a crash or a bad copy leaves: the records without their chunks
    for command in (["list"], ["ask", "Why is the sky blue?", "--json"]):
        code, _out, err = run(capsys, *command)
        assert code == 2
        line = one_error(err)
        assert "lost the chunks of 4 of 4 file(s)" in line and "cite ingest" in line
    code, _out, err = run(capsys, "ingest", str(indexed), "--quiet")
    assert code == 0, err
    assert "had lost the chunks of 4 file(s), indexed again" in err and "4 changed, 0 unchanged" in err
    code, out, err = run(capsys, "ask", "Why is the sky blue?", "--json")
    assert code == 0 and "Rayleigh" in out, err


def test_lost_chunks_of_files_not_given_are_named(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    CHUNKS.write_bytes(b"")
    code, _out, err = run(capsys, "ingest", str(indexed / "sky.txt"), "--quiet")
    assert code == 0, err
    assert "indexed again: " in err and "lost the chunks of 3 other file(s)" in err
    assert run(capsys, "list")[0] == 2


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda: os.truncate(CHUNKS, 8192), id="truncated-chunk-storage"),
        pytest.param(lambda: CHUNKS.write_bytes(os.urandom(20480)), id="overwritten-chunk-storage"),
        pytest.param(lambda: RECORDS.write_bytes(b""), id="emptied-record-storage"),
        pytest.param(lambda: RECORDS.write_bytes(os.urandom(12288)), id="overwritten-record-storage"),
        pytest.param(lambda: (INDEX / "meta.json").write_text("{garbage"), id="damaged-meta-json"),
        pytest.param(
            lambda: (INDEX / "meta.json").write_text('{"collections": {}}'), id="meta-json-lost-lists"
        ),
    ],
)
def test_damaged_storage_is_one_clear_error(
    indexed: Path, capsys: pytest.CaptureFixture[str], damage: object
) -> None:
    damage()  # type: ignore[operator]
    for command in (["list"], ["ask", "Why is the sky blue?", "--json"], ["ingest", str(indexed), "--quiet"]):
        code, _out, err = run(capsys, *command)
        if command[0] == "ingest" and code == 0:
            continue  # ingest repaired it (a meta.json that lost its list is rebuilt)
        assert code == 2, (command, err)
        line = one_error(err)
        assert "damaged" in line and "cite ingest" in line, line


def test_a_full_disk_is_a_clear_error(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_args: object, **_kwargs: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(_store.Store, "upsert", full)
    code, _out, err = run(capsys, "ingest", str(corpus), "--quiet")
    assert code == 2
    line = one_error(err)
    assert "disk is full" in line and "run the same command again" in line
