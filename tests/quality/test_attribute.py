"""Post-hoc attribution: citations added to an answer written without markers."""

from cite_core import CitedAnswer, number_sources, parse_answer
from cite_core._answer.attribute import attribute

SOURCES = [
    {"text": "The Eiffel Tower was completed in 1889. It is 330 metres tall.", "title": "Tower"},
    {"text": "Paris is the capital of France. It has about two million inhabitants.", "title": "Paris"},
]


def test_adds_markers_to_supported_sentences_only() -> None:
    answer = attribute(
        "The Eiffel Tower was completed in 1889. Paris is the capital of France. Bananas are yellow.", SOURCES
    )
    assert isinstance(answer, CitedAnswer)
    assert (
        answer.text == "The Eiffel Tower was completed in 1889 [1]. Paris is the capital of France [2]. "
        "Bananas are yellow."
    )
    assert [c.cited_text for c in answer.citations] == [
        "The Eiffel Tower was completed in 1889.",
        "Paris is the capital of France.",
    ]
    assert [r.source.title for r in answer.references] == ["Tower", "Paris"]
    assert (
        answer.plain_text
        == "The Eiffel Tower was completed in 1889. Paris is the capital of France. Bananas are yellow."
    )


def test_same_shape_as_parse_answer() -> None:
    sources = number_sources(SOURCES)
    ours = attribute("The Eiffel Tower was completed in 1889.", sources)
    direct = parse_answer(
        "The Eiffel Tower was completed in 1889 [1].",
        sources,
        unsupported_threshold=ours.unsupported_threshold,
    )
    assert ours.model_dump() == direct.model_dump()


def test_nothing_supported_gives_no_citations() -> None:
    answer = attribute("Bananas are yellow. Apples are red.", SOURCES)
    assert answer.citations == [] and answer.references == []
    assert answer.text == "Bananas are yellow. Apples are red."


def test_threshold_and_empty_inputs() -> None:
    assert attribute("", SOURCES).citations == []
    strict = attribute("The Eiffel Tower was completed in 1889.", SOURCES, threshold=1.01)
    assert strict.citations == []


def test_chinese_marker_goes_before_the_full_stop() -> None:
    answer = attribute("阿Q两只手都捏住了自己的辫根。", ["阿Q两只手都捏住了自己的辫根，歪着头。"])
    assert answer.text == "阿Q两只手都捏住了自己的辫根[1]。"


def test_a_sentence_cites_a_second_source_that_supports_it_as_well() -> None:
    sources = [
        {"text": "The Eiffel Tower was completed in 1889 for the World's Fair.", "title": "A"},
        {"text": "Completed in 1889, the Eiffel Tower was built for the World's Fair.", "title": "B"},
        {"text": "Paris is the capital of France.", "title": "C"},
    ]
    both = attribute("The Eiffel Tower was completed in 1889 for the World's Fair.", sources)
    assert both.text == "The Eiffel Tower was completed in 1889 for the World's Fair [1][2]."
    assert all(c.support >= both.unsupported_threshold for c in both.citations)
    one = attribute("The Eiffel Tower was completed in 1889 for the World's Fair.", sources, max_sources=1)
    assert one.text == "The Eiffel Tower was completed in 1889 for the World's Fair [1]."
    first, second = (c.support for c in both.citations)
    assert first > second  # B's pairs are out of order: a little less support
    strict = attribute("The Eiffel Tower was completed in 1889 for the World's Fair.", sources, margin=0.0)
    assert strict.text == "The Eiffel Tower was completed in 1889 for the World's Fair [1]."


def test_a_second_source_far_below_the_best_is_not_cited() -> None:
    sources = [
        {"text": "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", "title": "A"},
        {"text": "The tower in the park was repainted.", "title": "B"},
    ]
    answer = attribute("The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", sources)
    assert answer.text == "The Eiffel Tower was completed in 1889 for the World's Fair in Paris [1]."
