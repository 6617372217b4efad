"""The reference list shows the numbers the markers show, in every Markdown renderer.

A conversation keeps its numbers (``CitationSession.parse``, a chain's second turn): an answer may cite
[2] before [1], or [3] alone. Written as an ordered list, Markdown renumbered it (CommonMark showed
"2. 3.", python-markdown "1." for "3."), so the list named other numbers than the text.
"""

from __future__ import annotations

import re

import pytest

from cite_core import CitationSession, number_sources, parse_answer, render_markdown

from .markdown_renderers import renderers

RENDERERS = renderers()
SUN = "The Sun fuses hydrogen into helium in its core."
MOON = "The Moon reflects the light of the Sun."
LIGHT = "Sunlight takes about eight minutes to reach the Earth."


def _session_answer(text: str) -> object:
    session = CitationSession()
    session.add(
        [{"text": t, "title": title} for t, title in ((SUN, "Sun"), (MOON, "Moon"), (LIGHT, "Light"))]
    )
    return session.parse(text)


def _shown_numbers(html: str) -> list[int]:
    """The number each reference-list item shows, as a reader sees it (an <ol>'s own count included)."""
    found = []
    for ol_start, items in re.findall(r"<ol(?: start=\"(\d+)\")?>(.*?)</ol>", html, re.S):
        start = int(ol_start or 1)
        found += [start + i for i in range(len(re.findall(r"<li", items)))]
    found += [int(n) for n in re.findall(r"<li>\s*(?:<p>)?\s*(\d+)\.", html)]
    return found


@pytest.mark.skipif(not RENDERERS, reason="no Markdown renderer installed (the test extra has them)")
@pytest.mark.parametrize("name", sorted(RENDERERS))
@pytest.mark.parametrize("style", ["links", "plain"])
@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Sunlight takes eight minutes [3].", [3]),
        ("The Moon reflects it [2]. The Sun fuses hydrogen [1].", [2, 1]),
        ("The Sun fuses hydrogen [1]. Sunlight takes eight minutes [3].", [1, 3]),
    ],
)
def test_a_conversations_references_show_their_numbers(
    name: str, style: str, text: str, numbers: list[int]
) -> None:
    answer = _session_answer(text)
    assert [ref.number for ref in answer.references] == numbers
    html = RENDERERS[name](render_markdown(answer, style=style))
    assert _shown_numbers(html) == numbers, html


def test_references_numbered_one_to_k_stay_an_ordered_list() -> None:
    sources = number_sources([SUN, MOON])
    markdown = render_markdown(parse_answer("It fuses [1]. It reflects [2].", sources), style="plain")
    assert [line[:3] for line in markdown.splitlines()[-2:]] == ["1. ", "2. "]
    session = render_markdown(_session_answer("It reflects [2]."), style="plain")
    assert session.splitlines()[-1].startswith("- 2\\. Moon")
