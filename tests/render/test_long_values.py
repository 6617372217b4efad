"""Huge metadata values (a 100 KB title without spaces) are shown cut, and kept whole where they belong."""

from __future__ import annotations

import re

import pytest

from cite_core import number_sources, parse_answer, render_terminal
from cite_core._render.labels import MAX_LABEL_CHARS

from .htmlcheck import check_html

HUGE = "T" * 100_000
URL = "https://example.org/" + "p" * 100_000


def _answer():  # type: ignore[no-untyped-def]
    sources = number_sources(
        [{"text": "The sky is blue. It scatters light.", "title": HUGE, "url": URL, "author": "A" * 50_000}]
    )
    return parse_answer("The sky is blue [1].", sources)


def _texts(markup: str, cls: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", m) for m in re.findall(rf'class="{cls}"[^>]*>(.*?)</', markup)]


def test_html_shows_at_most_the_documented_length() -> None:
    markup = _answer().to_html()
    assert check_html(markup).problems == []
    titles = _texts(markup, "cite-ref-title") + _texts(markup, "cite-tip-title")
    assert len(titles) == 3  # reference list, panel, tooltip
    assert all(len(t) == MAX_LABEL_CHARS and t.endswith("…") for t in titles)
    urls = _texts(markup, "cite-url")
    assert urls and all(len(u) == MAX_LABEL_CHARS for u in urls)
    assert f'data-title="{HUGE}"' in markup  # the whole title, once
    assert markup.count(HUGE) == 1
    assert f'href="{URL}#:~:text=' in markup  # the link goes to the whole URL (and the cited sentence)


def test_markdown_and_terminal_cut_too() -> None:
    answer = _answer()
    md = answer.to_markdown()
    assert "T" * MAX_LABEL_CHARS not in md and "T" * (MAX_LABEL_CHARS - 1) + "…" in md
    assert len(md) < 110_000  # the URL is whole (it is the link), the title and author are cut
    out = render_terminal(answer)
    assert max(len(line) for line in out.splitlines()) < 4 * MAX_LABEL_CHARS


def test_short_values_are_whole() -> None:
    sources = number_sources([{"text": "The sky is blue.", "title": "Sky " * 70}])
    markup = parse_answer("The sky is blue [1].", sources).to_html()
    assert ("Sky " * 70).strip() in markup and "data-title" not in markup


@pytest.mark.browser
def test_a_huge_title_displays_cut_in_chromium(browser, artifacts) -> None:  # type: ignore[no-untyped-def]
    path = artifacts / "huge-title.html"
    path.write_text(_answer().to_html(full_page=True), encoding="utf-8")
    browser.get(path.resolve().as_uri())
    shown = browser.execute_script(
        "return [...document.querySelectorAll('.cite-ref-title,.cite-tip-title')]"
        ".map(e => e.textContent.length)"
    )
    assert shown and max(shown) == MAX_LABEL_CHARS
    full = browser.execute_script("return document.querySelector('.cite-ref').dataset.title.length")
    assert full == len(HUGE)
    marker = browser.find_element("css selector", ".cite-marker")
    marker.click()
    assert browser.execute_script("return !document.querySelector('.cite-panel').hidden")
