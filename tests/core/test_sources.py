"""number_sources: numbering, metadata, merging, the three source kinds, and clear errors."""

from __future__ import annotations

import base64

import pytest

from cite_core import Segment, Source, SourceError, number_sources, parse_answer
from cite_core._sources.numbering import SEGMENT_SEPARATOR


def test_strings_and_dicts_are_numbered_in_rank_order() -> None:
    sources = number_sources(
        [
            {
                "text": "The grass is green. The sky is blue.",
                "title": "My Document",
                "url": "https://example.org/d",
                "author": "Ann",
                "lang": "en",
            },
            "Water is essential for life.",
        ]
    )
    assert [s.number for s in sources] == [1, 2]
    assert sources[0].text == "The grass is green. The sky is blue."
    assert (sources[0].title, sources[0].url, sources[0].author) == (
        "My Document",
        "https://example.org/d",
        "Ann",
    )
    assert sources[0].metadata == {"lang": "en"}
    assert sources[1].title is None and sources[1].label == "Source 2"


def test_nested_metadata_dict_is_flattened_and_kept() -> None:
    (source,) = number_sources(
        [{"text": "abc def", "metadata": {"title": "T", "source": "a.txt", "tags": ["x"]}}]
    )
    assert source.title == "T"
    assert source.metadata == {"source": "a.txt", "tags": ["x"]}


def test_chunks_of_one_document_merge_at_the_rank_of_the_best_chunk() -> None:
    sources = number_sources(
        [
            {"text": "Second part.", "document_id": "d", "start_index": 20, "title": "Doc"},
            "Other document.",
            {"text": "First part here.", "document_id": "d", "start_index": 0, "title": "Doc"},
        ]
    )
    assert len(sources) == 2
    doc = sources[0]
    assert doc.number == 1 and doc.title == "Doc" and doc.metadata["merged_chunks"] == 2
    assert [s.doc_start for s in doc.segments] == [0, 20]  # document order
    assert doc.text == "First part here." + SEGMENT_SEPARATOR + "Second part."
    assert sources[1].number == 2


def test_merge_can_be_turned_off() -> None:
    items = [{"text": "A.", "document_id": "d"}, {"text": "B.", "document_id": "d"}]
    assert len(number_sources(items, merge=False)) == 2
    assert len(number_sources(items)) == 1


def test_overlapping_chunks_are_coalesced_using_their_offsets() -> None:
    doc = "The grass is green. The sky is blue. Water is wet."
    sources = number_sources(
        [
            {"text": doc[0:30], "document_id": "d", "start_index": 0},
            {"text": doc[20:], "document_id": "d", "start_index": 20},
        ]
    )
    assert len(sources[0].segments) == 1
    assert sources[0].text == doc


def test_citations_use_document_coordinates_when_chunks_know_their_start() -> None:
    doc = "Intro sentence here. The grass is green. The sky is blue."
    sources = number_sources([{"text": doc[21:], "start_index": 21, "document_id": "d"}])
    answer = parse_answer("The sky is blue [1].", sources)
    (citation,) = answer.citations
    assert citation.cited_text == "The sky is blue."
    assert doc[citation.start_char_index : citation.end_char_index] == citation.cited_text
    assert sources[0].text[citation.source_start : citation.source_end] == citation.cited_text


def test_pages_are_cited_by_page_number() -> None:
    sources = number_sources(
        [{"pages": ["Page one talks about cats.", "Page two talks about dogs."], "title": "Pets"}]
    )
    assert sources[0].kind == "pages" and sources[0].pages == (1, 2)
    (citation,) = parse_answer("Dogs are discussed [1].", sources).citations
    assert citation.type == "page_location"
    assert (citation.start_page_number, citation.end_page_number) == (2, 3)
    assert citation.cited_text == "Page two talks about dogs."


def test_chunk_with_page_metadata_is_a_paged_source() -> None:
    sources = number_sources(
        [
            {"text": "Cats purr.", "page": 4, "document_id": "p"},
            {"text": "Dogs bark.", "page": 7, "document_id": "p"},
        ]
    )
    assert sources[0].kind == "pages" and sources[0].pages == (4, 7)
    (citation,) = parse_answer("Dogs bark [1].", sources).citations
    assert (citation.start_page_number, citation.end_page_number) == (7, 8)


def test_custom_content_blocks_are_cited_by_block_index() -> None:
    sources = number_sources(
        [{"blocks": ["First block about tea.", {"type": "text", "text": "Second about coffee."}]}]
    )
    (citation,) = parse_answer("Coffee is covered [1].", sources).citations
    assert citation.type == "content_block_location"
    assert (citation.start_block_index, citation.end_block_index) == (1, 2)
    assert citation.cited_text == "Second about coffee."


def test_anthropic_document_blocks() -> None:
    sources = number_sources(
        [
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green."},
                "title": "My Document",
                "context": "Trustworthy.",
                "citations": {"enabled": True},
            },
            {
                "type": "document",
                "source": {"type": "content", "content": [{"type": "text", "text": "Block A."}]},
            },
        ]
    )
    assert sources[0].kind == "text" and sources[0].context == "Trustworthy."
    assert sources[1].kind == "blocks"


def test_pdf_document_block_is_read_by_page(tmp_path) -> None:
    pytest.importorskip("pypdf")
    pdf = _tiny_pdf(["Hello from page one.", "Second page text."])
    sources = number_sources(
        [
            {
                "type": "document",
                "source": {
                    "type": "base64",
                    "media_type": "application/pdf",
                    "data": base64.b64encode(pdf).decode(),
                },
            }
        ]
    )
    assert sources[0].kind == "pages" and len(sources[0].segments) == 2
    assert "Second page" in sources[0].segments[1].text


def _tiny_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of text per page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
    kids = []
    for i, text in enumerate(pages):
        page_id, content_id = 3 + 2 * i, 4 + 2 * i
        kids.append(f"{page_id} 0 R")
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R "
            f"/Resources << /Font << /F1 {3 + 2 * len(pages)} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>"
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = "%PDF-1.4\n", []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out.encode()))
        out += f"{n} 0 obj\n{body}\nendobj\n"
    xref = len(out.encode())
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n"
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return out.encode()


def test_source_objects_are_renumbered() -> None:
    first = number_sources(["Alpha text.", "Beta text."])
    again = number_sources([first[1], first[0]])
    assert [(s.number, s.text) for s in again] == [(1, "Beta text."), (2, "Alpha text.")]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([None], "item 0: expected a str"),
        ([b"bytes"], "item 0: expected a str"),
        (["ok", "   "], "item 1: text is empty"),
        ([{"title": "no text"}], "item 0: a dict item needs a 'text' key"),
        ([{"text": 5}], "item 0: 'text' must be a str"),
        ([{"text": "x", "title": {"a": 1}}], "item 0: 'title' must be a string, got dict"),
        ([{"text": "x", "page": 0}], "item 0: 'page' must be >= 1"),
        ([{"text": "x", "start_index": -3}], "item 0: 'start_index' must be >= 0"),
        ([{"text": "x", "metadata": ["not", "a", "dict"]}], "item 0: 'metadata' must be a dict"),
        ([{"pages": []}], "item 0: 'pages' must be a non-empty list"),
        (
            [{"type": "document", "source": {"type": "url", "url": "https://x"}}],
            "unsupported document source type",
        ),
    ],
)
def test_bad_items_get_clear_errors(items, message) -> None:
    with pytest.raises(SourceError, match=message.replace("(", r"\(").replace("[", r"\[")):
        number_sources(items)


def test_a_single_string_is_not_a_list_of_items() -> None:
    with pytest.raises(SourceError, match="sequence of items"):
        number_sources("just a string")


def test_numeric_metadata_is_converted_to_text() -> None:
    (source,) = number_sources([{"text": "x y", "title": 2024, "author": 3.5}])
    assert (source.title, source.author) == ("2024", "3.5")


def test_nested_metadata_is_never_read_as_structure() -> None:
    (source,) = number_sources(
        [
            {
                "text": "Hello.",
                "metadata": {"pages": ["Other"], "page": 0, "text": "x", "start_index": 5, "title": "T"},
            }
        ]
    )
    assert (source.text, source.kind, source.title) == ("Hello.", "text", "T")
    assert source.metadata == {"pages": ["Other"], "page": 0, "text": "x", "start_index": 5}
    assert source.segments[0].doc_start is None


def test_item_indices_name_the_input_items_of_each_source_in_rank_order() -> None:
    items = [
        {"text": "Second part.", "document_id": "d", "start_index": 20},
        "Other document.",
        {"text": "First part here.", "document_id": "d", "start_index": 0},
        {"text": "Third part.", "document_id": "d", "start_index": 40},
    ]
    merged = number_sources(items)
    assert [s.item_indices for s in merged] == [(0, 2, 3), (1,)]
    assert [s.item_indices for s in number_sources(items, merge=False)] == [(0,), (1,), (2,), (3,)]
    renumbered = number_sources([merged[1], "New."])
    assert [s.item_indices for s in renumbered] == [(0,), (1,)]  # indices into this call's items


def test_item_indices_are_provenance_not_data() -> None:
    (source,) = number_sources(["Water is wet."])
    assert source.item_indices == (0,)
    assert "item_indices" not in source.model_dump_json()
    assert Source.model_validate_json(source.model_dump_json()) == source
    assert source.model_copy(update={"number": 3}).item_indices == (0,)
    assert Source(number=1, text="x", segments=(Segment(text="x", start=0),)).item_indices == ()


def test_start_gives_the_first_number() -> None:
    sources = number_sources(["A is a.", "B is b."], start=4)
    assert [s.number for s in sources] == [4, 5]
    assert [s.item_indices for s in sources] == [(0,), (1,)]


@pytest.mark.parametrize("start", [0, -1, 1.5, True, "2"])
def test_start_must_be_a_positive_integer(start: object) -> None:
    with pytest.raises(SourceError, match="start must be an integer >= 1"):
        number_sources(["A is a."], start=start)  # type: ignore[arg-type]


def test_each_segment_knows_the_input_items_behind_it() -> None:
    from cite_core import parse_answer

    items = [
        {"text": "Gamma rays are light. They are energetic.", "document_id": "d", "start_index": 100},
        {"text": "Alpha is first. Beta is second.", "document_id": "d", "start_index": 0},
        {"text": "Beta is second. Then more.", "document_id": "d", "start_index": 16},
    ]
    (source,) = number_sources(items)
    assert source.segment_item_indices == ((1, 2), (0,))  # the overlapping chunks 1 and 2 coalesced
    answer = parse_answer("Gamma rays are energetic light [1].", [source])
    assert [c.segment for c in answer.citations] == [1]


@pytest.mark.parametrize(
    "item",
    [
        {"pages": ["Cover page."], "text": "Important body text."},
        {"blocks": ["Block text."], "pages": ["Page text."]},
        {"blocks": ["Block text."], "content": "Body."},
        {"pages": ["Rockets fly."], "page": 2},
    ],
)
def test_an_item_with_two_kinds_of_content_is_an_error(item: dict[str, object]) -> None:
    """One of them was kept in metadata, never cited, without a word."""
    with pytest.raises(SourceError, match="gives its content one way"):
        number_sources([item])
