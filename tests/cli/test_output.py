"""Trust notes in every output format, and no terminal escape from a document or the model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cite_cli.__main__ import main

OSC8 = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
OSC0 = "\x1b]0;owned window title\x07"
CSI_CLEAR = "\x1b[2J\x1b[H"
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
C1_CSI = "\x9b31m"
BIDI = "\u202egnp.exe"
ATTACKS = OSC8 + OSC0 + CSI_CLEAR + OSC52 + C1_CSI + BIDI
OUR_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "sky.md").write_text(
        f"# Sky {OSC0} title {OSC8}\n\nThe sky is blue because of Rayleigh scattering {ATTACKS}. "
        "Sunlight is scattered by the molecules of the air.\n",
        encoding="utf-8",
    )
    (folder / f"optics{OSC0}.txt").write_text(
        "Lord Rayleigh described the scattering of light in 1871.\n", "utf-8"
    )  # a file name is printed too
    return folder


def model_answer() -> str:
    return (
        f"The sky is blue because of Rayleigh scattering {OSC52}[{{sky}}]. "
        f"Rayleigh described the scattering of light in 1871 [{{pdf}}]. {CSI_CLEAR}"
        "An invented source [42].\n\n"
        "Sources:\n[1] Sky\n[2] Optics\n"
    )


def assert_no_foreign_escapes(text: str) -> None:
    cleaned = OUR_COLOURS.sub("", text)
    assert "\x1b" not in cleaned and "\x9b" not in cleaned and "\u202e" not in cleaned
    assert "\x07" not in cleaned


@pytest.mark.parametrize("mode", [["--no-color"], ["--markdown"], ["--json"], ["--color-tty"]])
def test_no_escape_reaches_the_terminal(
    mode: list[str],
    hostile: Path,
    fake_model_class: Any,
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, out, err = run(capsys, "ingest", str(hostile), "--quiet")
    assert code == 0 and "\x1b" not in out + err
    code, out, err = run(capsys, "list")
    assert code == 0 and "\x1b" not in out + err and "optics␛]0;" in out
    if mode == ["--color-tty"]:
        import sys

        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
        mode = []
    with fake_model_class(model_answer()) as model:
        code, out, err = run(capsys, "ask", "Why is the sky blue?", "--base-url", model.url, *mode)
    assert code == 0, err
    if mode == ["--no-color"] or mode == ["--markdown"]:
        assert out.count("\x1b") == 0
    assert_no_foreign_escapes(out)
    assert_no_foreign_escapes(err)
    assert "Rayleigh scattering" in out
    # the extractive answer quotes the hostile text too
    code, out, err = run(capsys, "ask", "Why is the sky blue?", *mode)
    assert code == 0, err
    assert_no_foreign_escapes(out)
    if mode != []:
        assert out.count("\x1b") == 0


def test_trust_notes_in_every_format(
    corpus: Path, workdir: Path, fake_model_class: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    answer = (
        "The sky is blue because shorter wavelengths are scattered much more strongly [{sky}]. "
        "Penguins invented the telescope [{sky}]. An invented source [42].\n\nReferences:\n[1] sky\n"
    )
    question = "Why is the sky blue?"
    with fake_model_class(answer) as model:
        code, out, err = run(capsys, "ask", question, "--base-url", model.url, "--no-color")
        assert code == 0, err
        assert "Note: Markers that pointed at no source were removed: [42]" in out
        assert "Note: The model wrote its own reference list" in out
        assert "Note: Weak support" in out
        assert "\n\n\n" not in out.split("Note:")[0]

        code, out, err = run(capsys, "ask", question, "--base-url", model.url, "--json")
        message = json.loads(out)
        assert message["invalid_markers"] == ["[42]"]
        assert message["removed_reference_list"] and "[1] sky" in message["removed_reference_list"]
        assert [c["marker"] for c in message["unsupported_citations"]] == ["[1]"]
        kinds = {n["kind"] for n in message["notes"]}
        assert kinds == {"invalid_markers", "removed_reference_list", "unsupported"}
        assert message["extractive"] is False

        code, out, err = run(capsys, "ask", question, "--base-url", model.url, "--markdown")
        # each note once, quoted before the references (it was also printed a second time after them)
        assert out.count("Markers that pointed at no source were removed") == 1
        assert "> Markers that pointed at no source were removed: \\[42\\]" in out  # no &#91;42&#93;
        assert out.count("The model wrote its own reference list") == 1
        assert "> The model wrote its own reference list" in out
        assert out.index("> The model wrote") < out.index("**References**")

    code, out, err = run(capsys, "ask", question, "--json")
    message = json.loads(out)
    assert message["extractive"] is True and message["notes"][0]["kind"] == "extractive"
    code, out, err = run(capsys, "ask", question, "--markdown")
    assert out.count("Extractive answer") == 1 and "> Extractive answer" in out


def test_a_fake_marker_does_not_print_like_a_marker(
    corpus: Path, workdir: Path, fake_model_class: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """``[<U+202E>1]`` and ``[1<U+200B>]`` are not markers: the streamed terminal output, Markdown and
    HTML show the invisible character (``‹U+202E›``) instead of bytes identical to a real ``[1]``."""
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    answer = (
        "The sky is blue because shorter wavelengths scatter more [\u202e1]. Also [1\u200b] and "
        "[1\u200d]. Real [{sky}]."
    )
    html = workdir / "answer.html"
    with fake_model_class(answer) as model:
        code, out, err = run(capsys, "ask", "Why is the sky blue?", "--base-url", model.url, "--no-color")
        assert code == 0, err
        code, markdown, err = run(
            capsys, "ask", "Why is the sky blue?", "--base-url", model.url, "--markdown", "--html", str(html)
        )
        assert code == 0, err
    for shown in (out, markdown, html.read_text(encoding="utf-8")):
        assert "‹U+202E›1" in shown and "1‹U+200B›" in shown and "1‹U+200D›" in shown  # streamed, too
        assert "\u202e" not in shown and "\u200b" not in shown and "[1\u200d]" not in shown


def test_the_live_stream_shows_a_joiner_in_a_bracket_cut_between_pieces() -> None:
    """A bracket cut between streamed pieces waits for its end, so ``[1<U+200D>]`` is shown whole."""
    import io

    from cite_cli._output import LiveTerminal
    from cite_core import CitationStream, number_sources

    stream = CitationStream(number_sources(["The sky is blue."]))
    out = io.StringIO()
    live = LiveTerminal(out, color=False)
    for piece in ("Not a marker [1", "\u200d", "] (a note", " \u200d here) and done [1]."):
        for event in stream.feed(piece):
            live.event(event)
    answer = stream.finish()
    for event in stream.pending_events():
        live.event(event)
    live.finish(answer, [])
    shown = out.getvalue()
    assert "[1‹U+200D›]" in shown and "(a note ‹U+200D› here)" in shown and "\u200d" not in shown


def test_reasoning_models_in_the_terminal_and_json(
    corpus: Path, workdir: Path, fake_model_class: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    question = "Why is the sky blue?"
    with fake_model_class("<think>The sky source is [{sky}], and then I would say") as model:
        code, out, err = run(capsys, "ask", question, "--base-url", model.url, "--no-color")
        assert code == 0, err
        assert "Note: The model stopped while still reasoning" in out and "[1]" not in out
        code, out, err = run(capsys, "ask", question, "--base-url", model.url, "--json")
        assert [n["kind"] for n in json.loads(out)["notes"]] == ["stopped_in_reasoning"]
    r1 = "Okay, [{sky}] is about the sky [42].\n</think>\n\nThe sky is blue because of scattering [{sky}]."
    with fake_model_class(r1) as model:
        code, out, err = run(capsys, "ask", question, "--base-url", model.url, "--no-color")
        assert code == 0, err
        reasoning, answer = out.split("(the text above was the model's reasoning; its answer follows)")
        assert "Okay," in reasoning and "Okay" not in answer and "[42]" not in answer
        assert "The sky is blue because of scattering[1]." in answer and "no source" not in answer


def test_notes_are_in_the_answers_language_in_every_format(
    corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32 item 6: a Chinese answer's notes read "说明：Extractive answer: ..." (labels Chinese,
    notes English); now one language per answer, the answer's where translated."""
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    zh = "抽取式回答：没有使用语言模型，句子直接摘自来源。"
    en = "Extractive answer: no language model wrote it; its sentences are quoted from the sources."
    code, out, err = run(capsys, "ask", "天空为什么是蓝色的？", "--no-color", "--html", "zh.html")
    assert code == 0, err
    html = (workdir / "zh.html").read_text(encoding="utf-8")
    for text in (out, html):
        assert zh in text and en not in text and "Extractive" not in text
    assert f"说明：{zh}" in out
    code, out, _ = run(capsys, "ask", "天空为什么是蓝色的？", "--markdown")
    assert zh in out and "Extractive" not in out
    code, out, _ = run(capsys, "ask", "天空为什么是蓝色的？", "--json")
    notes = json.loads(out)["notes"]
    assert [n["text"] for n in notes if n["kind"] == "extractive"] == [zh]
    # an English answer keeps English throughout
    code, out, _ = run(capsys, "ask", "Why is the sky blue?", "--no-color")
    assert f"Note: {en}" in out and zh not in out
