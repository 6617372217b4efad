"""Localisation: the cited sentence, units, caching, and the citation shape."""

from cite_core import number_sources, parse_answer
from cite_core._locate.localize import Corpus, source_stats
from cite_core._schema.support import SUPPORT_THRESHOLD
from cite_core._sources.analysis import source_units


def test_cites_the_supporting_sentence() -> None:
    sources = number_sources(["The sky is blue. The grass is green. Water is wet."])
    citation = parse_answer("Grass is green [1].", sources).citations[0]
    assert citation.cited_text == "The grass is green."
    assert sources[0].text[citation.source_start : citation.source_end] == citation.cited_text


def test_explicit_sentence_range_is_kept() -> None:
    sources = number_sources(["One fact. Two facts. Three facts."])
    citation = Corpus(sources).cite(sources[0], "anything", reference=1, sentences=(2, 3))
    assert citation.cited_text == "Two facts. Three facts."


def test_units_and_stats_are_cached_on_the_source() -> None:
    source = number_sources(["A sentence here. Another one there."])[0]
    assert source_units(source) is source_units(source)
    assert source_stats(source) is source_stats(source)
    assert [source.text[u.start : u.end] for u in source_units(source)] == [
        "A sentence here.",
        "Another one there.",
    ]


def test_long_list_joined_by_the_splitter_is_cut_into_lines() -> None:
    lines = [f"{1960 + i}-{1961 + i} Professor of Anthropology, University number {i}" for i in range(8)]
    source = number_sources(["\n".join(lines)])[0]
    texts = [source.text[u.start : u.end] for u in source_units(source)]
    assert all(len(t) < 100 for t in texts)
    citation = parse_answer("He taught at University number 5 [1].", [source]).citations[0]
    assert citation.cited_text == lines[5]


def test_blocks_stay_whole() -> None:
    source = number_sources([{"blocks": ["First block. Still first.", "Second block."]}])[0]
    assert len(source_units(source)) == 2


def test_no_match_cites_the_first_segment_flagged_weak() -> None:
    sources = number_sources(["Alpha beta gamma."])
    answer = parse_answer("Completely unrelated words [1].", sources)
    citation = answer.citations[0]
    assert citation.cited_text == "Alpha beta gamma." and citation.support < SUPPORT_THRESHOLD
    assert answer.unsupported_citations == [citation]


def test_chinese_and_spanish_sentences_are_localised() -> None:
    zh = number_sources(["今天天气很好。阿Q两只手都捏住了自己的辫根。我们去公园散步。"])
    assert parse_answer("阿Q捏住了辫根[1]。", zh).citations[0].cited_text == "阿Q两只手都捏住了自己的辫根。"
    es = number_sources(["El día era claro. Don Quijote salió de su aldea al amanecer. Sancho dormía."])
    assert (
        parse_answer("Don Quijote salió de la aldea [1].", es)
        .citations[0]
        .cited_text.startswith("Don Quijote")
    )


# -- localisation units (issue 13.1): lines without end punctuation stand alone -----------------------


def _cite(text: str, claim: str) -> str:
    sources = number_sources([text])
    return parse_answer(f"{claim} [1].", sources).citations[0].cited_text


def test_a_headline_line_is_not_pulled_into_the_sentence_after_it() -> None:
    text = "Council news\nThe council approved the new budget on Monday.\nOther stories"
    assert _cite(text, "The council approved the budget") == "The council approved the new budget on Monday."


def test_a_span_never_takes_in_a_neighbouring_line() -> None:
    text = "Budget 2024\nThe council approved the new budget.\nIt funds parks and libraries."
    cited = _cite(text, "The council approved a budget that funds parks and libraries")
    assert "\n" not in cited


def test_a_menu_line_sharing_the_words_does_not_beat_the_sentence() -> None:
    text = (
        "Home News Council Budget Parks Libraries Sport Weather\n"
        "The council approved a budget for parks and libraries.\n"
        "Contact us"
    )
    assert _cite(text, "Council budget for parks and libraries") == (
        "The council approved a budget for parks and libraries."
    )


def test_list_items_and_table_rows_are_units_of_their_own() -> None:
    assert _cite("We grow:\n- Red apples\n- Green pears\n- Yellow plums", "They grow green pears") == (
        "- Green pears"
    )
    table = "Name | Launched\nAlpha | 1999\nBeta | 2004\nGamma | 2011"
    assert _cite(table, "Beta was launched in 2004") == "Beta | 2004"


def test_a_line_starting_a_short_date_or_place_is_its_own_unit() -> None:
    text = "Film: South side of the boulevard\nJuly 11, 1909\nin Los Angeles, CA"
    assert _cite(text, "She was born on July 11, 1909") == "July 11, 1909"


def test_wrapped_prose_lines_stay_one_sentence() -> None:
    text = (
        "The committee, after a long debate that lasted most of the\n"
        "afternoon, approved the plan for the new bridge.\nNext item."
    )
    source = number_sources([text])[0]
    first = source_units(source)[0]
    assert text[first.start : first.end].endswith("new bridge.")


def test_ties_prefer_a_sentence_then_the_first() -> None:
    # the same match in a heading and in a sentence: the sentence
    assert _cite("Budget approved\nThe budget was approved.", "Budget approved") == "The budget was approved."
    # two sentences with the same match: the first
    assert (
        _cite("Budget approved Monday. Budget approved Friday.", "Budget approved")
        == "Budget approved Monday."
    )


def test_localisation_units_may_differ_from_split_sentences() -> None:
    from cite_core import split_sentences

    text = "Film: South side of the boulevard\nJuly 11, 1909\nin Los Angeles, CA"
    source = number_sources([text])[0]
    assert len(split_sentences(text)) < len(source_units(source)) == 3
