"""Node pages through ``cite_core.page_from_metadata``: no metadata value or document id fails a query."""

from __future__ import annotations

import pytest
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from llamaindex_cite import CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever, ReplayLLM


@pytest.mark.parametrize(
    ("metadata", "node_id", "page"),
    [
        ({"page_label": "²"}, "n1", None),  # regression: "²".isdigit() but int("²") failed
        ({"file_path": "/r/a.pdf"}, "/r/a.pdf_part_²", None),  # the same in a document id
        ({"file_path": "/r/a.pdf"}, "/r/a.pdf_part_3", 4),
        ({"file_path": "/r/A.PDF"}, "/r/A.PDF_part_0", 1),
        ({"file_path": "/r/kessby.md"}, "/r/kessby.md_part_1", None),  # a section of a Markdown file
        ({"file_path": "/r/sheet.xlsx"}, "/r/sheet.xlsx_part_2", None),  # not a page either
        ({"page_number": "2", "page": 0}, "n1", 2),  # page_number first, then source, then page
        ({"source": 5, "page": 0}, "n1", 5),
        ({"page": True, "page_label": "7"}, "n1", None),  # never a bool; a label is never the page
    ],
)
def test_the_physical_page_of_a_node(metadata, node_id, page):
    node = NodeWithScore(node=TextNode(text="The page text here.", metadata=metadata, id_=node_id))
    llm = ReplayLLM(default="The page text here [1].")
    synthesizer = CiteSynthesizer(llm=llm)
    response = RetrieverQueryEngine(ListRetriever([node]), response_synthesizer=synthesizer).query("Q?")
    (citation,) = response.metadata["cited_answer"].citations
    assert getattr(citation, "start_page_number", None) == page
