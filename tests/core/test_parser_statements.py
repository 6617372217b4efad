"""The statement format of long-context citation models: ``<statement>S<cite>[a-b]</cite></statement>``.

With ``style="markers"`` the numbers inside ``<cite>`` are source numbers (CoF chunk-level); with
``style="statements"`` they are the global sentence numbers ``<C0>``, ``<C1>``, ... of the prompt
(LongCite). Every example here is written for these tests.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cite_core import (
    ArgumentError,
    CitationStream,
    build_messages,
    build_prompt,
    citation_instructions,
    number_sources,
    parse_answer,
    token_counter,
)
from tests.invariants import after_reset, check_answer

SOURCES = number_sources(
    [
        {
            "text": "Basalt forms when lava cools quickly. It is dark and fine-grained. Granite cools slowly "
            "underground.",
            "title": "Rocks",
        },
        {
            "pages": ["Quartz is hard. Feldspar is common.", "Mica splits into thin sheets."],
            "title": "Minerals",
        },
        "Obsidian is volcanic glass. It has no crystals.",
    ]
)
# global sentence numbers: 0-2 source 1; 3-4 source 2 page 1, 5 source 2 page 2; 6-7 source 3

ANSWER = (
    "<statement>Here is what the sources say:<cite></cite></statement>\n\n"
    "<statement>Basalt is dark [Si/O]=0.4 and cools fast.<cite>[0-1]</cite></statement>\n\n"
    "<statement>Obsidian is glass with no crystals.<cite>[6-7][3-3]</cite></statement>"
)


def _parse(text: str, style: str = "statements"):  # type: ignore[no-untyped-def]
    return parse_answer(text, SOURCES, style=style)  # type: ignore[arg-type]


def _cited(block) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    return [(c.document_index + 1, c.cited_text) for c in block.citations or []]


def _streamed(text: str, size: int, style: str = "statements"):  # type: ignore[no-untyped-def]
    stream = CitationStream(SOURCES, style=style, display=True)  # type: ignore[arg-type]
    held = 0
    deltas = []
    for start in range(0, len(text), size):
        deltas += stream.feed(text[start : start + size])
        held = max(held, stream.held)
    answer = stream.finish()
    deltas = after_reset(
        [*deltas, *stream.pending_events()]
    )  # a lone </think>: what came before was reasoning
    assert "".join(e.text for e in deltas if e.type == "display_delta") == answer.text
    return answer, "".join(e.text for e in deltas if e.type == "text_delta"), held


def test_statement_tags_vanish_and_cite_markers_cite_the_whole_statement() -> None:
    answer = _parse(ANSWER)
    assert answer.text == (
        "Here is what the sources say:\n\n"
        "Basalt is dark [Si/O]=0.4 and cools fast.[1]\n\n"
        "Obsidian is glass with no crystals.[2][3]"
    )
    cited = [b for b in answer.content if b.citations]
    assert [b.text for b in cited] == [
        "Basalt is dark [Si/O]=0.4 and cools fast.",
        "Obsidian is glass with no crystals.",
    ]
    assert _cited(cited[0]) == [(1, "Basalt forms when lava cools quickly. It is dark and fine-grained.")]
    assert _cited(cited[1]) == [
        (3, "Obsidian is volcanic glass. It has no crystals."),
        (2, "Quartz is hard."),
    ]
    assert answer.invalid_markers == []
    check_answer(answer, SOURCES, ANSWER)


def test_empty_cite_cites_nothing_and_leaves_nothing() -> None:
    answer = _parse("<statement>In short, rocks differ.<cite></cite></statement>")
    assert answer.text == answer.plain_text == "In short, rocks differ."
    assert answer.citations == [] and answer.references == [] and answer.invalid_markers == []


def test_tags_are_case_insensitive_and_may_carry_spaces() -> None:
    upper = _parse("<STATEMENT>Granite cools slowly.<Cite >[2-2]</CITE></Statement>")
    assert upper.text == "Granite cools slowly.[1]"
    assert [c.cited_text for c in upper.citations] == ["Granite cools slowly underground."]


def test_brackets_inside_a_statement_stay_text() -> None:
    text = "<statement>The ratio [Mg/Fe]=+0.3 and [x] stay; so does [Fe/H]= -1.<cite>[2-2]</cite></statement>"
    answer = _parse(text)
    assert answer.text == "The ratio [Mg/Fe]=+0.3 and [x] stay; so does [Fe/H]= -1.[1]"
    assert answer.invalid_markers == []


def test_markers_style_reads_cite_numbers_as_sources_and_localises_lexically() -> None:
    text = (
        "<statement>Mica splits into sheets.<cite>[2]</cite></statement> "
        "<statement>Ok.<cite>[9]</cite></statement>"
    )
    answer = _parse(text, style="markers")
    assert answer.text == "Mica splits into sheets.[1] Ok."
    assert [(c.document_index, c.cited_text) for c in answer.citations] == [
        (1, "Mica splits into thin sheets.")
    ]
    assert answer.invalid_markers == ["[9]"]


def test_a_range_never_crosses_a_source_or_a_page() -> None:
    answer = _parse("<statement>Many minerals and rocks.<cite>[2-5]</cite></statement>")
    assert _cited(answer.content[0]) == [
        (1, "Granite cools slowly underground."),
        (2, "Quartz is hard. Feldspar is common."),
        (2, "Mica splits into thin sheets."),
    ]
    pages = [(c.start_page_number, c.end_page_number) for c in answer.citations[1:]]
    assert pages == [(1, 2), (2, 3)]
    assert answer.text == "Many minerals and rocks.[1][2]"


@pytest.mark.parametrize(
    ("cite", "invalid"), [("[8-8]", ["[8-8]"]), ("[7-9]", ["[7-9]"]), ("[1, 40]", ["[40]"])]
)
def test_sentence_numbers_outside_the_sources_are_invalid(cite: str, invalid: list[str]) -> None:
    answer = _parse(f"<statement>Rocks.<cite>{cite}</cite></statement>")
    assert answer.invalid_markers == invalid
    assert all(c.document_index == 0 for c in answer.citations)


def test_reversed_range_and_single_number_are_read_as_ranges() -> None:
    answer = _parse(
        "<statement>Basalt.<cite>[1-0]</cite></statement><statement>Glass.<cite>[6]</cite></statement>"
    )
    assert [c.cited_text for c in answer.citations] == [
        "Basalt forms when lava cools quickly. It is dark and fine-grained.",
        "Obsidian is volcanic glass.",
    ]


def test_plain_markers_in_statements_style_fall_back_to_lexical_localisation() -> None:
    answer = _parse("Obsidian is a volcanic glass [3]. Quartz is hard [2].")
    assert answer.text == "Obsidian is a volcanic glass [1]. Quartz is hard [2]."
    assert [c.cited_text for c in answer.citations] == ["Obsidian is volcanic glass.", "Quartz is hard."]


def test_cite_without_statement_cites_the_sentence_before_it() -> None:
    answer = _parse("Rocks vary. Basalt cools quickly.<cite>[0-0]</cite> The end.")
    assert answer.text == "Rocks vary. Basalt cools quickly.[1] The end."
    cited = [b for b in answer.content if b.citations]
    assert [b.text for b in cited] == ["Basalt cools quickly."]


def test_second_cite_in_one_statement_cites_only_what_follows_the_first() -> None:
    answer = _parse(
        "<statement>Basalt is fast.<cite>[0-0]</cite> Granite is slow.<cite>[2-2]</cite></statement>"
    )
    assert [b.text for b in answer.content if b.citations] == ["Basalt is fast.", "Granite is slow."]


def test_an_unclosed_cite_ends_at_the_line_end() -> None:
    answer = _parse("<statement>Basalt is dark.<cite>[1-1] note\nNext line stays.")
    assert answer.text == "Basalt is dark.[1]\nNext line stays."


def test_cite_followed_by_words_is_html_and_stays_text() -> None:
    text = "See <cite>Rocks of the World</cite> for more [1]."
    assert (
        _parse(text).text
        == _parse(text, style="markers").text
        == "See <cite>Rocks of the World</cite> for more [1]."
    )


def test_the_closing_statement_tag_of_the_cof_instructions_also_works() -> None:
    # the chunk-level instructions show "<statement>{S}<cite>...</cite><statement>" (an opening tag to close)
    answer = _parse(
        "<statement>Basalt is dark.<cite>[1]</cite><statement>\n\n"
        "<statement>Mica splits.<cite>[5]</cite><statement>"
    )
    assert answer.text == "Basalt is dark.[1]\n\nMica splits.[2]"


@pytest.mark.parametrize("size", [1, 7])
@pytest.mark.parametrize("style", ["statements", "markers"])
def test_streaming_in_small_chunks_equals_the_whole_parse(size: int, style: str) -> None:
    whole = _parse(ANSWER, style)
    answer, deltas, held = _streamed(ANSWER, size, style)
    assert answer == whole and deltas == whole.plain_text
    assert held <= len("</statement>") + size  # at most an unfinished tag (or marker) is held back


def test_cite_waits_only_for_the_character_after_it() -> None:
    stream = CitationStream(SOURCES, style="statements")
    assert [e.text for e in stream.feed("<statement>Basalt is dark.") if e.type == "text_delta"] == [
        "Basalt is dark."
    ]
    stream.feed("<cite>")
    assert stream.held == len("<cite>")
    stream.feed("[0-0]</cite></statement>")
    assert stream.held == 0
    assert stream.finish().text == "Basalt is dark.[1]"


def test_parser_rejects_an_unknown_style() -> None:
    with pytest.raises(ArgumentError, match="style must be 'markers', 'sentences' or 'statements'"):
        CitationStream(SOURCES, style="tags")  # type: ignore[arg-type]


def test_prompt_numbers_match_what_the_parser_reads() -> None:
    messages = build_messages("What is obsidian?", SOURCES, style="statements")
    shown = dict(re.findall(r"<C(\d+)>([^<\n]*)", messages[1]["content"]))
    assert list(shown) == [str(i) for i in range(8)]
    assert "<statement>" in messages[0]["content"] and "[s1-e1]" in messages[0]["content"]
    for number, sentence in shown.items():
        answer = parse_answer(
            f"<statement>Claim.<cite>[{number}-{number}]</cite></statement>",
            messages.sources,
            style="statements",
        )
        assert answer.citations[0].cited_text == sentence.strip()
    assert build_prompt("Q?", SOURCES, style="statements").style == "statements"


def test_prompt_numbering_continues_after_truncation_and_hides_lookalike_tags() -> None:
    sources = number_sources(["One fact here. Two facts here.", "Fake <C0> tag inside. Real end."])
    text = build_messages("Q?", sources, style="statements")[1]["content"]
    assert "<C2>Fake &lt;C0> tag inside." in text and "<C3>Real end." in text


def test_other_styles_read_cite_numbers_as_sources() -> None:
    text = "<statement>Mica splits.<cite>[2]</cite></statement> Quartz [2:1]."
    assert _parse(text, "sentences") == _parse(text, "markers")
    assert [c.cited_text for c in _parse(text, "sentences").citations][-1] == "Quartz is hard."


def test_truncated_source_keeps_its_global_sentence_numbers() -> None:
    long = " ".join(f"Fact {i} concerns lake {i}." for i in range(300))
    sources = number_sources(["Alpha is first. Beta is second.", long])
    count = token_counter()
    fixed = count(citation_instructions(2, style="statements")) + count("Sources:\n\n\n\nQuestion: Q?") + 8
    prompt = build_prompt("Q?", sources, max_tokens=fixed + 400, style="statements", on_overflow="truncate")
    assert prompt.truncated and "<C2>Fact 0 concerns lake 0." in prompt.messages[1]["content"]
    last = max(int(n) for n in re.findall(r"<C(\d+)>", prompt.messages[1]["content"]))
    answer = parse_answer(
        f"<statement>Lakes.<cite>[{last}-{last + 1}]</cite></statement>", prompt.sources, style=prompt.style
    )
    assert answer.invalid_markers == [f"[{last}-{last + 1}]"]  # one past the shown part: not a number it saw
    answer = parse_answer(
        f"<statement>Lake.<cite>[{last}-{last}]</cite></statement>", prompt.sources, style="statements"
    )
    assert answer.citations[0].cited_text == f"Fact {last - 2} concerns lake {last - 2}."


PIECES = [
    "<statement>", "</statement>", "<cite>", "</cite>", "<STATEMENT>", "<Cite>", "<cite></cite>",
    "[0-1]", "[2-2]", "[6-7][3-3]", "[9-9]", "[2]", "[1, 4]", "[Fe/H]", "<", ">", "[", "]", "-", "\n",
    "Basalt is dark", ". ", " ", "<cite>Title", "<CIT chunk_id='1'>", "</CIT>", "<think>", "</think>",
]  # fmt: skip


@given(
    st.lists(st.sampled_from(PIECES), max_size=16).map("".join),
    st.lists(st.integers(min_value=1, max_value=60), max_size=20),
    st.sampled_from(["statements", "markers"]),
)
def test_any_statement_text_parses_and_streams_as_the_whole(text: str, cuts: list[int], style: str) -> None:
    whole = _parse(text, style)
    stream = CitationStream(SOURCES, style=style)  # type: ignore[arg-type]
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    deltas = []
    for a, b in zip(bounds, bounds[1:]):
        deltas += stream.feed(text[a:b])
    answer = stream.finish()
    deltas = after_reset([*deltas, *stream.pending_events()])
    assert answer == whole
    assert "".join(e.text for e in deltas if e.type == "text_delta") == whole.plain_text
    check_answer(whole, SOURCES, text)
    assert "<statement" not in whole.text.lower()
