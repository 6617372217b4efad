"""Every file name a message prints is one line, and every reason is the true one.

A line break in a file name printed as a line break (the error line ``cite: error: ...`` split in two,
``cite list`` showed two files) or as a space (``a b.txt``, another name); a symbolic link loop was "no
such file or folder" or "a broken link", a folder that cannot be listed was skipped without a word
(and the files indexed under it were removed as gone), and ``--html -`` wrote a file named ``-``.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from cite_cli.__main__ import main

GOOD = "The island ferries leave the harbour every morning at seven.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_line_break_in_a_file_name_is_shown_as_a_picture(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    odd = folder / "ferry\ntimes.txt"
    odd.write_text(GOOD, encoding="utf-8")
    code, _, err = run(capsys, "ingest", str(folder), "--quiet")
    assert code == 0, err
    code, out, _ = run(capsys, "list")
    assert out.count("\n") == 1 and out.rstrip().endswith(f"{folder}/ferry\u240atimes.txt")
    code, _, err = run(capsys, "ingest", str(folder / "missing\nfile.txt"))
    assert code == 2 and err == f"cite: error: no such file or folder: {folder}/missing\u240afile.txt\n"
    code, _, err = run(capsys, "remove", str(folder / "other\r.txt"))
    assert code == 2 and "other\u240d.txt" in err and err.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links")
def test_a_symbolic_link_loop_is_named_as_one(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferries.txt").write_text(GOOD, encoding="utf-8")
    (folder / "a.txt").symlink_to(folder / "b.txt")
    (folder / "b.txt").symlink_to(folder / "a.txt")
    code, _, err = run(capsys, "ingest", str(folder / "a.txt"))
    assert code == 2 and err.startswith(f"cite: error: cannot read {folder / 'a.txt'}: a symbolic link loop")
    code, _, err = run(capsys, "ingest", str(folder), "--quiet")
    assert code == 1 and "indexed 1 file(s)" in err
    assert f"{folder / 'a.txt'} (a symbolic link loop" in err and "broken links" not in err


def test_a_folder_that_cannot_be_listed_is_named_and_its_indexed_files_kept(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    (folder / "locked").mkdir(parents=True)
    (folder / "ferries.txt").write_text(GOOD, encoding="utf-8")
    (folder / "locked" / "tides.txt").write_text("The tide turns at noon.\n", encoding="utf-8")
    assert run(capsys, "ingest", str(folder), "--quiet")[0] == 0
    # what a folder without read permission does (the tests may run as root, who reads anything):
    # os.access says no and rglob lists nothing in it
    locked = folder / "locked"
    real_access, real_rglob = os.access, Path.rglob
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != locked and real_access(p, mode))
    monkeypatch.setattr(
        Path, "rglob", lambda self, pattern: (p for p in real_rglob(self, pattern) if p.parent != locked)
    )
    code, _, err = run(capsys, "ingest", str(folder), "--quiet")
    assert code == 1 and f"{locked} (a folder that cannot be listed)" in err
    assert "0 removed" in err  # its file is still there: not removed as gone
    code, out, _ = run(capsys, "list")
    assert str(locked / "tides.txt") in out


def test_permission_denied_is_said_so(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ferries.txt").write_text(GOOD, encoding="utf-8")
    secret = folder / "secret.txt"
    secret.write_text(GOOD.upper(), encoding="utf-8")
    real_open = os.open

    def refusing(path: object, flags: int, *args: object) -> int:
        if Path(str(path)) == secret:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refusing)
    code, _, err = run(capsys, "ingest", str(folder), "--quiet")
    assert code == 1 and f"{secret} (permission denied)" in err


def test_html_to_standard_output_is_refused(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "ask", "When do the ferries leave?", "--html", "-")
    assert code == 2 and err.startswith("cite: error: --html - is not standard output")
    assert not Path("-").exists()
