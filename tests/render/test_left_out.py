"""``CitedAnswer.left_out``: what the caller gave that never became a source is reported by a note in
every format (HTML, Markdown, terminal, the CLI's JSON) and kept in the answer's JSON; an answer that
leaves nothing out dumps exactly as before (no ``left_out`` key)."""

from __future__ import annotations

import json

import pytest

from cite_cli._output import json_message
from cite_core import CitedAnswer, answer_notes, number_sources, parse_answer, render_terminal
from cite_core._render.labels import LABELS

LEFT = ["Image blank.png (no caption)", "node n7: start_char_idx past the text"]


def _answer(left_out: list[str] | None = None) -> CitedAnswer:
    answer = parse_answer(
        "The sky is blue [1].", number_sources([{"text": "The sky is blue.", "title": "Sky"}])
    )
    return answer.model_copy(update={"left_out": left_out}) if left_out else answer


def test_the_json_form_has_left_out_only_when_something_was_left_out() -> None:
    clean = json.loads(_answer().model_dump_json())
    assert "left_out" not in clean and "left_out" not in _answer().model_dump()
    data = json.loads(_answer(LEFT).model_dump_json())
    assert data["left_out"] == LEFT
    assert CitedAnswer.model_validate(data).left_out == LEFT  # read back as it was written
    assert CitedAnswer.model_validate(clean).left_out == []


@pytest.mark.parametrize("lang", ["en", "es", "zh"])
def test_the_left_out_note_lists_every_item_in_each_language(lang: str) -> None:
    [note] = [n for n in answer_notes(_answer(LEFT), lang) if n.kind == "left_out"]
    assert note.items == LEFT
    assert note.text == LABELS[lang]["note_left_out"].format(items=" ".join(LEFT))
    assert answer_notes(_answer(), lang) == []


def test_every_renderer_shows_the_left_out_note() -> None:
    answer = _answer(LEFT)
    html, markdown = answer.to_html(), answer.to_markdown()
    terminal = render_terminal(answer, color=False)
    for shown in (html, markdown, terminal):
        assert "not shown to the model or not citable" in shown
        assert "blank.png" in shown and "n7" in shown
    message = json.loads(json_message(answer, "m", answer_notes(answer)))
    assert message["left_out"] == LEFT
    assert [n["items"] for n in message["notes"] if n["kind"] == "left_out"] == [LEFT]
    assert "not shown" not in _answer().to_html() and "not shown" not in _answer().to_markdown()
