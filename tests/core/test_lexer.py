"""Unit tests of the parser's lexer: chunks in, typed tokens out, the same for every chunking."""

from __future__ import annotations

import pytest

from cite_core._stream.lexer import Lexer
from cite_core._stream.lexer_tokens import Kind, Mode, Token
from cite_core._stream.match_types import Item, Marker


def lex(*chunks: str) -> list[Token]:
    """Every token for ``chunks``."""
    lexer = Lexer()
    tokens: list[Token] = []
    for chunk in chunks:
        tokens.extend(lexer.feed(chunk))
    tokens.extend(lexer.finish())
    return tokens


def merged(tokens: list[Token]) -> list[tuple[Kind, str]]:
    """Adjacent text tokens of one kind joined: a chunking may split a text run, never a marker."""
    out: list[tuple[Kind, str]] = []
    for token in tokens:
        text = token.text if token.marker is None else f"{token.marker.raw} {token.opens} {token.pre_ws!r}"
        text = text if token.tag is None else token.tag.raw
        if (
            out
            and token.kind in (Kind.TEXT, Kind.CODE, Kind.THINKING, Kind.REFLIST)
            and out[-1][0] is token.kind
        ):
            out[-1] = (token.kind, out[-1][1] + text)
        else:
            out.append((token.kind, text))
    return out


def test_a_marker_split_across_chunks_is_one_marker_token():
    tokens = lex("Grass is green [1", "].")
    assert [t.kind for t in tokens] == [Kind.TEXT, Kind.MARKER, Kind.TEXT]
    assert tokens[0].text == "Grass is green"
    assert tokens[1] == Token(
        Kind.MARKER,
        marker=Marker(start=0, end=3, raw="[1]", items=(Item(number=1, raw="[1]"),)),
        opens=True,
        pre_ws=" ",
    )  # positions are in the buffer the marker was found in
    assert tokens[2].text == "."


def test_an_unfinished_marker_is_held():
    lexer = Lexer()
    tokens = list(lexer.feed("Grass [1"))
    assert tokens == [Token(Kind.TEXT, "Grass")]
    assert lexer.held == len(" [1")
    assert list(lexer.feed("]")) == []  # "[1](url)" or "[1]:" may still follow
    assert lexer.held == len(" [1]")
    rest = list(lexer.feed(" is"))
    assert [t.kind for t in rest] == [Kind.MARKER, Kind.SEPARATOR, Kind.TEXT]
    assert rest[0].pre_ws == " " and rest[0].opens and rest[2].text == "is"
    assert lexer.held == 0


def test_adjacent_markers_form_one_group_with_a_separator_after():
    tokens = lex("Grass [1][2], sky.")
    kinds = [(t.kind, t.opens) for t in tokens]
    assert kinds == [
        (Kind.TEXT, False),
        (Kind.MARKER, True),
        (Kind.MARKER, False),
        (Kind.SEPARATOR, False),
        (Kind.TEXT, False),
    ]
    assert tokens[3].text == ", " and not tokens[3].space_follows
    assert tokens[4].text == "sky."


def test_markers_inside_code_are_code_tokens():
    tokens = lex("Use `x[1]` and\n```\na[2]\n```\ndone [3].")
    assert merged(tokens)[:2] == [(Kind.TEXT, "Use "), (Kind.CODE, "`x[1]`")]
    markers = [t for t in tokens if t.kind is Kind.MARKER]
    assert [m.marker.items[0].number for m in markers] == [3]
    assert "".join(t.text for t in tokens if t.kind is Kind.CODE) == "`x[1]````\na[2]\n```\n"


def test_thinking_sections_are_thinking_tokens():
    tokens = lex("<thi", "nk>Sources [1] say</think>\n\nGrass [1].")
    assert merged(tokens)[0] == (Kind.THINKING, "Sources [1] say")
    assert [t.kind for t in tokens[-3:]] == [Kind.TEXT, Kind.MARKER, Kind.TEXT]
    assert tokens[-3].text == "Grass"  # the blank lines after a thinking section that opens the answer go


def test_a_cit_tag_is_a_tag_token():
    tokens = lex("<CIT chunk_id='1'>Grass is green</CIT>.")
    kinds = [t.kind for t in tokens]
    assert kinds == [Kind.TAG, Kind.TEXT, Kind.TAG, Kind.TEXT]
    assert not tokens[0].tag.closing and tokens[2].tag.closing


def test_a_reference_list_is_reflist_tokens():
    tokens = lex("Grass [1].\n\nReferences:\n[1] Grass book\n")
    assert merged(tokens)[-1][0] is Kind.REFLIST
    assert "".join(t.text for t in tokens if t.kind is Kind.REFLIST).startswith("References:")


@pytest.mark.parametrize(
    "text",
    [
        "Grass is green [1]. Sky [2][3], blue.",
        "Use `a[1]` here [2].\n```py\nb[3]\n```\nend [1]",
        "<think>r [1]</think>Grass [1] (see [2]).",
        "A <CIT chunk_id='1'>claim [3]</CIT> tail.\n\nSources:\n[1] x",
    ],
)
def test_tokens_are_the_same_for_every_two_way_chunking(text: str):
    whole = merged(lex(text))
    for cut in range(1, len(text)):
        assert merged(lex(text[:cut], text[cut:])) == whole, cut


def test_the_mode_follows_what_the_lexer_is_inside():
    lexer = Lexer()
    list(lexer.feed("a `b"))
    assert lexer.mode is Mode.CODE
    list(lexer.feed("` <think>c"))
    assert lexer.mode is Mode.THINK
    list(lexer.feed("</think> d"))
    assert lexer.mode is Mode.TEXT


def test_each_sub_mode_is_a_mode_of_its_own():
    lexer = Lexer()
    assert lexer.mode is Mode.LINE_START  # the answer starts a line: checked for a fence or a list
    list(lexer.feed("Grass [1] "))
    assert lexer.mode is Mode.GROUP  # a separator or joiner may still lead to another marker
    list(lexer.feed("and [2] is"))
    assert lexer.mode is Mode.TEXT
    list(lexer.feed(" green\n"))
    assert lexer.mode is Mode.LINE_START
    list(lexer.feed("x " + "`" * 40))
    assert lexer.mode is Mode.TICKS  # too long for a code span: the rest of the run is text too
    list(lexer.feed("`` `ab" + "`" * 3))
    assert lexer.mode is Mode.CODE_TICKS  # longer than the span's opener: its rest cannot close it
    thinking = Lexer()
    list(thinking.feed("<think>r</think>\n"))
    assert thinking.mode is Mode.SKIP_SPACE  # blank space before the answer is dropped
