"""Citation offsets point into the file itself, CRLF line ends included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cite_cli.__main__ import main


def test_crlf_file_offsets_are_the_files_own(
    tmp_path: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [f"Line {i} is filler about nothing in particular." for i in range(40)]
    lines[25] = "The heliotrope flower turns toward the sun during the day."
    raw = "\r\n".join(lines) + "\r\n"
    path = tmp_path / "crlf.txt"
    path.write_bytes(("\ufeff" + raw).encode("utf-8"))  # a byte order mark as well
    assert main(["ingest", str(path), "--quiet", "--chunk-size", "300", "--overlap", "50"]) == 0
    capsys.readouterr()
    assert main(["ask", "Which flower turns toward the sun?", "--json"]) == 0
    message = json.loads(capsys.readouterr().out)
    citations = [c for b in message["content"] for c in b.get("citations", [])]
    assert citations
    text = path.read_bytes().decode("utf-8-sig")  # the file as decoded: offsets count its characters
    assert text.count("\r\n") == 40
    for c in citations:
        assert c["type"] == "char_location"
        assert text[c["start_char_index"] : c["end_char_index"]] == c["cited_text"]
    assert any("heliotrope" in c["cited_text"] for c in citations)
