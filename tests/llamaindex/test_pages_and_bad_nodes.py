"""Pages of one file merge into one reference with physical pages; one bad node never fails the query."""

from __future__ import annotations

import math

from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import PageLocation, reference_entries, render_html
from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever, ReplayLLM

PAGES = [  # as SimpleDirectoryReader reads a PDF: one Document per page, the printed label as page_label
    ("i", 1, "Preface. This report covers the harbour survey of 1931."),
    ("1", 3, "The harbour was dredged in 1931 so that steamers could dock."),
    ("2", 4, "The fish market moved to the new quay in 1933."),
]


def page_nodes(**extra):
    return [
        NodeWithScore(
            node=TextNode(
                text=text,
                id_=f"p{physical}",
                metadata={
                    "file_path": "/data/report.pdf",
                    "file_name": "report.pdf",
                    "page_label": label,
                    "page_number": physical,
                    **extra,
                },
            ),
            score=1.0 - physical / 10,
        )
        for label, physical, text in PAGES
    ]


def test_pages_of_one_file_merge_and_page_location_is_the_physical_page():
    llm = ReplayLLM(default="The survey is from 1931 [1]. The market moved in 1933 [1].")
    synthesizer = CiteSynthesizer(llm=llm)
    response = RetrieverQueryEngine(ListRetriever(page_nodes()), response_synthesizer=synthesizer).query(
        "When?"
    )
    answer = response.metadata["cited_answer"]
    assert len(answer.references) == 1 and len(response.metadata["sources"]) == 1  # one file, one reference
    locations = list(answer.citations)
    assert all(isinstance(c, PageLocation) for c in locations)
    assert [c.start_page_number for c in locations] == [1, 4]  # physical pages: "i" is page 1, "2" page 4
    assert {n.node.metadata["page_label"] for n in response.source_nodes} == {"i", "2"}  # the labels shown
    assert str(response) == "The survey is from 1931 [1]. The market moved in 1933 [1]."


def test_a_numeric_label_alone_is_not_the_page():
    """Issue 23 item 6: PDFReader's label "1" may be physical page 3 (after i, ii): no page_location."""
    nodes = [NodeWithScore(node=TextNode(text="Page text here.", metadata={"page_label": "7"}))]
    llm = ReplayLLM(default="Page text here [1].")
    response = CiteQueryEngine(retriever=ListRetriever(nodes), llm=llm).query("What?")
    assert response.metadata["cited_answer"].citations[0].type == "char_location"


def test_a_nan_score_or_negative_start_is_repaired_and_reported_not_fatal():
    """Issue 16 item 10: one bad node made the whole query raise."""
    bad_score = NodeWithScore(
        node=TextNode(text="Kessby lies on the Baltic coast.", id_="nan"), score=math.nan
    )
    bad_start = NodeWithScore(
        node=TextNode(text="The lighthouse was built in 1872.", id_="neg", start_char_idx=-5), score=0.4
    )
    good = NodeWithScore(node=TextNode(text="Eiders nest on the skerries.", id_="ok"), score=0.3)
    llm = ReplayLLM(
        default="Kessby is on the Baltic [1]. The light dates from 1872 [2]. Eiders nest there [3]."
    )
    for engine in (
        CiteQueryEngine(retriever=ListRetriever([bad_score, bad_start, good]), llm=llm),
        RetrieverQueryEngine(
            ListRetriever([bad_score, bad_start, good]), response_synthesizer=CiteSynthesizer(llm=llm)
        ),
    ):
        response = engine.query("Tell me about Kessby.")
        assert (
            str(response)
            == "Kessby is on the Baltic [1]. The light dates from 1872 [2]. Eiders nest there [3]."
        )
        assert [n.node.node_id for n in response.metadata["repaired_nodes"]] == ["nan", "neg"]
        assert [n.node.node_id for n in response.source_nodes] == ["nan", "neg", "ok"]
        sources = response.metadata["sources"]
        assert sources[0].score is None and sources[1].segments[0].doc_start is None


def test_a_node_the_core_rejects_is_left_out_and_reported():
    broken = NodeWithScore(node=TextNode(text="bad \ud800 text", id_="surrogate"), score=0.9)
    good = NodeWithScore(node=TextNode(text="Eiders nest on the skerries.", id_="ok"), score=0.3)
    llm = ReplayLLM(default="Eiders nest there [1].")
    response = CiteQueryEngine(retriever=ListRetriever([broken, good]), llm=llm).query("Birds?")
    assert str(response) == "Eiders nest there [1]."
    assert [n.node.node_id for n in response.metadata["dropped_nodes"]] == ["surrogate"]


READER_PAGES = [("i", "Preface. This report covers the harbour survey."), ("ii", "Contents. One chapter.")]
READER_PAGES += [("1", "The harbour was dredged in 1931."), ("2", "The fish market moved in 1933.")]


def reader_nodes(filename_as_id: bool = True) -> list[NodeWithScore]:
    """As ``SimpleDirectoryReader(filename_as_id=True)`` with PDFReader gives them, split into nodes: one
    Document per page with only the printed ``page_label`` and the file metadata; the Document ids
    ``<file_path>_part_<i>`` are the only trace of the physical page."""
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    path = "/data/reports/harbour.pdf"
    meta = {"file_path": path, "file_name": "harbour.pdf", "file_type": "application/pdf", "file_size": 9120}
    documents = [
        Document(
            text=text,
            metadata={"page_label": label, **meta, "creation_date": "2026-11-01"},
            **({"id_": f"{path}_part_{i}"} if filename_as_id else {}),
        )
        for i, (label, text) in enumerate(READER_PAGES)
    ]
    chunks = SentenceSplitter(chunk_size=200, chunk_overlap=0).get_nodes_from_documents(documents)
    return [NodeWithScore(node=n, score=1.0 - i / 10) for i, n in enumerate(chunks)]


def test_a_page_labelled_i_keeps_its_page_location_from_its_position_in_the_file():
    """Issue 12 item 6: a page labelled ``i`` lost its ``page_location`` (and so did its whole file)."""
    llm = ReplayLLM(default="The survey is covered [1]. The market moved in 1933 [1].")
    response = CiteQueryEngine(retriever=ListRetriever(reader_nodes()), llm=llm).query("When?")
    answer = response.metadata["cited_answer"]
    assert len(answer.references) == 1  # the pages of one file: one reference
    assert all(isinstance(c, PageLocation) for c in answer.citations)
    assert [(c.start_page_number, c.end_page_number) for c in answer.citations] == [(1, 2), (4, 5)]
    assert [n.node.metadata["page_label"] for n in response.source_nodes] == ["i", "2"]  # what is shown


def test_langchain_style_zero_based_page_is_the_physical_page():
    node = TextNode(text="Preface text here.", metadata={"page": 0, "page_label": "i", "source": "/r.pdf"})
    llm = ReplayLLM(default="Preface text here [1].")
    response = CiteQueryEngine(retriever=ListRetriever([NodeWithScore(node=node)]), llm=llm).query("What?")
    assert response.metadata["cited_answer"].citations[0].start_page_number == 1


def test_without_a_position_a_roman_label_gives_no_page_and_character_locations():
    llm = ReplayLLM(default="The survey is covered [1].")
    response = CiteQueryEngine(retriever=ListRetriever(reader_nodes(False)), llm=llm).query("When?")
    assert not any(isinstance(c, PageLocation) for c in response.metadata["cited_answer"].citations)


def test_a_numeric_title_is_kept_as_text_and_a_pymupdf_file_is_titled_by_its_name():
    """``title=1984`` was dropped (the reference showed the node's UUID); PyMuPDFReader writes only the
    absolute ``file_path`` (its ``source`` is the page number), which must not be shown as the title."""
    nodes = [
        NodeWithScore(node=TextNode(text="War is peace.", metadata={"title": 1984}), score=0.9),
        NodeWithScore(
            node=TextNode(
                text="Gannets dive from thirty metres.",
                metadata={"file_path": "/srv/app/data/seabirds.pdf", "source": "2", "total_pages": 5},
            ),
            score=0.8,
        ),
    ]
    llm = ReplayLLM(default="War is peace [1]. Gannets dive [2].")
    response = CiteQueryEngine(retriever=ListRetriever(nodes), llm=llm).query("What?")
    answer = response.metadata["cited_answer"]
    assert [r.source.title for r in answer.references] == ["1984", "seabirds.pdf"]
    assert "/srv/app" not in answer.to_markdown()


def test_a_loaders_absolute_file_path_is_shown_as_the_file_name_and_kept_for_file_links():
    """The renderers show a reference's path (``file_path`` when no ``path``): SimpleDirectoryReader's
    absolute ``file_path`` showed where the file sits on the server; its name is shown, and the absolute
    path still makes the file link when the caller asks for one. A relative ``file_path`` shows as given."""
    nodes = page_nodes() + [
        NodeWithScore(node=TextNode(text="Gulls nest on cliffs.", metadata={"file_path": "notes/gulls.md"}))
    ]
    llm = ReplayLLM(default="The harbour was dredged [1]. Gulls nest [2].")
    answer = CiteQueryEngine(retriever=ListRetriever(nodes), llm=llm).query("What?").metadata["cited_answer"]
    assert "/data/" not in answer.to_markdown() and "/data/" not in render_html(answer)
    report, gulls = reference_entries(answer)
    assert (report["title"], report["path"], gulls["path"]) == ("report.pdf", "report.pdf", "notes/gulls.md")
    assert reference_entries(answer, file_links=True)[0]["link"] == "file:///data/report.pdf#page=3"
