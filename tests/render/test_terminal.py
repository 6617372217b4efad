"""The terminal renderer and ``strip_controls``: no escape sequence from a document or model gets out."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cite_core import number_sources, parse_answer, render_terminal, strip_controls

# The four sequences an attack run got through ``cite ask --no-color`` (issue 16), and more.
ATTACKS = [
    "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07",  # OSC 8 hyperlink
    "\x1b]0;pwned title\x07",  # OSC 0 window title
    "\x1b[2J\x1b[H",  # CSI clear screen
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52 clipboard write
    "\x9b2J",  # one-byte C1 CSI
    "\x9d0;title\x9c",  # C1 OSC ... ST
    "abc\u202edcba\u2066x\u2069\u200e\u200f\u061c",  # bidi overrides, isolates and marks
    "over\rwrite",
    "bell\x07 and del\x7f and nul\x00",
]
_DANGEROUS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_OUR_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _hostile_answer():  # type: ignore[no-untyped-def]
    items = [
        {
            "text": f"Fact {i} is here {attack} and it is true. Filler sentence {i}.",
            "title": f"Title {attack}",
            "author": attack,
            "document_id": f"doc {attack}",
            "metadata": {"path": f"/tmp/{attack}.txt"},
        }
        for i, attack in enumerate(ATTACKS, start=1)
    ]
    text = " ".join(
        f"Fact {i} is here {attack} and it is true [{i}]." for i, attack in enumerate(ATTACKS, start=1)
    )
    return parse_answer(text + " Bad [99].\n\nSources:\n[1] \x1b]0;x\x07", number_sources(items))


def test_strip_controls_leaves_no_control_character() -> None:
    for attack in ATTACKS:
        assert not _DANGEROUS.search(strip_controls(attack)), attack
    assert strip_controls("a\x1b[31mb") == "a\u241b[31mb"  # visible, inert
    assert strip_controls("line\r\nnext\tcol") == "line\nnext\tcol"
    assert strip_controls("plain 中文 ñ — “q”") == "plain 中文 ñ — “q”"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8")))
def test_strip_controls_property(text: str) -> None:
    clean = strip_controls(text)
    assert not _DANGEROUS.search(clean)
    assert "\x1b" not in clean and "\x9b" not in clean


def test_terminal_without_color_has_no_escape_at_all() -> None:
    out = render_terminal(_hostile_answer())
    assert not _DANGEROUS.search(out)
    assert "evil.example" in out  # shown as text, never as a hyperlink sequence
    assert "Title" in out and "Fact 1 is here" in out


def test_terminal_with_color_has_only_our_colours() -> None:
    out = render_terminal(_hostile_answer(), color=True)
    assert "\x1b[" in out
    assert not _DANGEROUS.search(_OUR_SGR.sub("", out))


def test_terminal_shows_markers_notes_and_references() -> None:
    sources = number_sources(
        [{"text": "The grass is green.", "title": "Grass"}, {"text": "The sky is blue.", "title": "Sky"}]
    )
    answer = parse_answer(
        "The grass is green [1] and whales sing opera [2] [7].\n\n\nSources:\n[1] Grass\n[2] Sky\n", sources
    )
    out = render_terminal(answer, lang="en")
    first, rest = out.split("\n\n", 1)
    assert first == "The grass is green [1] and whales sing opera [2]."  # no blank lines left by the list
    notes = [line for line in rest.splitlines() if line.startswith("Note: ")]
    assert len(notes) == 3
    assert "[7]" in notes[0] and "[2]" in notes[1] and "reference list" in notes[2]
    assert "References\n[1] Grass\n    “The grass is green.”\n[2] Sky" in out
    colored = render_terminal(answer, color=True, lang="en")
    assert "\x1b[2mNote: " in colored  # notes are dim
    assert "\x1b[33;4m[2]\x1b[0m" in colored and "\x1b[36m[1]\x1b[0m" in colored  # weak marker styled apart


def test_terminal_labels_follow_the_language() -> None:
    sources = number_sources(["El cielo es azul.", "天空是蓝色的。"])
    es = render_terminal(parse_answer("El cielo es azul y la hierba es verde [1] [5].", sources))
    assert "Referencias" in es and "Nota: Se quitaron marcadores" in es
    zh = render_terminal(parse_answer("天空是蓝色的[2]【9】。", sources))
    assert "参考文献" in zh and "说明：以下标记没有对应的来源" in zh


def test_terminal_text_is_the_answer_text_rebuilt_from_content() -> None:
    sources = number_sources(["Paris is in France.", "Grass is green.", "The sky is blue."])
    for text in [
        "Paris [1]. Grass [2].",
        "Paris. [1] Grass [2][1] and more.",
        "According to [2], grass is green [3].",
        "Grass `[1]` is green【2】. 中文[1]。",
        "[1] The sky is blue.\n\n- Grass [2]\n- Paris [1][3]\n",
    ]:
        answer = parse_answer(text, sources)
        shown = render_terminal(answer, notes=[], references=False)
        assert shown == answer.text.rstrip() + "\n", text
        plain = answer.to_markdown(style="plain", safe=False)
        assert plain.startswith(answer.text.rstrip()), text


def test_blocks_without_marker_text_still_show_their_markers() -> None:
    sources = number_sources(["Paris is in France.", "The sky is blue."])
    answer = parse_answer("Paris is in France [1]. The sky is blue [2].", sources)
    data = answer.model_dump()
    for block in data["content"]:
        block.pop("marker_text")  # JSON written before marker_text existed
    old = type(answer).model_validate(data)
    assert render_terminal(old, notes=[], references=False) == answer.text + "\n"
    assert "[\\[2\\]](#ref-2)" in old.to_markdown() and 'data-ref="2"' in old.to_html()


def test_terminal_text_never_shows_character_references() -> None:
    sources = number_sources(
        [
            {
                "text": "Cats & dogs <purr> [sometimes].",
                "title": "Pets & [more]",
                "metadata": {"path": "a_b/(c).txt"},
            },
            "Grass is green.",
        ]
    )
    answer = parse_answer("Cats and dogs purr [1] [7]. Bananas are purple [2].\n\nSources:\n[1] x", sources)
    text = render_terminal(answer)
    assert "&#" not in text and "&lt;" not in text and "&amp;" not in text
    assert "Markers that pointed at no source were removed: [7]" in text
    assert "[1] Pets & [more] — a_b/(c).txt\n" in text and "“Cats & dogs <purr> [sometimes].”" in text
