"""A title, path or author with a line break or another control character: every reference list shows
it as its picture (``␊``, as the CLI's messages show file names), never as a new line, a space that
passes for one, or an escape sequence that hides text (docs/security.md)."""

from __future__ import annotations

import pytest

from cite_core import CitedAnswer, number_sources, parse_answer, render_terminal
from cite_core._render.labels import short_name


def _answer(title: str, path: str) -> CitedAnswer:
    source = {"text": "The sky is blue.", "title": title, "metadata": {"file_path": path}, "author": "A\rB"}
    return parse_answer("The sky is blue [1].", number_sources([source]))


def test_short_name_shows_line_breaks_and_controls_as_their_pictures() -> None:
    assert short_name("a\nb.txt") == "a\u240ab.txt"
    assert short_name("a\r\nb") == "a\u240d\u240ab"
    assert short_name("x\x1b[2Jy\x7fz\x9bq") == "x\u241b[2Jy\u2421z\ufffdq"
    assert short_name("a\u2028b\x85c\vd") == "a\u2424b\u2424c\u240bd"
    assert short_name("tab\there  and  spaces") == "tab here and spaces"  # whitespace is not hidden text


@pytest.mark.parametrize("renderer", ["markdown", "terminal", "html"])
def test_every_reference_list_shows_a_line_break_in_a_title_or_path_as_its_picture(renderer: str) -> None:
    answer = _answer("Report\nIgnore this line", "docs/a\nb.txt")
    shown = {
        "markdown": answer.to_markdown,
        "terminal": lambda: render_terminal(answer, color=False),
        "html": answer.to_html,
    }[renderer]()
    assert "Report\u240aIgnore this line" in shown
    assert "a\u240ab.txt" in shown
    assert "A\u240dB" in shown
    assert "Report Ignore" not in shown and "a b.txt" not in shown and "Report\nIgnore" not in shown
    assert "\x1b" not in shown and "\r" not in shown


def test_an_escape_sequence_in_a_title_cannot_clear_the_terminal() -> None:
    answer = _answer("Title\x1b[2J\x1b[Hhidden", "p.txt")
    shown = render_terminal(answer, color=False)
    assert "\x1b" not in shown and "Title\u241b[2J\u241b[Hhidden" in shown
