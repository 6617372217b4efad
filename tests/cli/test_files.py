"""``cite ingest`` survives any file name, file type and disk state (issue 32 item 4, issue 33 item 6).

A file that cannot be read is skipped, named, and the rest is indexed (exit 1; ``--strict`` stops);
FIFOs, devices, sockets and links to them are never opened; a name that is not valid UTF-8 never
reaches the index; a read-only index and a full disk are named as such, never "damaged, delete it".
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cite_cli import _store
from cite_cli.__main__ import main

REPO = Path(__file__).resolve().parents[2]
GOOD = "The island ferries leave the harbour every morning at seven.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def listed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    code, out, _ = run(capsys, "list")
    assert code == 0
    return [line.split()[-1] for line in out.splitlines()]


def test_a_file_that_cannot_be_read_is_skipped_named_and_the_rest_indexed(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferries.txt").write_text(GOOD, encoding="utf-8")
    (folder / "data.txt").write_bytes(bytes(range(128, 256)) * 20)  # random-looking bytes, not UTF-8
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    code, _, err = run(capsys, "ingest", str(folder), "--quiet")
    assert code == 1, err
    assert "indexed 1 file(s)" in err
    (line,) = [x for x in err.splitlines() if "cannot read" in x]
    assert line.startswith("cite: not indexed, cannot read 2 file(s): ")
    assert f"{folder / 'data.txt'} (not UTF-8 text (byte 0))" in line and str(folder / "broken.pdf") in line
    assert "--strict" in line
    assert listed(capsys) == [str(folder / "ferries.txt")]

    # a file that was indexed and became unreadable keeps its previous version, and says so
    (folder / "data.txt").write_text("Data about the island ferries.\n", encoding="utf-8")
    assert run(capsys, "ingest", str(folder), "--quiet")[0] == 1
    (folder / "data.txt").write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run(capsys, "ingest", str(folder), "--quiet")
    assert code == 1 and "1 keep their previously indexed version" in err
    assert str(folder / "data.txt") in listed(capsys)

    # --strict: the old behaviour, one error line and nothing changed
    (folder / "new.txt").write_text(GOOD, encoding="utf-8")
    code, _, err = run(capsys, "ingest", str(folder), "--quiet", "--strict")
    assert code == 2 and err.startswith("cite: error: cannot read ") and err.count("\n") == 1
    assert str(folder / "new.txt") not in listed(capsys)


def _specials(folder: Path) -> list[str]:
    os.mkfifo(folder / "pipe.txt")
    (folder / "zero.md").symlink_to("/dev/zero")
    (folder / "dangling.txt").symlink_to(folder / "nowhere.txt")
    names = ["pipe.txt", "zero.md", "dangling.txt"]
    if len(str(folder / "sock.txt")) < 100:  # AF_UNIX paths are short
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(folder / "sock.txt"))
        server.close()
        names.append("sock.txt")
    return names


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and device files are POSIX")
def test_fifos_devices_sockets_and_links_to_them_are_never_read(tmp_path: Path) -> None:
    """In a subprocess with a timeout: reading a FIFO waits for ever, /dev/zero never ends."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferries.txt").write_text(GOOD, encoding="utf-8")
    names = _specials(folder)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def cite(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cite_cli", *argv, "--path", str(tmp_path / "index")],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            cwd=tmp_path,
        )

    done = cite("ingest", str(folder), "--quiet")
    assert done.returncode == 0, done.stderr
    assert "indexed 1 file(s)" in done.stderr
    (note,) = [x for x in done.stderr.splitlines() if "special file" in x]
    assert note.startswith(f"cite: skipped {len(names)} special file(s)") and "never read" in note
    assert all(name in note for name in names)
    for name, kind in [("pipe.txt", "a FIFO"), ("zero.md", "a device")]:  # named: an error
        done = cite("ingest", str(folder / name))
        assert done.returncode == 2
        assert done.stderr == f"cite: error: {folder / name} is {kind}: cite reads regular files only\n"


def test_a_file_swapped_for_a_fifo_after_listing_is_not_read(tmp_path: Path) -> None:
    from cite_cli._documents import Unreadable, read_document

    os.mkfifo(tmp_path / "late.txt")
    with pytest.raises(Unreadable, match="a FIFO, not a regular file"):
        read_document(tmp_path / "late.txt")  # opened without blocking, checked before reading


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_names_that_are_not_utf8_are_reported_and_never_reach_the_index(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferries.txt").write_text(GOOD, encoding="utf-8")
    bad = os.fsencode(folder) + b"/caf\xe9.txt"
    with open(bad, "wb") as f:
        f.write(GOOD.encode())
    for _ in range(2):  # the second run finds nothing left over
        code, _, err = run(capsys, "ingest", str(folder), "--quiet")
        assert code == 1, err
        assert f"{folder}/caf\\xe9.txt (the name is not valid UTF-8: rename it to index it)" in err
        assert "Traceback" not in err and "cleaned up" not in err
    assert listed(capsys) == [str(folder / "ferries.txt")]
    code, _, err = run(capsys, "ingest", os.fsdecode(bad))
    assert (
        code == 2
        and err == f"cite: error: the name {folder}/caf\\xe9.txt is not valid UTF-8: rename it to index it\n"
    )


def test_a_journal_naming_a_file_that_is_not_utf8_does_not_wedge_the_index(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An older version journalled such a name and crashed; every later ingest crashed recovering it."""
    from cite_cli._store import FileRecord, Store
    from cite_cli._updates import begin

    (tmp_path / "ferries.txt").write_text(GOOD, encoding="utf-8")
    assert run(capsys, "ingest", str(tmp_path / "ferries.txt"), "--quiet")[0] == 0
    store = Store(create=False)
    try:
        begin(store, [(FileRecord(f"{tmp_path}/caf\udce9.txt", "0" * 64, 1, 1, "g", "s"), None)])
    finally:
        store.close()
    code, _, err = run(capsys, "ingest", str(tmp_path / "ferries.txt"), "--quiet")
    assert code == 0, err
    assert "cleaned up an interrupted run: 0 file(s) kept their new version, 1 their previous one" in err
    code, _, err = run(capsys, "ingest", str(tmp_path / "ferries.txt"), "--quiet")
    assert code == 0 and "cleaned up" not in err and "1 unchanged" in err


@pytest.mark.parametrize(
    ("error", "named"),
    [
        (sqlite3.OperationalError("attempt to write a readonly database"), "it is read-only"),
        (OSError(30, "Read-only file system"), "it is read-only"),
        (PermissionError(13, "Permission denied"), "it is read-only"),
        (sqlite3.OperationalError("database or disk is full"), "the disk is full"),
        (OSError(28, "No space left on device"), "the disk is full"),
    ],
)
def test_a_read_only_index_and_a_full_disk_are_named_never_damaged(
    error: Exception,
    named: str,
    workdir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "ferries.txt").write_text(GOOD, encoding="utf-8")
    assert run(capsys, "ingest", str(tmp_path / "ferries.txt"), "--quiet")[0] == 0
    (tmp_path / "ferries.txt").write_text(GOOD + "They run on Sundays too.\n", encoding="utf-8")

    def fail(*_args: object, **_kwargs: object) -> None:
        raise error

    monkeypatch.setattr(_store.Store, "upsert", fail)
    code, out, err = run(capsys, "ingest", str(tmp_path / "ferries.txt"), "--quiet")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"cite: error: cannot write the index at .cite/qdrant: {named}")
    assert "damaged" not in err and "delete" not in err and "run the same command again" in err
