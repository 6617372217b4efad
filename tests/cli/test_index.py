"""The index stays equal to the folder: deletions, renames, unchanged files, list, remove, --prune."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cite_cli import _ingest
from cite_cli.__main__ import main
from cite_cli._documents import chunk_document, read_document
from cite_cli._search import visible_chunks
from cite_cli._store import Store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def listed(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    code, out, err = run(capsys, "list", "--json")
    assert code == 0, err
    return {row["path"]: row for row in map(json.loads, out.splitlines())}


def visible(path: Path) -> list[str]:
    store = Store(create=False)
    try:
        return [c["text"] for c in visible_chunks(store, str(path.resolve()))]
    finally:
        store.close()


def asked(capsys: pytest.CaptureFixture[str], question: str) -> str:
    code, out, err = run(capsys, "ask", question, "--json", "--top-k", "20")
    assert code == 0, err
    return out


def test_deleted_and_renamed_files_leave_the_index(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    assert len(listed(capsys)) == 4
    (corpus / "leaves.md").unlink()
    (corpus / "sky.txt").rename(corpus / "heaven.txt")
    code, _out, err = run(capsys, "ingest", str(corpus), "--quiet")
    assert code == 0, err
    assert "1 new, 0 changed, 2 unchanged, 2 removed" in err
    paths = {Path(p).name for p in listed(capsys)}
    assert paths == {"heaven.txt", "天空.txt", "optics.pdf"}
    text = asked(capsys, "Why is the sky blue? Rayleigh scattering of sunlight")
    assert "heaven" in text and "sky.txt" not in text
    code, _out, err = run(capsys, "ask", "chlorophyll", "--json")
    assert code == 2 and "nothing in the index matches" in err  # the deleted file's chunks are gone
    hits = json.loads(asked(capsys, "Rayleigh scattering shorter wavelengths"))
    titles = [c["document_title"] for b in hits["content"] for c in b.get("citations", [])]
    assert "heaven" in titles and "sky" not in titles


def test_rename_of_a_single_file_is_not_a_duplicate(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet")[0] == 0
    (corpus / "sky.txt").rename(corpus / "blue.txt")
    assert run(capsys, "ingest", str(corpus / "blue.txt"), "--quiet")[0] == 0
    assert [Path(p).name for p in listed(capsys)] == ["blue.txt"]


def test_unchanged_files_are_skipped_by_content_hash(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    before = listed(capsys)
    (corpus / "sky.txt").touch()  # a new mtime, the same bytes
    _code, _out, err = run(capsys, "ingest", str(corpus), "--quiet")
    assert "0 new, 0 changed, 4 unchanged, 0 removed" in err
    assert listed(capsys) == before
    # other chunking settings re-index every file
    _code, _out, err = run(capsys, "ingest", str(corpus), "--quiet", "--chunk-size", "300", "--overlap", "50")
    assert "0 new, 4 changed, 0 unchanged" in err


def test_list_remove_and_prune(
    corpus: Path, workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "moon.txt").write_text("The moon reflects sunlight.\n", encoding="utf-8")
    assert run(capsys, "ingest", str(corpus), str(other), "--quiet")[0] == 0
    code, out, err = run(capsys, "list")
    assert code == 0 and len(out.splitlines()) == 5 and "5 file(s)" in err
    # ingesting one folder keeps what came from another; --prune drops it
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    assert len(listed(capsys)) == 5
    code, out, err = run(capsys, "ingest", str(corpus), "--quiet", "--prune")
    assert "1 removed" in err and len(listed(capsys)) == 4
    # remove a file and a folder (paths need not exist on disk)
    (corpus / "sky.txt").unlink()
    code, out, err = run(capsys, "remove", str(corpus / "sky.txt"), str(corpus / "sub"))
    assert code == 0 and "removed 2 file(s)" in err
    assert {Path(p).name for p in listed(capsys)} == {"leaves.md", "optics.pdf"}
    code, out, err = run(capsys, "remove", str(corpus / "nothing.txt"))
    assert code == 2 and err.startswith("cite: error: not in the index:")


def test_interrupted_reingest_keeps_the_old_version(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    long = " ".join(f"Sentence number {i} talks about blue skies." for i in range(1000))
    (corpus / "sky.txt").write_text(long, encoding="utf-8")
    assert (
        run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet", "--chunk-size", "200", "--overlap", "50")[0]
        == 0
    )
    old = visible(corpus / "sky.txt")
    assert len(old) > 256  # written in several batches

    (corpus / "sky.txt").write_text(long.replace("blue", "green"), encoding="utf-8")
    calls = {"n": 0}
    real = _ingest.write_chunks

    def interrupted(store: Store, items: object) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        real(store, items)  # type: ignore[arg-type]

    monkeypatch.setattr(_ingest, "write_chunks", interrupted)
    code, _out, err = run(
        capsys, "ingest", str(corpus / "sky.txt"), "--quiet", "--chunk-size", "200", "--overlap", "50"
    )
    assert code == 130 and "0 file(s) updated" in err and "previous version" in err
    assert visible(corpus / "sky.txt") == old
    assert "green" not in asked(capsys, "What colour are the skies?")

    monkeypatch.setattr(_ingest, "write_chunks", real)
    code, _out, err = run(
        capsys, "ingest", str(corpus / "sky.txt"), "--quiet", "--chunk-size", "200", "--overlap", "50"
    )
    assert code == 0 and "cleaned up an interrupted run: 0 file(s) kept their new version, 1" in err
    new = visible(corpus / "sky.txt")
    doc = read_document((corpus / "sky.txt").resolve())
    assert new == [c.text for c in chunk_document(doc, size=200, overlap=50)]
    store = Store(create=False)
    try:
        assert store.count() == 1 + 1 + len(new)  # meta, file record, chunks: nothing left over
    finally:
        store.close()


def test_interrupted_after_commit_finishes_on_the_next_run(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet")[0] == 0
    (corpus / "sky.txt").write_text("The sky is green on planet Zorg.\n", encoding="utf-8")
    real = Store.delete
    calls = {"n": 0}

    def interrupted(self: Store, ids: list[str], **kwargs: bool) -> None:
        calls["n"] += 1
        if calls["n"] == 1:  # the commit's deletion of the old chunks
            raise KeyboardInterrupt
        real(self, ids, **kwargs)

    monkeypatch.setattr(Store, "delete", interrupted)
    code, _out, err = run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet")
    assert code == 130
    assert visible(corpus / "sky.txt") == ["The sky is green on planet Zorg."]
    text = asked(capsys, "What colour is the sky?")
    assert "Zorg" in text and "Rayleigh" not in text  # the old chunks are still stored, never returned
    monkeypatch.setattr(Store, "delete", real)
    code, _out, err = run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet")
    assert "1 file(s) kept their new version" in err and "0 new, 0 changed, 1 unchanged" in err
    store = Store(create=False)
    try:
        assert store.count() == 3
    finally:
        store.close()


def test_empty_files_and_other_types_are_reported(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (corpus / "empty.txt").write_text("  \n", encoding="utf-8")
    (corpus / "guide.rst").write_text("Title\n=====\n", encoding="utf-8")
    code, _out, err = run(capsys, "ingest", str(corpus), "--quiet")
    assert code == 0, err
    assert f"cite: not indexed, no text: {(corpus / 'empty.txt').resolve()}" in err
    assert "cite: skipped 2 file(s) of other types (.csv, .rst): cite reads .txt, .md and .pdf" in err
    assert "empty.txt" not in json.dumps(listed(capsys))
