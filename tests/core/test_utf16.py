"""UTF-16 offsets beside the code-point ones, for a web page's own highlighting (issue 23 item 14)."""

from __future__ import annotations

from cite_core import CitationStream, CitedAnswer, number_sources, parse_answer

TEXT = "Emoji 🙂 first. The 𠮷野家 chain sells gyudon 🍚. Plain sentence here about rice."
ANSWER = "The 𠮷野家 chain 🙂 sells gyudon [1]. Plain sentence about rice [1]."


def utf16_slice(text: str, start: int, end: int) -> str:
    """What a browser's ``text.slice(start, end)`` gives: UTF-16 code units."""
    return text.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


def test_citation_and_claim_offsets_in_utf16_code_units() -> None:
    sources = number_sources([{"text": TEXT, "title": "Food"}])
    answer = parse_answer(ANSWER, sources)
    assert len(answer.citations) == 2
    for citation in answer.citations:
        assert citation.type == "char_location"
        assert (
            utf16_slice(TEXT, citation.start_char_index_utf16, citation.end_char_index_utf16)
            == citation.cited_text
        )
        assert (
            utf16_slice(TEXT, citation.source_start_utf16, citation.source_end_utf16) == citation.cited_text
        )
    first = answer.citations[0]
    assert first.start_char_index_utf16 == first.start_char_index + 1  # the emoji before it: one more unit
    assert answer.citations[1].start_char_index_utf16 == answer.citations[1].start_char_index + 3  # 🙂 𠮷 🍚
    for claim in answer.claims:
        assert utf16_slice(answer.text, claim.start_utf16, claim.end_utf16) == claim.text
        assert utf16_slice(answer.plain_text, claim.plain_start_utf16, claim.plain_end_utf16) == claim.text
    assert answer.claims[1].start_utf16 == answer.claims[1].start + 2  # 𠮷 and 🙂 before it


def test_to_anthropic_keeps_the_api_shape_unless_asked() -> None:
    answer = parse_answer(ANSWER, number_sources([TEXT]))
    plain = answer.to_anthropic()["content"][0]["citations"][0]
    assert "start_char_index_utf16" not in plain and "source_start_utf16" not in plain
    asked = answer.to_anthropic(utf16=True)["content"][0]["citations"][0]
    units = [len(TEXT[: plain[k]].encode("utf-16-le")) // 2 for k in ("start_char_index", "end_char_index")]
    assert asked == {**plain, "start_char_index_utf16": units[0], "end_char_index_utf16": units[1]}


def test_json_round_trips_and_streams_carry_the_utf16_offsets() -> None:
    sources = number_sources([TEXT])
    answer = parse_answer(ANSWER, sources)
    data = answer.model_dump(mode="json")
    citation = data["content"][0]["citations"][0]
    assert {
        "source_start_utf16",
        "source_end_utf16",
        "start_char_index_utf16",
        "end_char_index_utf16",
    } <= set(citation)
    assert CitedAnswer.model_validate_json(answer.model_dump_json()) == answer
    stream = CitationStream(sources)
    events = [e for i in range(len(ANSWER)) for e in stream.feed(ANSWER[i])]
    stream.finish()
    events += stream.pending_events()
    assert [e.citation for e in events if e.type == "citations_delta"] == answer.citations


def test_document_coordinates_have_no_utf16_char_index() -> None:
    sources = number_sources([{"text": TEXT[15:], "start_index": 15, "document_id": "food"}])
    [citation] = parse_answer("The 𠮷野家 chain sells gyudon [1].", sources).citations
    assert citation.start_char_index == citation.source_start + 15
    assert citation.start_char_index_utf16 is None  # the text before the chunk is not known
    assert (
        utf16_slice(sources[0].text, citation.source_start_utf16, citation.source_end_utf16)
        == citation.cited_text
    )
