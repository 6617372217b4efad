"""cite_core/_brackets.py: one table of marker brackets that every stage reads, so they cannot drift.

Before the table, the brackets were written out in eight modules and had drifted: a reference list
the model wrote as ``〔1〕 Nature`` stayed in the answer while ``[1] Nature`` and ``【1】 Nature`` were
removed, and ``<cite>〔2〕`` was text while ``<cite>【2】`` opened a citation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cite_core import extractive_answer, number_sources, parse_answer, render_html
from cite_core._brackets import BRACKETS, CLOSERS, MARKER_OPENERS, OPENERS, WIDE_CLOSERS, WIDE_OPENERS

PACKAGE = Path(__file__).resolve().parents[2] / "cite_core"
TABLE = PACKAGE / "_brackets.py"
MARKERS = [(opener, closer) for opener, closer, kinds in BRACKETS if "marker" in kinds and opener != "[["]
"""Every single-character marker bracket pair of the table: each test runs once per row."""


def test_the_table_is_plain_rows_of_two_strings_and_kinds() -> None:
    """The shape a compiled lexer reads: (opener, closer, kinds), strings only."""
    for opener, closer, kinds in BRACKETS:
        assert isinstance(opener, str) and isinstance(closer, str) and opener and closer
        assert kinds and set(kinds) <= {"marker", "link", "keyword", "tag"}
    assert OPENERS == "[【［〔(<" and MARKER_OPENERS == "[【［〔"
    assert CLOSERS["[["] == "]]" and CLOSERS["〔"] == "〕"


def test_no_module_but_the_table_writes_a_non_ascii_bracket_of_it() -> None:
    """A copy of a bracket elsewhere in cite_core would drift from the table again."""
    wide = set(WIDE_OPENERS + WIDE_CLOSERS)
    assert wide == set("【】［］〔〕")
    copies = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file() and path != TABLE and path.suffix in (".py", ".js", ".css", ".json", ".txt")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if wide & set(line)
    ]
    assert copies == [], "read the bracket from cite_core/_brackets.py instead"


@pytest.fixture
def sources():
    nature = {"text": "Nature publishes research.", "title": "Nature"}
    return number_sources([nature, {"text": "Science too.", "title": "Science"}])


@pytest.mark.parametrize(("opener", "closer"), MARKERS)
def test_a_reference_list_is_removed_in_every_marker_bracket(sources, opener: str, closer: str) -> None:
    """The regression: ``〔1〕 Nature`` stayed in the answer (the list detection knew ``[ 【 ［`` only)."""
    entries = f"\n\n{opener}1{closer} Nature\n{opener}2{closer} Science"
    for tail in (entries, f"\n\nSources: {opener}1{closer} Nature"):
        with_list = parse_answer(f"Nature publishes research {opener}1{closer}." + tail, sources)
        assert with_list.text.rstrip() == "Nature publishes research [1].", tail
        assert with_list.removed_reference_list and "Nature" in with_list.removed_reference_list, tail
        assert [r.source.number for r in with_list.references] == [1]


@pytest.mark.parametrize(("opener", "closer"), MARKERS)
def test_every_marker_bracket_cites_and_mismatched_ones_are_text(sources, opener: str, closer: str) -> None:
    answer = parse_answer(f"Science too {opener}2{closer}.", sources)
    assert answer.text == "Science too [1]." and answer.references[0].source.number == 2
    other = next(c for o, c in MARKERS if c != closer)
    assert parse_answer(f"Science too {opener}2{other}.", sources).references == []


@pytest.mark.parametrize(("opener", "closer"), MARKERS)
def test_cite_tag_opens_a_citation_before_every_marker_bracket(sources, opener: str, closer: str) -> None:
    answer = parse_answer(f"<statement>Science too.<cite>{opener}2{closer}</cite></statement>", sources)
    assert "<cite>" not in answer.text and [r.source.number for r in answer.references] == [2]


@pytest.mark.parametrize(("opener", "closer"), MARKERS)
def test_the_extractive_answer_neutralises_every_marker_bracket(opener: str, closer: str) -> None:
    """A source sentence holding a bracket of the table is quoted without making a marker."""
    sources = number_sources([f"Nature {opener}2{closer} publishes research weekly.", "Other text."])
    text = extractive_answer("What does Nature publish?", sources)
    assert f"{opener}2{closer}" not in text and "(2)" in text
    answer = parse_answer(text, sources)
    assert [r.source.number for r in answer.references] == [1] and answer.invalid_markers == []


@pytest.mark.parametrize(("opener", "closer"), MARKERS)
def test_reveal_shows_an_invisible_character_in_every_bracket(sources, opener: str, closer: str) -> None:
    html = render_html(parse_answer(f"Science too {opener}2\u200d{closer}.", sources))
    assert "‹U+200D›" in html
