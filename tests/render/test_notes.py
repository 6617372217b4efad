"""Trust notes: one wording per kind and language, shared by every format."""

from __future__ import annotations

import json

import pytest

from cite_core import Note, answer_notes, number_sources, parse_answer, render_terminal
from cite_core._render.labels import LABELS

KINDS = {"invalid_markers", "unsupported", "removed_reference_list", "extractive", "dropped_sources"}


def _answer():  # type: ignore[no-untyped-def]
    sources = number_sources(
        [{"text": "The grass is green.", "title": "Grass"}, {"text": "The sky is blue.", "title": "Sky"}]
    )
    text = "The grass is green [1] and whales sing opera [2] [7][0].\n\nReferences:\n[1] Grass\n[2] Sky"
    return parse_answer(text, sources), sources


def test_every_language_has_every_label() -> None:
    keys = set(LABELS["en"])
    assert set(LABELS) == {"en", "es", "zh"}
    for lang, labels in LABELS.items():
        assert set(labels) == keys, lang
        assert all(value.strip() for value in labels.values()), lang


@pytest.mark.parametrize("lang", ["en", "es", "zh"])
def test_every_kind_is_worded(lang: str) -> None:
    answer, sources = _answer()
    notes = answer_notes(answer, lang, extractive=True, dropped=[sources[1]])
    assert {n.kind for n in notes} == KINDS
    by_kind = {n.kind: n for n in notes}
    assert by_kind["invalid_markers"].items == ["[7]", "[0]"]
    assert "[7] [0]" in by_kind["invalid_markers"].text
    assert by_kind["unsupported"].items == ["[2]"]
    assert by_kind["dropped_sources"].items == ["[2] Sky"] and "1" in by_kind["dropped_sources"].text
    texts = {n.text for n in notes}
    assert len(texts) == len(notes)
    if lang != "en":
        english = {n.text for n in answer_notes(answer, "en", extractive=True, dropped=[sources[1]])}
        assert not texts & english


def test_a_clean_answer_has_no_note() -> None:
    answer = parse_answer("The sky is blue [1].", number_sources(["The sky is blue."]))
    assert answer_notes(answer) == []


def test_notes_are_json_models() -> None:
    answer, _ = _answer()
    data = [n.model_dump() for n in answer_notes(answer)]
    assert data[0] == {"kind": "invalid_markers", "text": data[0]["text"], "items": ["[7]", "[0]"]}
    assert Note.model_validate(data[0]).kind == "invalid_markers"


def test_long_lists_are_cut_in_the_text_only() -> None:
    sources = number_sources(["The sky is blue."])
    answer = parse_answer("The sky is blue [1] " + "".join(f"[{n}]" for n in range(100, 130)) + ".", sources)
    [note] = [n for n in answer_notes(answer) if n.kind == "invalid_markers"]
    assert len(note.items) == 30 and note.text.endswith("…")
    assert "[120]" not in note.text


def test_notes_default_to_the_answers_language_as_the_renderers_labels_do() -> None:
    """Issue 32 item 6: labels guessed from the answer, notes in English, gave "说明：Extractive answer"."""
    from cite_core import number_sources, parse_answer, render_markdown

    sources = number_sources(["天空之所以呈现蓝色，是因为瑞利散射。"])
    answer = parse_answer("天空呈现蓝色是因为瑞利散射[1]。", sources)
    (note,) = answer_notes(answer, extractive=True)
    assert note.text == "抽取式回答：没有使用语言模型，句子直接摘自来源。"
    assert "> 抽取式回答" in render_markdown(answer, notes=[note]) and "参考文献" in render_markdown(answer)
    english = parse_answer("The sky is blue because of Rayleigh scattering [1].", number_sources(["x"]))
    assert answer_notes(english, extractive=True)[0].text.startswith("Extractive answer")
    assert answer_notes(answer, "en", extractive=True)[0].text.startswith("Extractive answer")


@pytest.mark.parametrize("text", ["", "  \n", "<think>The user asks about grass.</think>"])
def test_an_empty_answer_gets_a_note_in_every_format(text: str) -> None:
    """A model that answered nothing left a blank page and no note saying why."""
    from cite_core import render_html, render_markdown, render_terminal

    sources = number_sources(["The grass is green."])
    answer = parse_answer(text, sources)
    [note] = answer_notes(answer)
    assert note.kind == "empty_answer" and note.text == LABELS["en"]["note_empty_answer"]
    assert answer_notes(answer, "zh")[0].text == LABELS["zh"]["note_empty_answer"]
    for rendered in (render_markdown(answer), render_html(answer), render_terminal(answer)):
        assert "The model gave no answer" in rendered
    assert answer_notes(parse_answer("The grass is green [1].", sources)) == []


@pytest.mark.parametrize("why", ["no_sources", "no_text"])
def test_an_answer_no_model_was_asked_for_says_so_in_every_format(why: str) -> None:
    # nothing retrieved (or sources only asked for): "the model's reply was empty" would be wrong
    answer = parse_answer("", []).model_copy(update={"no_model_asked": why})
    [note] = answer_notes(answer, "en")
    assert note.kind == "no_model_asked" and note.text == LABELS["en"][f"note_no_model_{why}"]
    for lang in ("es", "zh"):
        assert answer_notes(answer, lang)[0].text == LABELS[lang][f"note_no_model_{why}"]
    for rendered in (answer.to_html(), answer.to_markdown(), render_terminal(answer, color=False)):
        assert "no model was asked" in rendered and "its reply was empty" not in rendered
    assert json.loads(answer.model_dump_json())["no_model_asked"] == why
    assert "no_model_asked" not in parse_answer("", []).model_dump()  # dumps as before when unset
