"""Localisation units and the choice among them (issue 13.1), on examples of web pages, news and
encyclopedia text: lines without end punctuation stand alone, short headline, menu and metadata units do
not beat a real sentence, and ties are broken by the documented rule."""

from __future__ import annotations

from cite_core import number_sources, parse_answer
from cite_core._locate.span import FRAGMENT_WEIGHT
from cite_core._locate.span import pick as _pick
from cite_core._sources.analysis import source_units
from cite_core._sources.segmenter import split_lines


def _cite(text: str, claim: str) -> str:
    return parse_answer(f"{claim} [1].", number_sources([text])).citations[0].cited_text


def _units(text: str) -> list[str]:
    source = number_sources([text])[0]
    return [text[u.start : u.end] for u in source_units(source)]


def test_a_line_ending_in_a_url_is_its_own_unit() -> None:
    text = "AUTHOR: https://news.example.org/authors/jane-roe/\nPUBLISHED: 2018-11-19T12:55:39Z"
    assert split_lines(text, 0, len(text)) == [(0, text.index("\n")), (text.index("PUB"), len(text))]
    assert _cite(text, "The story was published in 2018") == "PUBLISHED: 2018-11-19T12:55:39Z"


def test_a_line_broken_after_a_slash_inside_prose_still_wraps() -> None:
    text = "Visitors may bring cats and/\nor dogs into the park.\nTickets cost five euros."
    assert _units(text)[0] == "Visitors may bring cats and/\nor dogs into the park."


def test_a_headline_does_not_pull_the_span_onto_the_next_line() -> None:
    text = (
        "Zoo welcomes twin pandas\n"
        "The city zoo announced the birth of twin pandas on Monday.\n"
        "Keepers said both cubs are healthy."
    )
    cited = _cite(text, "The city zoo announced the birth of twin pandas")
    assert cited == "The city zoo announced the birth of twin pandas on Monday."


def test_a_navigation_line_with_separators_does_not_beat_the_sentence() -> None:
    text = (
        "Home | News | Zoo | Pandas | Twins | Weather\n"
        "The zoo said its pandas had twins.\n"
        "© 2024 City News. All rights reserved."
    )
    assert _cite(text, "The zoo pandas had twins") == "The zoo said its pandas had twins."


def test_a_title_metadata_line_does_not_beat_the_sentence_with_the_same_words() -> None:
    text = (
        "TITLE: Zoo pandas have twins | City News\n"
        "# Zoo pandas have twins\n"
        "The zoo pandas have twins, keepers said on Monday."
    )
    assert _cite(text, "The zoo pandas have twins") == "The zoo pandas have twins, keepers said on Monday."


def test_a_headline_that_holds_clearly_more_of_the_claim_still_wins() -> None:
    # the fragment weight breaks near-ties; it does not hide the only unit with the claim's facts
    text = "Twin pandas born at City Zoo on 3 May 2024\nThe pandas are healthy.\nVisitors are welcome."
    cited = _cite(text, "Twin pandas were born at City Zoo on 3 May 2024")
    assert cited == "Twin pandas born at City Zoo on 3 May 2024"


def test_ties_go_to_a_sentence_then_to_the_first_unit() -> None:
    # equal scores: the sentence before a fragment, then the first in the source
    assert _pick([2.0, 2.0, 2.0], [True, False, False]) == 1
    assert _pick([2.0, 2.0], [True, True]) == 0
    # the fragment weight applies before the tie rule: a fragment needs 1 / FRAGMENT_WEIGHT of a match
    assert _pick([2.0 / FRAGMENT_WEIGHT, 2.0], [True, False]) == 1
    assert _pick([2.0 / FRAGMENT_WEIGHT * 1.01, 2.0], [True, False]) == 0
