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


def test_a_sentence_that_only_points_at_a_link_is_not_an_answer() -> None:
    """The README's main job quoted 'How links are built and when file links are allowed: rendering.md'
    (a cross-reference of docs/output-formats.md) as a sentence of its answer."""
    source = (
        "How links are built and when links are allowed: [rendering.md](rendering.md#links).\n\n"
        "Links are built from the source's URL and the cited sentence: [the spec](https://example.org/s) "
        "says how they are encoded."
    )
    text = extractive_answer("How are links built?", number_sources([source]))
    assert "rendering.md" not in text and "Links are built from the source's URL" in text


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


FERRIES = """# Island ferries

## Island ferries

Island ferries leave the harbour every morning at seven. The crossing to the island takes forty minutes
when the sea is calm, and up to an hour in winter storms.

```console
$ ferry --timetable
Island ferries depart at seven, noon and five daily.
```

    island ferries depart = seven

- Tickets for the island ferries are sold at the harbour office and on board,
  but bicycles must be booked a day ahead.
- Dogs travel free
  on every island ferry.

> The island ferries were first run by the fishermen's cooperative in 1952,
> who carried passengers alongside the catch.

| Island ferries | depart |
| --- | --- |
| Island ferries morning | seven |

Island ferries
==============

They are painted blue and white.
"""


def _quoted(answer: str, sources: list) -> list[str]:
    return [c.cited_text for c in parse_answer(answer, sources).citations]


def test_markdown_structure_is_never_quoted_as_a_sentence() -> None:
    sources = number_sources([FERRIES])
    answer = extractive_answer("When do the island ferries depart daily?", sources, max_sentences=10)
    assert "Island ferries [1]." not in answer and "Island ferries[1]" not in answer  # headings
    assert "noon" not in answer and "=" not in answer and "|" not in answer  # code, terminal, table
    assert "painted" not in answer  # "They ...": out of context, scored down below the cutoff
    assert "Island ferries leave the harbour every morning at seven [1]." in answer


def test_wrapped_items_quotes_and_lines_are_quoted_whole_and_cited_whole() -> None:
    sources = number_sources([FERRIES])
    for question, sentence in [
        ("Do dogs travel free on the island ferry?", "Dogs travel free on every island ferry"),
        ("Who first ran the island ferries?", "who carried passengers alongside the catch"),
        ("How long does the crossing to the island take?", "and up to an hour in winter storms"),
        ("Must bicycles be booked for the island ferries?", "but bicycles must be booked a day ahead"),
    ]:
        answer = extractive_answer(question, sources, max_sentences=1)
        assert sentence in answer, (question, answer)
        assert ">" not in answer and "- " not in answer and "\n" not in answer
        (cited,) = _quoted(answer, sources)
        assert cited.rstrip(".").endswith(sentence.split()[-1]), (question, cited)


def test_a_chunk_starting_inside_a_code_block_quotes_no_code() -> None:
    chunk = (
        "indexed 2 file(s) into the island index for the ferries.\n```\n\n"
        "The ferries index is rebuilt every night from the timetable files.\n"
    )
    answer = extractive_answer("How is the ferries index built?", number_sources([chunk]))
    assert answer == "The ferries index is rebuilt every night from the timetable files [1]."
    ending = "The ferries index is rebuilt every night.\n\n```python\nferries index = build(files)\n"
    answer = extractive_answer("How is the ferries index built?", number_sources([ending]))
    assert answer == "The ferries index is rebuilt every night [1]."


def test_fragments_of_a_list_sentence_and_cut_sentences_are_not_answers() -> None:
    text = (
        "The ferry errors cover:\n\n- a ferry ticket that cannot be read;\n"
        "- `--ferry`: the ferry to take,\n\nferry tickets are sold on board. Ferry tickets cost ten euros.\n"
    )
    answer = extractive_answer("What do ferry tickets cost?", number_sources([text]), max_sentences=5)
    assert answer == "Ferry tickets cost ten euros [1]."


def test_a_sentence_under_a_heading_that_asks_the_question_ranks_first() -> None:
    text = (
        "## Ferry timetable\n\nThe boats sail at seven and at noon.\n\n"
        "## Where the ferries dock\n\nThe boats sail from the north quay.\n"
    )
    answer = extractive_answer("Where do the ferries dock when the boats sail?", number_sources([text]))
    assert answer.startswith("The boats sail from the north quay [1].")
    assert "Where the ferries dock" not in answer  # the heading is context, never quoted
