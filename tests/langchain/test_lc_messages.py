"""The answer as an AIMessage with LangChain standard Citation annotations."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from cite_core import parse_answer
from langchain_cite import documents_to_sources, to_ai_message

from .conftest import ANSWER, corpus, needs_content_blocks

pytestmark = needs_content_blocks


def test_annotations_point_into_the_message_text() -> None:
    sources = documents_to_sources(corpus())
    answer = parse_answer(ANSWER, sources)
    message = to_ai_message(answer, id="run-1")
    assert isinstance(message, AIMessage) and message.id == "run-1"
    [block] = message.content
    assert block["type"] == "text" and block["text"] == answer.plain_text == message.text
    annotations = block["annotations"]
    assert len(annotations) == len(answer.citations) == 3
    for note, citation in zip(annotations, answer.citations):
        assert note["type"] == "citation"
        claim = block["text"][note["start_index"] : note["end_index"]]
        assert claim and claim.strip() == claim
        assert note["cited_text"] == citation.cited_text
        extras = note["extras"]
        assert extras["reference"] == citation.reference
        assert (
            sources[extras["document_index"]].text[extras["source_start"] : extras["source_end"]]
            == note["cited_text"]
        )
        assert extras["location_type"] == "char_location"
    assert annotations[0]["title"] == "The Sun" and annotations[0]["extras"]["document_id"] == "sun.txt"
    assert annotations[-1]["url"] == "https://example.org/moon" and "url" not in annotations[0]
    assert block["text"][annotations[0]["start_index"] : annotations[0]["end_index"]].startswith(
        "The Sun produces"
    )
    refs = message.response_metadata["references"]
    assert [r["number"] for r in refs] == [1, 2] and refs[1]["title"] == "The Moon"


def test_document_offsets_use_start_index() -> None:
    sources = documents_to_sources(corpus())
    answer = parse_answer("It reaches the surface after thousands of years [1].", sources)
    [note] = to_ai_message(answer).content[0]["annotations"]
    full = corpus()[0].page_content + " " + corpus()[2].page_content
    assert full[note["extras"]["start_char_index"] : note["extras"]["end_char_index"]] == note["cited_text"]


def test_standard_content_blocks_keep_annotations() -> None:
    answer = parse_answer(ANSWER, documents_to_sources(corpus()))
    blocks = to_ai_message(answer).content_blocks
    assert blocks[0]["type"] == "text" and len(blocks[0]["annotations"]) == 3
