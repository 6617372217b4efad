"""parse_answer and CitationStream: marker shapes, what is not a marker, claims, events, results."""

from __future__ import annotations

import json

import pytest

from cite_core import CitationStream, CitedAnswer, number_sources, parse_answer
from cite_core._stream.markers import MAX_HOLD

GRASS = "The grass is green. The sky is blue."
WATER = "Water is essential for life."
PARIS = "Paris is the capital of France. It has many museums."


@pytest.fixture
def sources():
    return number_sources(
        [
            {"text": GRASS, "title": "My Document", "url": "https://example.org/d"},
            WATER,
            {"text": PARIS, "title": "France"},
            "Filler four.",
            "Filler five.",
        ]
    )


def cited_numbers(answer: CitedAnswer) -> list[int]:
    return [c.document_index + 1 for c in answer.citations]


@pytest.mark.parametrize(
    ("marker", "numbers"),
    [
        ("[1]", [1]),
        ("[1][2]", [1, 2]),
        ("[1, 2]", [1, 2]),
        ("[1,2][3]", [1, 2, 3]),
        ("[1-3]", [1, 2, 3]),
        ("[1–3]", [1, 2, 3]),
        ("[[1]]", [1]),
        ("【1】", [1]),
        ("［1］", [1]),
        ("[^1]", [1]),
        ("[Source 1]", [1]),
        ("(Source 1)", [1]),
        ("[Doc 1]", [1]),
        ("[ID:1]", [1]),
        ("[ 1 ]", [1]),
        ("[1](https://example.org/x)", [1]),
        ("[1] [2]", [1, 2]),
        ("[1], [2]", [1, 2]),
        ("[Sources 1, 3]", [1, 3]),
        ("【１】", [1]),
        ("[1; 2]", [1, 2]),
        ("(Sources 1 and 2)", [1, 2]),
        ("[source: 2]", [2]),
        ("[Document 3]", [3]),
    ],
)
def test_marker_shapes_real_models_write(sources, marker, numbers) -> None:
    answer = parse_answer(f"The grass is green {marker}.", sources)
    assert cited_numbers(answer) == numbers
    assert answer.invalid_markers == []
    displayed = "".join(f"[{i}]" for i in range(1, len(numbers) + 1))
    assert answer.text == f"The grass is green {displayed}."
    assert answer.plain_text == "The grass is green."


def test_cit_tags_from_the_spanish_seed(sources) -> None:
    text = (
        "He says <CIT chunk_id='1' sentences='2-2'>the sky is blue</CIT>. "
        "And <CIT chunk_id=’3′ sentences=’1–2′>Paris has museums</CIT>."
    )
    answer = parse_answer(text, sources)
    assert answer.plain_text == "He says the sky is blue. And Paris has museums."
    cited = [(b.text, [c.cited_text for c in b.citations]) for b in answer.content if b.citations]
    assert cited == [("the sky is blue", ["The sky is blue."]), ("Paris has museums", [PARIS])]
    assert answer.text == "He says the sky is blue[1]. And Paris has museums[2]."


@pytest.mark.parametrize(
    "text",
    [
        "Use `arr[1]` here.",
        "```\nx = a[1]\n```\n",
        "- [ ] todo\n- [x] done",
        "See [the docs](https://x.org).",
        "A range [a-b] and [foo].",
        "Array (1) and (see 2).",
        "~~~\n[2]\n~~~",
    ],
)
def test_what_is_not_a_citation(sources, text) -> None:
    answer = parse_answer(text, sources)
    assert answer.citations == [] and answer.references == [] and answer.invalid_markers == []
    assert answer.text == text and answer.plain_text == text


@pytest.mark.parametrize(
    ("marker", "invalid"),
    [
        ("[0]", ["[0]"]),
        ("[7]", ["[7]"]),
        ("[2019]", ["[2019]"]),
        ("[1, 7]", ["[7]"]),
        ("[4-9]", ["[6]", "[7]", "[8]", "[9]"]),
        ("[Source 9]", ["[Source 9]"]),
        ("[1-200]", ["[1-200]"]),
    ],
)
def test_out_of_range_markers_are_reported_not_linked(sources, marker, invalid) -> None:
    answer = parse_answer(f"The grass is green {marker}.", sources)
    assert answer.invalid_markers == invalid
    assert all(1 <= n <= 5 for n in cited_numbers(answer))
    assert "[7]" not in answer.text and "[0]" not in answer.text


def test_references_deduplicated_in_order_of_first_appearance_and_renumbered(sources) -> None:
    answer = parse_answer(
        "Paris is the capital [3]. Water is essential [2]. The grass is green [3][1].", sources
    )
    assert [(r.number, r.source.number) for r in answer.references] == [(1, 3), (2, 2), (3, 1)]
    assert answer.text == "Paris is the capital [1]. Water is essential [2]. The grass is green [1][3]."
    assert [c.reference for c in answer.citations] == [1, 2, 1, 3]


def test_each_marker_group_cites_the_claim_before_it(sources) -> None:
    answer = parse_answer(
        "The grass is green [1] and the sky is blue [1]. Water is essential for life [2].", sources
    )
    cited = [(b.text, [c.cited_text for c in b.citations]) for b in answer.content if b.citations]
    assert cited == [
        ("The grass is green", ["The grass is green."]),
        ("and the sky is blue", ["The sky is blue."]),
        ("Water is essential for life", [WATER]),
    ]


def test_claim_goes_back_to_the_sentence_boundary(sources) -> None:
    answer = parse_answer("Hello there. The sky is blue [1].", sources)
    assert [b.text for b in answer.content] == ["Hello there. ", "The sky is blue", "."]


def test_marker_after_the_period_and_marker_before_the_claim(sources) -> None:
    after = parse_answer("The sky is blue. [1] Unrelated words.", sources)
    assert [(b.text, bool(b.citations)) for b in after.content][:1] == [("The sky is blue.", True)]
    before = parse_answer("[2] Water is essential for life. Next.", sources)
    block = next(b for b in before.content if b.citations)
    assert block.text == "Water is essential for life." and block.citations[0].cited_text == WATER


def test_reference_list_written_by_the_model_is_removed(sources) -> None:
    for tail in (
        "\n\nSources:\n[1] My Document\n[3] France",
        "\n\n## References\n1. My Document",
        "\n\n[1] My Document, https://example.org/d",
        "\n\n[^1]: My Document",
        "\n\n**Sources:** [1], [3]",
    ):
        answer = parse_answer("The grass is green [1]." + tail, sources)
        assert [r.source.number for r in answer.references] == [1], tail
        assert answer.removed_reference_list is not None and answer.removed_reference_list.strip(), tail
        assert "France" not in answer.plain_text and "My Document" not in answer.plain_text


def test_line_starting_with_a_marker_that_is_not_a_reference_entry_is_a_citation(sources) -> None:
    answer = parse_answer("Intro.\n[2] Water is essential for life.", sources)
    assert answer.removed_reference_list is None and cited_numbers(answer) == [2]


def test_model_url_is_never_kept(sources) -> None:
    answer = parse_answer("Green [1](https://evil.example/x) ok.", sources)
    assert answer.text == "Green [1] ok." and "evil" not in answer.model_dump_json()
    assert answer.references[0].url == "https://example.org/d"


def test_no_sources_at_all() -> None:
    answer = parse_answer("I could not find this [1].", [])
    assert answer.references == [] and answer.invalid_markers == ["[1]"]
    assert answer.plain_text == "I could not find this."


def test_fallback_to_the_whole_source_when_nothing_matches(sources) -> None:
    (citation,) = parse_answer("Zebras gallop quickly [2].", sources).citations
    assert citation.cited_text == WATER


def test_support_scores_and_unsupported_flags(sources) -> None:
    answer = parse_answer("The grass is green [1]. Zebras gallop [1].", sources)
    good, bad = answer.citations
    assert 0.0 <= bad.support < good.support <= 1.0
    assert answer.unsupported_citations == [bad]


def test_anthropic_shape_and_json_round_trip(sources) -> None:
    answer = parse_answer("The grass is green [1]. Intro only.", sources)
    assert answer.to_anthropic() == {
        "content": [
            {
                "type": "text",
                "text": "The grass is green",
                "citations": [
                    {
                        "type": "char_location",
                        "cited_text": "The grass is green.",
                        "document_index": 0,
                        "document_title": "My Document",
                        "start_char_index": 0,
                        "end_char_index": 19,
                    }
                ],
            },
            {"type": "text", "text": ". Intro only."},
        ]
    }
    again = CitedAnswer.model_validate_json(answer.model_dump_json())
    assert again == answer
    json.dumps(answer.to_anthropic())


def test_markdown_lists_only_cited_sources(sources) -> None:
    md = parse_answer("Paris [3]. Grass [1].", sources).to_markdown(style="plain")
    assert md.startswith("Paris [1]. Grass [2].")
    references = md.split("References", 1)[1]
    assert (
        references.index("France") < references.index("My Document") and "https://example.org/d" in references
    )
    assert "Water" not in md
    footnotes = parse_answer("Paris [3].", sources).to_markdown(style="footnotes")
    assert "Paris [^1]." in footnotes and "[^1]: France" in footnotes


def test_stream_events_for_one_character_chunks(sources) -> None:
    text = "The grass is green [1] and water matters [2]."
    stream = CitationStream(sources)
    events = [e for ch in text for e in stream.feed(ch)]
    answer = stream.finish()
    events += stream.pending_events()
    deltas = [e for e in events if e.type == "text_delta"]
    citations = [e for e in events if e.type == "citations_delta"]
    assert len(deltas) > 20
    assert "".join(d.text for d in deltas) == answer.plain_text == "The grass is green and water matters."
    assert [e.citation.cited_text for e in citations] == ["The grass is green.", WATER]
    first = citations[0]
    assert answer.plain_text[first.claim_start : first.claim_end] == "The grass is green"
    assert answer == parse_answer(text, sources)


def test_citation_event_arrives_as_soon_as_the_marker_closes(sources) -> None:
    stream = CitationStream(sources)
    assert [e.type for e in stream.feed("The grass is green [1")] == ["text_delta"]
    assert [e.type for e in stream.feed("]")] == []  # "[1](url)" or "[1]]" may still follow
    assert [e.type for e in stream.feed(".")] == ["citations_delta", "text_delta"]


def test_only_an_unfinished_marker_is_held_back(sources) -> None:
    stream = CitationStream(sources)
    released = "".join(
        e.text for e in stream.feed("Some text here and [" + "1, " * 10) if e.type == "text_delta"
    )
    assert released == "Some text here and"
    released = "".join(e.text for e in stream.feed(". more") if e.type == "text_delta")
    assert released.startswith(" [1, 1")  # not a marker after all: released at once
    stream = CitationStream(sources)
    long = "[" + "1 " * MAX_HOLD
    assert "".join(e.text for e in stream.feed(long) if e.type == "text_delta") == long.rstrip()


def test_feed_rejects_non_text_and_parse_rejects_non_str(sources) -> None:
    with pytest.raises(TypeError, match="expects str chunks, got bytes"):
        CitationStream(sources).feed(b"abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got NoneType"):
        parse_answer(None, sources)  # type: ignore[arg-type]


def test_raw_items_are_numbered_automatically() -> None:
    answer = parse_answer("Green [1].", ["The grass is green."])
    assert answer.references[0].source.number == 1


def test_chinese_answer_and_sources() -> None:
    sources = number_sources(["太阳通过核聚变产生能量。地球绕着太阳转。", "水是生命之源。"])
    answer = parse_answer("太阳的能量来自核聚变【1】。水很重要［2］。", sources)
    assert [c.cited_text for c in answer.citations] == ["太阳通过核聚变产生能量。", "水是生命之源。"]
    assert answer.text == "太阳的能量来自核聚变[1]。水很重要[2]。"


def test_two_word_heading_is_decided_on_the_whole_line_when_streamed(sources) -> None:
    text = "Grass is green [1].\nSOURCES CITED\n[1] My Document"
    stream = CitationStream(sources)
    for ch in text:
        stream.feed(ch)
    assert stream.finish() == parse_answer(text, sources)
    assert parse_answer(text, sources).removed_reference_list.startswith("SOURCES CITED")


@pytest.mark.parametrize(
    "text",
    [
        "The grass is green [1] and water matters [2].",
        "[1] The grass is green.",
        "According to [3], Paris is the capital.",
        "The grass is green.[1][2] The sky is blue [1].",
        "<CIT chunk_id='1'>The grass [2] is green</CIT>.",
        "[1]",
        "No markers at all.",
        "",
    ],
)
def test_block_marker_text_rebuilds_the_display_text(sources, text) -> None:
    answer = parse_answer(text, sources)
    assert "".join(b.text + b.marker_text for b in answer.content) == answer.text
    assert all("marker_text" not in b for b in answer.to_anthropic()["content"])
    assert all(b["text"] or b.get("citations") for b in answer.to_anthropic()["content"])


def test_marker_text_follows_the_cited_claim(sources) -> None:
    answer = parse_answer("The grass is green [1][2]. Paris [3].", sources)
    assert [(b.text, b.marker_text) for b in answer.content] == [
        ("The grass is green", " [1][2]"),
        (". ", ""),
        ("Paris", " [3]"),
        (".", ""),
    ]


def test_anthropic_blocks_carry_marker_text(sources) -> None:
    from cite_core import from_anthropic_content

    citation = {
        "type": "char_location",
        "cited_text": "The grass is green.",
        "document_index": 0,
        "start_char_index": 0,
        "end_char_index": 19,
    }
    answer = from_anthropic_content(
        [
            {"type": "text", "text": "Grass is green. "},
            {"type": "text", "text": "Yes.", "citations": [citation]},
        ],
        sources,
    )
    assert answer.text == "Grass is green. Yes. [1]"
    assert "".join(b.text + b.marker_text for b in answer.content) == answer.text


def test_each_block_carries_its_marker_groups_as_data(sources) -> None:
    answer = parse_answer("According to [2], the sky is blue. The grass is green [1][2].", sources)
    groups = [(b.text, [(g.lead, g.numbers, g.tail) for g in b.marker_groups]) for b in answer.content]
    assert ("According to", [(" ", [1], ",")]) in groups
    assert ("The grass is green", [(" ", [2, 1], "")]) in groups
    for block in answer.content:
        for group in block.marker_groups:
            assert [c.reference for c in group.citations] == group.numbers
    assert all("marker_groups" not in b for b in answer.to_anthropic()["content"])
    assert all(c.segment == 0 for c in answer.citations)
    assert all("segment" not in c for b in answer.to_anthropic()["content"] for c in b.get("citations", []))
