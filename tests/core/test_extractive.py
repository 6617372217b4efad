"""The offline extractive answerer: best supporting sentences, written with markers that parse back."""

from __future__ import annotations

import pytest

from cite_core import extractive_answer, number_sources, parse_answer


def test_best_sentences_with_markers_that_cite_them_exactly() -> None:
    sources = number_sources(
        [
            "The Sun produces energy by nuclear fusion. It is a star.",
            "Water boils at 100 degrees. Ice melts at 0 degrees.",
        ]
    )
    text = extractive_answer("How does the Sun produce energy?", sources, max_sentences=1)
    assert text == "The Sun produces energy by nuclear fusion [1]."
    (citation,) = parse_answer(text, sources).citations
    assert citation.cited_text == "The Sun produces energy by nuclear fusion."


def test_lead_in_sentences_are_not_answers() -> None:
    sources = number_sources(["What happens in one query about energy:\n\n- The Sun makes energy by fusion."])
    text = extractive_answer("What happens to energy in one query?", sources)
    assert "What happens in one query" not in text and "fusion [1]." in text


def test_nothing_matches_and_bad_arguments() -> None:
    sources = number_sources(["Water boils at 100 degrees."])
    assert (
        extractive_answer("Quantum chromodynamics?", sources)
        == "The sources do not contain an answer to this question."
    )
    with pytest.raises(ValueError, match="question must be a non-empty string"):
        extractive_answer("  ", sources)
    with pytest.raises(ValueError, match="max_sentences must be at least 1"):
        extractive_answer("Water?", sources, max_sentences=0)


def test_a_sentence_that_is_itself_a_question_is_not_an_answer() -> None:
    sources = number_sources(
        [
            'Try it: cite ask "How is the reference list built?"',
            "The reference list is built from the markers that appear in the answer.",
        ]
    )
    answer = extractive_answer("How is the reference list built?", sources)
    assert "cite ask" not in answer
    assert "built from the markers" in answer
