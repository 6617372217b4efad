"""The answer as an AIMessage with LangChain standard Citation annotations."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from cite_core import number_sources, parse_answer
from langchain_cite import documents_to_sources, to_ai_message
from langchain_cite._messages import answer_chunk

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


def test_annotation_offsets_with_marker_groups_thinking_and_non_ascii_text() -> None:
    sources = number_sources(
        [
            "El café se cultiva en Colombia desde el siglo XVIII.",
            "咖啡原产于埃塞俄比亚。咖啡因是一种兴奋剂。",
            "Coffee contains caffeine, a stimulant 🙂.",
        ]
    )
    answer = parse_answer(
        "<think>¿Qué fuente? [2] y [3] 🙂</think>\n\nEl café se cultiva en Colombia [1][3]. "
        "咖啡原产于埃塞俄比亚 [2, 3]。 Sin cita aquí. Coffee contains caffeine 🙂 [3][1].",
        sources,
    )
    assert answer.reasoning == "¿Qué fuente? [2] y [3] 🙂"  # the thinking section shifts no offset
    claims = ["El café se cultiva en Colombia", "咖啡原产于埃塞俄比亚", "Coffee contains caffeine 🙂"]
    plain = (
        "El café se cultiva en Colombia. 咖啡原产于埃塞俄比亚。 Sin cita aquí. Coffee contains caffeine 🙂."
    )
    shown = (
        "El café se cultiva en Colombia [1][2]. 咖啡原产于埃塞俄比亚 [3][2]。 Sin cita aquí. "
        "Coffee contains caffeine 🙂 [2][1]."
    )
    plain_starts = [
        0,
        len("El café se cultiva en Colombia. "),
        len(plain) - len("Coffee contains caffeine 🙂."),
    ]
    shown_starts = [
        0,
        len("El café se cultiva en Colombia [1][2]. "),
        len(shown) - len("Coffee contains caffeine 🙂 [2][1]."),
    ]
    two_each = [i for i in range(3) for _ in range(2)]  # every claim has two citations
    for markers, text, starts in ((False, plain, plain_starts), (True, shown, shown_starts)):
        [block] = to_ai_message(answer, markers=markers).content
        assert block["text"] == text
        spans = [(n["start_index"], n["end_index"]) for n in block["annotations"]]
        assert spans == [(starts[i], starts[i] + len(claims[i])) for i in two_each]
        assert [text[s:e] for s, e in spans] == [claims[i] for i in two_each]
        cited = [(n["extras"]["document_index"] + 1, n["cited_text"]) for n in block["annotations"]]
        assert cited == [(c.document_index + 1, c.cited_text) for c in answer.citations]
    [last] = answer_chunk(answer, "").content
    shown_spans = [(s, s + len(claims[i])) for i, s in enumerate(shown_starts)]
    assert [(n["start_index"], n["end_index"]) for n in last["annotations"]] == [
        shown_spans[i] for i in two_each
    ]


def test_references_and_annotations_say_where_the_text_is() -> None:
    sources = number_sources(
        [
            {
                "pages": ["Cats purr.", "Dogs bark at night."],
                "title": "Pets",
                "metadata": {"source": "docs/pets.pdf"},
            },
            {"text": "The Moon has no air.", "title": "The Moon", "url": "https://example.org/moon#facts"},
        ]
    )
    message = to_ai_message(parse_answer("Dogs bark [1]. The Moon has no air [2].", sources))
    pets, moon = message.response_metadata["references"]
    assert (pets["path"], pets["page_range"], pets["link"]) == ("docs/pets.pdf", [2, 2], None)
    link = "https://example.org/moon#facts:~:text=The%20Moon%20has%20no%20air."
    assert (moon["path"], moon["page_range"], moon["link"]) == (None, None, link)
    first, second = message.content[0]["annotations"]
    assert first["extras"]["path"] == "docs/pets.pdf" and "link" not in first["extras"]  # no file links
    assert (second["url"], second["extras"]["link"]) == ("https://example.org/moon#facts", link)
