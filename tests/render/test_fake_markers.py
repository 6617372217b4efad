"""Text that looks like a marker but is not one must not look like one in any output."""

from __future__ import annotations

import pytest

from cite_core import number_sources, parse_answer
from cite_core._render import render_terminal, strip_controls
from cite_core._render.reveal import reveal_invisible

INVISIBLE = [
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u200b",  # zero-width space
    "\u2060",  # word joiner
    "\u00ad",  # soft hyphen
    "\ufeff",  # byte order mark
    "\u200d",  # zero-width joiner (kept in words, shown inside a bracket)
    "\u200e",  # left-to-right mark (kept in text, shown inside a bracket)
    "\u3164",  # Hangul filler
    "\u180e",  # Mongolian vowel separator
]


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_fake_marker_is_visibly_not_a_marker(char: str, where: str) -> None:
    fake = f"[{char}1]" if where == "before" else f"[1{char}]"
    sources = number_sources(["The sky is blue.", "Grass is green."])
    answer = parse_answer(f"The sky is blue {fake}. Grass is green [2].", sources)
    assert [r.number for r in answer.references] == [1]  # the fake cites nothing (only [2], renumbered)
    shown = f"‹U+{ord(char):04X}›"
    for out in (
        render_terminal(answer, color=False),
        answer.to_markdown(),
        answer.to_markdown(safe=False),
        answer.to_html(),
    ):
        first_line = out.split("Grass")[0]
        assert shown in first_line, (out, char)
        assert char not in first_line


def test_ordinary_text_keeps_the_invisible_characters_it_needs() -> None:
    text = "👩\u200d💻 works; می\u200cخواهم; עברית\u200f text; 🏴\U000e0067\U000e0062\U000e007f"
    assert reveal_invisible(text) == text
    assert reveal_invisible("a\u202eb") == "a‹U+202E›b"  # an override is shown wherever it is


def test_strip_controls_shows_bidi_overrides_instead_of_deleting_them() -> None:
    assert strip_controls("[\u202e1]") == "[‹U+202E›1]"
    assert strip_controls("x\u202ey\x1b]52;c;SGVsbG8=\x07") == "x‹U+202E›y␛]52;c;SGVsbG8=␇"
    assert strip_controls("שלום\u200f עולם") == "שלום עולם"  # a bidi mark outside a bracket: removed
