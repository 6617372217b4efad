"""Progress counts bytes and chunks with rates and an ETA; one clear hint replaces Qdrant's size warning."""

from __future__ import annotations

import io
import re
import sys
import warnings
from pathlib import Path

import pytest

from cite_cli import _store
from cite_cli.__main__ import main


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_counts_bytes_and_chunks(
    tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.txt"
    big.write_text(" ".join(f"Sentence {i} is about the sky." for i in range(20000)), encoding="utf-8")
    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["ingest", str(big), "--chunk-size", "300", "--overlap", "50"]) == 0
    shown = err.getvalue()
    assert "chunks" in shown and "/s" in shown and "B/s" in shown  # chunks, bytes and their rates
    assert "<" in shown  # tqdm's elapsed<remaining: the ETA
    # the bar moved inside the one file (not 0/1 until the end)
    assert re.search(r"\b[1-9][0-9]?%\|", shown), shown


def test_size_hint_replaces_qdrant_warning(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from qdrant_client.local.local_collection import LocalCollection
    from qdrant_client.local.qdrant_local import QdrantLocal

    monkeypatch.setattr(_store, "LOCAL_LIMIT", 3)
    monkeypatch.setattr(LocalCollection, "LARGE_DATA_THRESHOLD", 3)
    monkeypatch.setattr(QdrantLocal, "LARGE_DATA_THRESHOLD", 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["ingest", str(corpus), "--quiet"]) == 0
        assert main(["ask", "Why is the sky blue?", "--json"]) == 0
    _out, err = capsys.readouterr()
    assert not [w for w in caught if "Local mode" in str(w.message)]
    hints = [line for line in err.splitlines() if line.startswith("hint:")]
    assert len(hints) == 2 and all("--qdrant-url" in h for h in hints)  # one per command
    assert "site-packages" not in err and "Local mode" not in err


def test_file_names_reach_the_terminal_without_escape_sequences(
    tmp_path: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file name is untrusted: an OSC 52 clipboard write or an OSC 0 title change in it is shown as
    text (control pictures), never sent to the terminal, by the progress bar and every other line."""
    folder = tmp_path / "docs"
    folder.mkdir()
    names = ["\x1b]52;c;ZWNobyBwd25lZA==\x07a.txt", "\x1b]0;owned\x07b.txt", "\x9b2Jc.txt"]
    for i, name in enumerate(names):
        (folder / name).write_text(f"Sentence {i} is about the sky. " * 50, encoding="utf-8")
    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(["ingest", str(folder)]) == 0
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["list"]) == 0
    shown = err.getvalue() + out.getvalue()
    assert "␛]52;c;ZWNobyBwd25lZA==␇" in shown  # the progress bar shows the name, cleaned
    for raw in ("\x1b]", "\x07", "\x9b"):
        assert raw not in shown
