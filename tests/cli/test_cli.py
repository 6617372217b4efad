"""The ``cite`` command end to end: ingest into embedded Qdrant, ask with each answerer, errors."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cite_cli.__main__ import main

REPO = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_ingest_and_ask_extractive(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ingest", str(corpus))
    assert code == 0, err
    assert "indexed 4 file(s)" in err
    assert (workdir / ".cite" / "qdrant").is_dir()

    code, out, err = run(capsys, "ask", "Why is the sky blue?", "--html", "answer.html")
    assert code == 0, err
    assert (out + err).count("no LLM configured") == 1 and "no LLM configured" in err  # said once
    assert out.count("Note: Extractive answer") == 1  # the answer is labelled as extractive
    assert "Rayleigh scattering [1]." not in out  # markers are printed without the space
    assert "because of Rayleigh scattering[1]." in out
    assert "References" in out and "[1] sky" in out and "sky.txt" in out
    assert "“The daytime sky looks blue because of Rayleigh scattering.”" in out
    page = (workdir / "answer.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert "Why is the sky blue?" in page and "cite-marker" in page
    assert page.count("Extractive answer") == 1  # the page says so too, as the terminal does


def test_json_output_has_the_anthropic_shape(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "When did Rayleigh describe the scattering of light?", "--json")
    assert code == 0, err
    message = json.loads(out)
    assert (
        message["type"] == "message" and message["role"] == "assistant" and message["model"] == "extractive"
    )
    cited = [b for b in message["content"] if b.get("citations")]
    assert cited
    for block in message["content"]:
        assert set(block) <= {"type", "text", "citations"} and block["type"] == "text"
    pdf = [c for b in cited for c in b["citations"] if c["type"] == "page_location"]
    assert pdf, message
    citation = pdf[0]
    assert set(citation) == {
        "type",
        "cited_text",
        "document_index",
        "document_title",
        "start_page_number",
        "end_page_number",
    }
    assert citation["document_title"] == "optics"
    assert (citation["start_page_number"], citation["end_page_number"]) == (2, 3)
    assert "1871" in citation["cited_text"]


def test_chinese_question(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "天空为什么是蓝色的？", "--markdown")
    assert code == 0, err
    assert "瑞利散射[\\[1\\]](#ref-1)。" in out
    assert '1. <a id="ref-1"></a>[天空](file:///' in out  # linked to the file, path and quote follow


def test_ask_with_openai_compatible_server(
    corpus: Path, workdir: Path, fake_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(
        capsys,
        "ask",
        "Why is the sky blue and who described it?",
        "--base-url",
        fake_model.url,
        "--model",
        "recorded",
    )
    assert code == 0, err
    assert "extractive" not in out + err
    request = fake_model.requests[0]
    assert request["model"] == "recorded" and request["stream"] is True
    assert "Rayleigh" in json.dumps(request["messages"])
    first, rest = out.split("\n", 1)
    assert first == (
        "The sky is blue because shorter wavelengths are scattered much more strongly[1]. "
        "Rayleigh described this scattering in 1871[2]. An invented source."
    )
    assert "[1] sky" in rest and "[2] optics" in rest and "p. 2" in rest
    assert "[42]" not in first and "Note: Markers that pointed at no source were removed: [42]" in rest

    # the same through the environment, with JSON output
    os.environ["CITE_BASE_URL"] = fake_model.url
    try:
        code, out, err = run(capsys, "ask", "Why is the sky blue and who described the scattering?", "--json")
    finally:
        del os.environ["CITE_BASE_URL"]
    assert code == 0, err
    blocks = json.loads(out)["content"]
    assert [c["document_title"] for b in blocks for c in b.get("citations", [])] == ["sky", "optics"]


def test_streaming_prints_markers_as_they_resolve(
    corpus: Path,
    workdir: Path,
    fake_model: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys as _sys

    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    writes: list[str] = []
    real_write = _sys.stdout.write
    monkeypatch.setattr(_sys.stdout, "write", lambda s: (writes.append(s), real_write(s))[1])
    assert main(["ask", "Why is the sky blue and who described it?", "--base-url", fake_model.url]) == 0
    assert "[1]" in writes and "[2]" in writes  # each marker is its own write, between text deltas
    assert writes.index("[1]") < writes.index("[2]")
    before = "".join(writes[: writes.index("[1]")])
    assert before.endswith("scattered much more strongly")


def test_unreachable_model(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    url = f"http://127.0.0.1:{free_port()}/v1"
    code, _out, err = run(capsys, "ask", "Why is the sky blue?", "--base-url", url)
    assert code == 2
    assert err.strip().splitlines()[-1].startswith(f"cite: error: cannot reach the model at {url}")


def test_unreachable_qdrant(workdir: Path, corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    for argv in (["ingest", str(corpus)], ["ask", "anything"]):
        code, _out, err = run(capsys, *argv, "--qdrant-url", url)
        assert code == 2
        assert err.strip().startswith(f"cite: error: cannot reach Qdrant at {url}")
        assert len(err.strip().splitlines()) == 1


def test_no_index_yet(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "ask", "Why is the sky blue?")
    assert code == 2
    assert err == "cite: error: no index yet at .cite/qdrant (run `cite ingest PATH...` first)\n"
    code, _out, err = run(capsys, "ask", "Why?", "--path", str(workdir / "elsewhere"))
    assert code == 2 and "no index yet" in err


def test_missing_collection(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, _out, err = run(capsys, "ask", "Why?", "--collection", "other")
    assert code == 2 and "collection 'other' not found" in err


def test_empty_folder(workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "image.png").write_bytes(b"\x89PNG")
    code, _out, err = run(capsys, "ingest", str(empty))
    assert code == 2
    assert err == f"cite: error: no .txt, .md or .pdf files in folder {empty}\n"
    assert not (workdir / ".cite").exists()


def test_unreadable_files_are_named(
    workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --strict a file that cannot be read stops the run (without: tests/cli/test_files.py)."""
    bad_pdf = tmp_path / "broken.pdf"
    bad_pdf.write_bytes(b"%PDF-1.4 this is not really a pdf")
    code, _out, err = run(capsys, "ingest", str(bad_pdf), "--strict")
    assert code == 2 and err.startswith(f"cite: error: cannot read {bad_pdf}") and err.count("\n") == 1

    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    code, _out, err = run(capsys, "ingest", str(latin), "--strict")
    assert code == 2 and err.startswith(f"cite: error: cannot read {latin}: not UTF-8")

    missing = tmp_path / "missing.md"
    code, _out, err = run(capsys, "ingest", str(missing))
    assert code == 2 and err == f"cite: error: no such file or folder: {missing}\n"

    if os.geteuid() != 0:  # root reads everything
        locked = tmp_path / "locked.txt"
        locked.write_text("text", encoding="utf-8")
        locked.chmod(0)
        code, _out, err = run(capsys, "ingest", str(locked), "--strict")
        assert code == 2 and err.startswith(f"cite: error: cannot read {locked}")


def test_reingest_replaces_a_document(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet")[0] == 0
    (corpus / "sky.txt").write_text("The sky is green on planet Zorg, said nobody.\n", encoding="utf-8")
    assert run(capsys, "ingest", str(corpus / "sky.txt"), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "What colour is the sky?", "--json")
    assert code == 0, err
    text = json.dumps(json.loads(out))
    assert "Zorg" in text and "Rayleigh" not in text


def test_model_without_langchain_is_a_clear_error(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    monkeypatch.setitem(sys.modules, "langchain", None)
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    code, _out, err = run(capsys, "ask", "Why?", "--model", "openai:gpt-4o-mini")
    assert code == 2 and "needs the 'langchain' package" in err and "--base-url" in err


def test_ingest_the_projects_docs(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = REPO / "docs"
    if not any(docs.glob("*.md")):
        pytest.skip("docs/ is empty")
    assert run(capsys, "ingest", str(docs), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "How is the reference list built?", "--json")
    assert code == 0, err
    blocks = json.loads(out)["content"]
    assert any(b.get("citations") for b in blocks)


def test_console_script_in_a_subprocess(corpus: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITE_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    work = tmp_path / "sub"
    work.mkdir()

    def cite(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "cite_cli", *argv]
        return subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, check=False)

    done = cite("ask", "Why?")
    assert done.returncode == 2 and "no index yet" in done.stderr
    done = cite("ingest", str(corpus))
    assert done.returncode == 0, done.stderr
    done = cite("ask", "Why are leaves green?")
    assert done.returncode == 0, done.stderr
    assert "reflects green light" in done.stdout and "\033[" not in done.stdout


def test_cli_imports_only_public_core_names() -> None:
    for path in (REPO / "cite_cli").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "cite_core._" not in text, path.name


def test_two_part_question_retrieves_for_each_part(
    tmp_path: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    # many documents about the sky crowd out the one about leaves for the whole question
    for i in range(12):
        (folder / f"sky{i}.txt").write_text(
            f"The sky is blue because of scattering, note {i}. Why the sky is blue: scattering.\n", "utf-8"
        )
    (folder / "leaves.txt").write_text("Leaves are green because of chlorophyll.\n", encoding="utf-8")
    assert run(capsys, "ingest", str(folder), "--quiet")[0] == 0
    code, out, err = run(
        capsys,
        "ask",
        "Why is the sky blue? Why is the sky blue at noon? Why are leaves green?",
        "--json",
        "--top-k",
        "3",
    )
    assert code == 0, err
    cited = [c["cited_text"] for b in json.loads(out)["content"] for c in b.get("citations", [])]
    assert any("chlorophyll" in c for c in cited) and any("sky" in c for c in cited)
