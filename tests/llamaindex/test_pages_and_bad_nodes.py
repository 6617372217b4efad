"""Pages of one file merge into one reference with physical pages; one bad node never fails the query."""

from __future__ import annotations

import math

from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import PageLocation
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


def test_a_numeric_label_is_the_page_when_no_physical_page_is_known():
    nodes = [NodeWithScore(node=TextNode(text="Page text here.", metadata={"page_label": "7"}))]
    llm = ReplayLLM(default="Page text here [1].")
    response = CiteQueryEngine(retriever=ListRetriever(nodes), llm=llm).query("What?")
    assert response.metadata["cited_answer"].citations[0].start_page_number == 7


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
