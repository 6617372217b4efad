"""Tests for split_sentences (cite_core/_sources/segment.py): shared cases, per-category rules, invariants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.eval._data import find_data_dir
from cite_core._sources.segmenter import split_sentences

CASES_PATH = (
    find_data_dir() or Path(__file__).resolve().parents[3] / "shared" / "data"
) / "segmentation_cases.json"


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def check_invariants(text: str) -> None:
    spans = split_sentences(text)
    covered = bytearray(len(text))
    prev_end = 0
    for start, end in spans:
        assert isinstance(start, int) and isinstance(end, int)
        assert prev_end <= start < end <= len(text)
        piece = text[start:end]
        assert piece == piece.strip(), (text, start, end)
        covered[start:end] = b"\x01" * (end - start)
        prev_end = end
    missed = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not missed, (text, missed)


# --- the 40 shared acceptance cases -------------------------------------------------------------


def test_shared_cases() -> None:
    if not CASES_PATH.exists():
        pytest.skip(f"{CASES_PATH} is absent")
    cases = json.loads(CASES_PATH.read_text(encoding="utf-8"))
    failures = []
    for case in cases:
        got = sentences(case["text"])
        if got != case["expected"]:
            failures.append(f"#{case['id']} {case['category']}: got {got!r}, expected {case['expected']!r}")
    passed = len(cases) - len(failures)
    assert passed >= 38, f"{passed}/{len(cases)} passed:\n" + "\n".join(failures)


# --- hand-written rules, one group per category ---------------------------------------------------

UNIT_CASES = {
    "en_basic": ("It works. Does it? Yes!", ["It works.", "Does it?", "Yes!"]),
    "en_lowercase_after_question": ("Is it? not really.", ["Is it? not really."]),
    "abbrev_titles": (
        "Mr. and Mrs. Brown met Prof. Green at 10 a.m. on Monday. It rained.",
        ["Mr. and Mrs. Brown met Prof. Green at 10 a.m. on Monday.", "It rained."],
    ),
    "abbrev_eg_before_capital": (
        "Use a language, e.g. Python, for this. Done.",
        ["Use a language, e.g. Python, for this.", "Done."],
    ),
    "abbrev_number": (
        "See No. 5 and Fig. 2 for details. Done.",
        ["See No. 5 and Fig. 2 for details.", "Done."],
    ),
    "abbrev_sentence_end": (
        "She lives in Washington, D.C. She likes it.",
        ["She lives in Washington, D.C.", "She likes it."],
    ),
    "initials": (
        "A talk by G. H. Hardy was given. It was long.",
        ["A talk by G. H. Hardy was given.", "It was long."],
    ),
    "decimal": (
        "Growth was 3.5% in Q1. It fell to 1.25 later.",
        ["Growth was 3.5% in Q1.", "It fell to 1.25 later."],
    ),
    "url": (
        "Read https://a.example.org/x/y.html?q=1.2 today. Visit www.example.com. Then leave.",
        ["Read https://a.example.org/x/y.html?q=1.2 today.", "Visit www.example.com.", "Then leave."],
    ),
    "email": (
        "Write to jane.doe@mail.example.com soon. Thanks.",
        ["Write to jane.doe@mail.example.com soon.", "Thanks."],
    ),
    "ellipsis_continues": ("Wait... what? No… not now.", ["Wait... what?", "No… not now."]),
    "ellipsis_ends": ("So… We left. Then... «Hola» dijo.", ["So…", "We left.", "Then...", "«Hola» dijo."]),
    "quote_closing": (
        "'Go home.' He went. (It was late.) Fine.",
        ["'Go home.'", "He went.", "(It was late.)", "Fine."],
    ),
    "quote_lowercase_after": ('"Why?" he asked. "Because."', ['"Why?" he asked.', '"Because."']),
    "citation_marker_glued": ("This is true.[1] Next one [2].", ["This is true.[1]", "Next one [2]."]),
    "es_inverted": ("¡Hola! ¿Qué tal? Bien, gracias.", ["¡Hola!", "¿Qué tal?", "Bien, gracias."]),
    "es_abbrev": (
        "El Sr. y la Sra. García viven en Madrid, etc. Luego se mudaron.",
        ["El Sr. y la Sra. García viven en Madrid, etc.", "Luego se mudaron."],
    ),
    "es_page": (
        "Según la pág. 7, subió un 3,5 %. ¡Increíble!",
        ["Según la pág. 7, subió un 3,5 %.", "¡Increíble!"],
    ),
    "es_dialogue": ("—¿Vienes? —dijo Ana. —Sí.", ["—¿Vienes? —dijo Ana.", "—Sí."]),
    "zh_basic": ("天气很好。我们去公园吧！好吗？", ["天气很好。", "我们去公园吧！", "好吗？"]),
    "zh_closing_quote": ("她说：「好！」然后走了。", ["她说：「好！」", "然后走了。"]),
    "zh_ascii_punct": ("真的吗?是的!", ["真的吗?", "是的!"]),
    "zh_title_marks": ("我看了《你好！李焕英》。很好看。", ["我看了《你好！李焕英》。", "很好看。"]),
    "zh_ellipsis": ("他想了想……然后走了。", ["他想了想……", "然后走了。"]),
    "zh_mixed_english": (
        "他用Python 3.12写代码。Really? 是的。",
        ["他用Python 3.12写代码。", "Really?", "是的。"],
    ),
    "list_numbered": ("1. First\n2. Second\n\n10. Tenth", ["1. First", "2. Second", "10. Tenth"]),
    "list_bullets": ("Items:\n* one\n+ two\n– three", ["Items:", "* one", "+ two", "– three"]),
    "list_letters_roman": (
        "a) first\nb) second\nI. Intro\nII. Methods",
        ["a) first", "b) second", "I. Intro", "II. Methods"],
    ),
    "list_item_wraps": (
        "- first item that\n  wraps here\n- second",
        ["- first item that\n  wraps here", "- second"],
    ),
    "newline_wrap": ("We met on a\nsunny day. It was fine.", ["We met on a\nsunny day.", "It was fine."]),
    "newline_short_lines": ("Name: John\nAge: 32", ["Name: John", "Age: 32"]),
    "newline_blank_line": (
        "no punctuation here\n\n  \nnext paragraph",
        ["no punctuation here", "next paragraph"],
    ),
    "newline_after_abbrev": ("I saw Dr.\nSmith today.", ["I saw Dr.\nSmith today."]),
    "newline_long_line_wraps": (
        "This line is long enough that it cannot be mistaken for a title or heading\nBy anyone at all.",
        ["This line is long enough that it cannot be mistaken for a title or heading\nBy anyone at all."],
    ),
    "newline_crlf": ("First line.\r\nSecond line.\r\n\r\nThird", ["First line.", "Second line.", "Third"]),
    "heading_markdown": (
        "# Title\nSome text here. More text.\n## sub heading\nlowercase body",
        ["# Title", "Some text here.", "More text.", "## sub heading", "lowercase body"],
    ),
    "whitespace_trimmed": ("   padded sentence.   \t", ["padded sentence."]),
}


@pytest.mark.parametrize("text,expected", list(UNIT_CASES.values()), ids=list(UNIT_CASES))
def test_rules(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize("text", ["", " ", "\n\n\t", "\u3000\u00a0"])
def test_blank_text_gives_no_spans(text: str) -> None:
    assert split_sentences(text) == []


def test_spans_are_offsets_into_the_original() -> None:
    text = "  Hi there.  Bye now!\n"
    assert split_sentences(text) == [(2, 11), (13, 21)]


@pytest.mark.parametrize("bad", [b"bytes.", None, 42, ["a."]])
def test_rejects_non_str(bad: object) -> None:
    with pytest.raises(TypeError, match="text must be a str"):
        split_sentences(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "\ud800. \udfff Next.",
        "a\x00b. \x1c\x1dC.\x0b\x0cD!",
        "\x85Line\u2028two.\u2029",
        "。" * 5,
        "《！",
        "…",
        "[1",
    ],
)
def test_odd_input_never_raises(text: str) -> None:
    check_invariants(text)


# --- invariants on random text ----------------------------------------------------------------

TRICKY = list(".!?…。！？;:,\"'“”‘’«»「」『』《》（）()[]{}¿¡—–-•*#\n\n \t\r\u3000\u00a0") + [
    "Dr",
    "e.g",
    "U.S",
    "J",
    "1",
    "2.5",
    "etc",
    "http://x.y/z.w",
    "a@b.co",
    "[1]",
    "...",
    "\ud800",
]
TEXTS = st.lists(
    st.one_of(
        st.sampled_from(TRICKY), st.text(alphabet="abcXYZ ñ中文", min_size=1, max_size=6), st.characters()
    ),
    max_size=60,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_invariants_tricky(text: str) -> None:
    check_invariants(text)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_invariants_any_text(text: str) -> None:
    check_invariants(text)


# --- pathological inputs: must stay linear ------------------------------------------------------

MB = 1_000_000
PATHOLOGICAL = {
    "a_dot": "a." * (MB // 2),
    "no_punctuation": "a" * MB,
    "spaces": " " * MB,
    "dots": "." * MB,
    "initials": "A. " * (MB // 3),
    "list_markers": "1. " * (MB // 3),
    "newlines": "x\n" * (MB // 2),
    "newline_then_spaces": "\n" + " " * MB + "x",
    "unclosed_citation": ".[" + "1" * MB,
    "citation_groups": ".[1, " * (MB // 5),
    "zh_titles": "《好！》" * (MB // 4),
}


@pytest.mark.parametrize("text", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_pathological_inputs_split_cleanly(text: str) -> None:
    # one megabyte of each shape; its speed is measured in bench/bench_segment.py, not asserted here
    spans = split_sentences(text)
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert all(text[s:e] == text[s:e].strip() for s, e in spans[:1000])
