"""The render package: public names, package data, labels in every language, docs free of private imports."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

import cite_core
from cite_core import number_sources, parse_answer, render_html, render_markdown, render_terminal

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = {"Note", "answer_notes", "content_security_policy", "render_terminal", "strip_controls"}


def test_render_names_are_public() -> None:
    assert set(cite_core.__all__) >= PUBLIC
    assert cite_core.content_security_policy().startswith("default-src 'none'")


def test_css_and_js_are_package_data() -> None:
    from cite_core._render import SCRIPT, STYLE

    data = files("cite_core._render")
    assert data.joinpath("cite.css").read_text(encoding="utf-8").strip() == STYLE
    assert data.joinpath("cite.js").read_text(encoding="utf-8").strip() == SCRIPT
    assert ".cite-answer{" in STYLE and "function init(root)" in SCRIPT


@pytest.mark.parametrize("page", ["rendering.md", "output-formats.md"])
def test_docs_import_only_public_names(page: str) -> None:
    assert "cite_core._" not in (ROOT / "docs" / page).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("lang", "heading", "weak"),
    [
        ("en", "References", "weak support"),
        ("es", "Referencias", "respaldo débil"),
        ("zh", "参考文献", "支持度低"),
    ],
)
def test_every_format_speaks_each_language(lang: str, heading: str, weak: str) -> None:
    sources = number_sources([{"text": "The grass is green.", "title": "Grass"}, "The sky is blue."])
    answer = parse_answer("The grass is green [1] and whales sing [2] [8].", sources)
    html = render_html(answer, lang=lang)
    assert f"{heading} (2)" in html and weak in html and f'lang="{lang}"' in html
    markdown = render_markdown(answer, lang=lang)
    assert f"**{heading}**" in markdown
    terminal = render_terminal(answer, lang=lang)
    assert f"\n{heading}\n" in terminal
    from cite_core import answer_notes

    for note in answer_notes(answer, lang):
        assert note.text in html and note.text in terminal


def test_language_is_guessed_from_the_answer() -> None:
    sources = number_sources(["El cielo es azul por la dispersión de la luz.", "天空是蓝色的。"])
    es = parse_answer("El cielo es azul por la dispersión de la luz [1].", sources)
    zh = parse_answer("天空是蓝色的[2]。", sources)
    assert "Referencias" in es.to_html() and "**Referencias**" in es.to_markdown()
    assert "参考文献" in zh.to_html() and "参考文献" in render_terminal(zh)
