"""Every bad option value ends as one ``cite: error:`` line with exit status 2; hints name real extras."""

from __future__ import annotations

import ast
import builtins
import io
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cite_cli.__main__ import main

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


BAD_INGEST = [
    ["--chunk-size", "x"],
    ["--chunk-size", "10"],
    ["--chunk-size", "-5"],
    ["--overlap", "-1"],
    ["--overlap", "5000"],
    ["--overlap", "1.5"],
    ["--dense", "nonsense"],
    ["--dense", "nope:model"],
    ["--qdrant-url", "http://127.0.0.1:{port}"],
    ["--collection", "../escape"],
    ["--collection", ""],
    ["--unknown-option"],
]
BAD_ASK = [
    ["--top-k", "0"],
    ["--top-k", "many"],
    ["--max-tokens", "0"],
    ["--max-tokens", "-3"],
    ["--max-tokens", "lots"],
    ["--base-url", "ftp://example.invalid"],
    ["--html", "/nonexistent-folder/answer.html"],
    ["--json", "--markdown"],
    ["--collection", "missing"],
    ["--path", "/nonexistent-index"],
    ["--dense", "st"],
]


def check_one_error_line(code: int, out: str, err: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err + out
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1].startswith("cite: error: ")
    assert not [line for line in lines if not line.startswith("cite:")]


@pytest.mark.parametrize("bad", BAD_INGEST, ids=lambda b: " ".join(b) or "empty")
def test_ingest_bad_values(
    bad: list[str], corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = [b.format(port=free_port()) for b in bad]
    check_one_error_line(*run(capsys, "ingest", str(corpus), "--quiet", *bad))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("index")
    (folder / "sky.txt").write_text("The sky is blue because of Rayleigh scattering.", encoding="utf-8")
    assert main(["ingest", str(folder / "sky.txt"), "--quiet", "--path", str(folder / "qdrant")]) == 0
    return folder / "qdrant"


@pytest.mark.parametrize("bad", BAD_ASK, ids=" ".join)
def test_ask_bad_values(
    bad: list[str], index: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = [] if "--path" in bad else ["--path", str(index)]
    check_one_error_line(*run(capsys, "ask", "Why is the sky blue?", *bad, *where))


def test_bad_commands_and_paths(workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("The sky is blue.", encoding="utf-8")
    for argv in (
        [],
        ["frobnicate"],
        ["ask", "   "],
        ["list"],
        ["remove", "x.txt"],
        ["ingest", str(a_file), "--path", str(a_file)],  # the index folder is a file
        ["ask", "Why?", "--path", str(a_file)],
    ):
        check_one_error_line(*run(capsys, *argv))


def test_max_tokens_too_small_is_an_error_not_a_traceback(
    corpus: Path, workdir: Path, fake_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from cite_core import TokenizerUnavailableError, get_encoding

    try:
        get_encoding()
    except TokenizerUnavailableError:
        pytest.skip("no tiktoken encoding on disk: the budget is not counted offline")
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(
        capsys, "ask", "Why is the sky blue?", "--base-url", fake_model.url, "--max-tokens", "100"
    )
    check_one_error_line(code, out, err)
    assert "max_tokens=100" in err and not fake_model.requests


# distribution names for the modules the CLI imports on demand
DISTRIBUTION = {
    "qdrant_client": "qdrant-client",
    "tqdm": "tqdm",
    "langchain_openai": "langchain-openai",
    "fastembed": "fastembed",
    "sentence_transformers": "sentence-transformers",
    "langchain": "langchain",
}


def extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    table = data["project"]["optional-dependencies"]
    return {name: [re.split(r"[<>=\[ ;]", dep)[0] for dep in deps] for name, deps in table.items()}


def test_every_install_hint_names_an_extra_with_the_package() -> None:
    table = extras()
    calls = []
    for path in (REPO / "cite_cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "require":
                args = [a.value for a in node.args if isinstance(a, ast.Constant)]
                calls.append((args[0], args[2] if len(args) > 2 else "cli"))
    assert len(calls) >= 5
    for module, extra in calls:
        assert DISTRIBUTION[module.split(".")[0]] in table[extra], (module, extra)
    # init_chat_model (CITE_MODEL=provider:model) comes from the 'langchain' package, in [cli]
    assert "langchain" in table["cli"]
    llm = (REPO / "cite_cli" / "_llm.py").read_text(encoding="utf-8")
    assert (
        "the extra cite-anything[cli] (in a clone: pip install -e '.[cli]') plus the provider's package"
        in llm
    )


def test_dense_hint_names_the_dense_extra(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "fastembed", None)
    code, out, err = run(capsys, "ingest", str(corpus), "--dense", "fastembed:BAAI/bge-small-en-v1.5")
    check_one_error_line(code, out, err)
    assert "cite-anything[dense] (in a clone of the repository: pip install -e '.[dense]')" in err
    assert "fastembed" in extras()["dense"]


def test_example_runs_without_a_tokenizer(tmp_path: Path) -> None:
    """examples/core_any_chat_api.py in a core-only install: no tiktoken encoding on disk, no network."""
    example = str(REPO / "examples" / "core_any_chat_api.py")
    code = (
        "import sys, runpy; sys.modules['tiktoken'] = None; "
        f"sys.argv = ['x', 'What color is the grass?']; runpy.run_path({example!r}, run_name='__main__')"
    )
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "The grass is green[1]" in done.stdout and "no token budget" in done.stderr
    assert "Traceback" not in done.stderr


def test_pdf_noise_is_not_printed(workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 this is not really a pdf")
    captured = io.StringIO()
    import logging

    handler = logging.StreamHandler(captured)
    logging.getLogger().addHandler(handler)
    try:
        code, out, err = run(capsys, "ingest", str(bad), "--strict")
    finally:
        logging.getLogger().removeHandler(handler)
    check_one_error_line(code, out, err)
    assert err.count("\n") == 1 and captured.getvalue() == ""


def test_an_interrupt_while_the_index_opens_says_no_file_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C before ingest's own handler (opening and checking the index) still says what was kept."""
    import cite_cli._ingest

    def interrupted(*args: Any, **kwargs: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cite_cli._ingest, "ingest", interrupted)
    code, _, err = run(capsys, "ingest", str(tmp_path), "--path", str(tmp_path / "index"))
    assert code == 130
    assert "0 file(s) updated; every other file keeps its previous version" in err


@pytest.mark.parametrize("command", ["ingest", "ask"])
def test_an_interrupt_while_cite_core_loads_says_what_was_kept(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while ``main`` imports cite_core (slow on a loaded machine, before any command's handler):
    ingest says no file changed, as an interrupted write does (test_kill's SIGINT round met the bare line);
    every other command prints the one bare line."""
    real_import = builtins.__import__

    def importing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "cite_core":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", importing)
    argv = [str(tmp_path)] if command == "ingest" else ["Why?"]
    code, _, err = run(capsys, command, *argv, "--path", str(tmp_path / "index"))
    assert code == 130
    if command == "ingest":
        assert err == (
            "cite: interrupted: 0 file(s) updated; every other file keeps its previous version "
            "(run the same command again to finish)\n"
        )
    else:
        assert err == "cite: interrupted\n"
