"""``cite ask`` checks everything it can before calling a model, and an interrupt is one clean line
(issue 32 item 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cite_cli.__main__ import main

REPO = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("html", "why"),
    [
        ("missing/dir/a.html", "no such folder missing/dir"),
        (".", "it is a folder"),
    ],
)
def test_an_html_path_that_cannot_be_written_fails_before_the_model_is_called(
    html: str,
    why: str,
    corpus: Path,
    workdir: Path,
    fake_model: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "Why is the sky blue?", "--base-url", fake_model.url, "--html", html)
    assert (code, out) == (2, "")
    assert err == f"cite: error: cannot write --html {html}: {why}\n"
    assert not fake_model.requests  # no paid call wasted


def test_option_values_out_of_range_fail_before_the_index_opens(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "ask", "Why?", "--top-k", "100000")
    assert code == 2 and err == "cite: error: --top-k must be between 1 and 1000, got 100000\n"
    assert not (workdir / ".cite").exists()


def test_max_tokens_is_honoured_offline_as_online(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cite_core import TokenizerUnavailableError, get_encoding

    try:
        get_encoding()
    except TokenizerUnavailableError:
        pytest.skip("no tiktoken encoding on disk: the budget is not counted offline")
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "Why is the sky blue?", "--max-tokens", "10")
    assert code == 2 and out == "" and err.splitlines()[-1].startswith("cite: error: ")
    assert "max_tokens=10" in err
    # a budget for the best source only: the others are dropped and the notes say so, as online
    code, out, err = run(capsys, "ask", "Why is the sky blue?", "--max-tokens", "260", "--json")
    assert code == 0, err
    assert '"kind": "dropped_sources"' in out


@pytest.mark.parametrize(
    ("argv", "suggestion", "command"),
    [
        (["ask", "Why?", "--jsn"], "--jsn (did you mean --json?)", "ask"),
        (["ask", "Why?", "--verfy"], "--verfy (did you mean --verify?)", "ask"),
        (["ask", "Why?", "--top_k=3"], "--top_k=3 (did you mean --top-k?)", "ask"),
        (["ingest", "docs", "--strikt"], "--strikt (did you mean --strict?)", "ingest"),
    ],
)
def test_a_mistyped_option_names_the_closest_one_and_its_commands_help(
    argv: list[str], suggestion: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err == f"cite: error: unrecognized arguments: {suggestion} (see `cite {command} --help`)\n"


def test_an_unknown_word_gets_no_made_up_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["ask", "Why?", "--zzzzzz"])
    assert (
        capsys.readouterr().err == "cite: error: unrecognized arguments: --zzzzzz (see `cite ask --help`)\n"
    )


def test_starting_cite_imports_only_the_standard_library() -> None:
    """What an interrupt can meet before ``main`` runs: nothing that could print a traceback of its own."""
    code = "import sys, cite_cli.__main__; print(sorted(m for m in sys.modules if m.startswith('cite_core')))"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a subprocess is POSIX")
def test_an_interrupt_at_any_moment_prints_one_clean_line(tmp_path: Path) -> None:
    """SIGINT at points spread over a whole `cite ask` (imports, index, answer): never a traceback."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "sky.txt").write_text("The sky is blue because of Rayleigh scattering.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "cite_cli"]
    subprocess.run([*argv, "ingest", str(folder), "--quiet"], cwd=tmp_path, env=env, check=True, timeout=120)
    start = time.monotonic()
    subprocess.run(
        [*argv, "ask", "Why is the sky blue?"], cwd=tmp_path, env=env, capture_output=True, check=True
    )
    whole = time.monotonic() - start
    # from step 1: a SIGINT in the first milliseconds lands in CPython's own start-up (site, runpy, frozen
    # importlib) or the first standard-library imports before main()'s try, where only the interpreter's
    # handler can answer (a probe under load saw 6 of 80 such runs print a KeyboardInterrupt traceback,
    # all 0-20 ms after the start, none from 60 ms on); the steps that follow cover the rest. Closing that
    # window (SIGINT to its default action before any import) is noted in docs/cli.md as left open
    for step in range(1, 9):
        proc = subprocess.Popen(
            [*argv, "ask", "Why is the sky blue?"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(whole * step / 8)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
        if proc.returncode == 130:
            assert err.splitlines()[-1] == "cite: interrupted", err
            assert sum(line.startswith("cite: interrupted") for line in err.splitlines()) == 1
        else:  # before Python's handler was set (killed by the signal), or after the work was done
            assert proc.returncode in (-signal.SIGINT, 0), (proc.returncode, err)


def _interrupt_turned_into(error: Exception) -> Any:
    """A store opener that gets Ctrl-C and, as pydantic-core did while qdrant-client imported under load
    (``SchemaError: ... KeyboardInterrupt``), raises its own error in its place."""

    def open_store(args: Any, *, create: bool) -> Any:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1_000_000):  # the handler runs at the next bytecode boundaries
                pass
        except KeyboardInterrupt:
            raise error from None
        raise AssertionError("SIGINT was not delivered")

    return open_store


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("Error building 'enum' validator: KeyboardInterrupt: "),
        OSError("database is locked"),  # the storage handler's own kind
    ],
    ids=["library-error", "storage-error"],
)
@pytest.mark.parametrize("command", ["ask", "ingest"])
def test_an_interrupt_a_library_turned_into_another_error_is_still_one_clean_line(
    command: str,
    error: Exception,
    corpus: Path,
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cite_cli.__main__ as cli

    monkeypatch.setattr(cli, "_open_store", _interrupt_turned_into(error))
    argv = ["ask", "Why is the sky blue?"] if command == "ask" else ["ingest", str(corpus), "--quiet"]
    code, _, err = run(capsys, *argv)
    assert code == 130, err
    assert "Traceback" not in err and "error" not in err, err
    assert err.splitlines()[-1].startswith("cite: interrupted"), err
    assert sum(line.startswith("cite: interrupted") for line in err.splitlines()) == 1, err
    if command == "ingest":
        assert "0 file(s) updated" in err
    # Python's own handler is back once `main` returns
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_same_error_without_an_interrupt_is_not_taken_for_one(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import cite_cli.__main__ as cli

    failures: list[Exception] = [RuntimeError("a library failed"), OSError("disk full")]

    def open_store(args: Any, *, create: bool) -> Any:
        raise failures.pop(0)

    monkeypatch.setattr(cli, "_open_store", open_store)
    with pytest.raises(RuntimeError, match="a library failed"):
        main(["ask", "Why is the sky blue?"])
    code, _, err = run(capsys, "ask", "Why is the sky blue?")
    assert code == 2 and err.startswith("cite: error:") and "interrupted" not in err, err


def test_an_interrupt_a_finaliser_swallowed_is_delivered_again(
    workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C inside a finaliser or a library's callback is only "Exception ignored in ..." for Python (a
    traceback, then the command goes on as if no key was pressed: seen under load in qdrant-client's
    import); `cite` delivers it again, so the command still ends in one line."""
    import cite_cli.__main__ as cli

    class Finalised:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1_000_000):  # the handler raises here, where Python can only ignore it
                pass

    def open_store(args: Any, *, create: bool) -> Any:
        Finalised()  # dropped at once: its __del__ runs now
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the second delivery lands in this ordinary loop
            time.sleep(0.001)
        raise AssertionError("the interrupt was swallowed for good")

    monkeypatch.setattr(cli, "_open_store", open_store)
    code, _, err = run(capsys, "ask", "Why is the sky blue?")
    assert code == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.splitlines()[-1] == "cite: interrupted", err
    assert sys.unraisablehook is sys.__unraisablehook__ or "cite_cli" not in repr(sys.unraisablehook)
