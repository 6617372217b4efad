"""PDF pages whose printed labels are not their numbers (front matter i, ii, then 1), as LlamaIndex's
PDFReader and SimpleDirectoryReader give them: page_location is the physical page, the label is what
is shown, pages never merge into one wrong reference, offsets index the text they cite."""

from __future__ import annotations

import uuid

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore

from llamaindex_cite import CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever, ReplayLLM

PATH = "/data/book.pdf"
LABELS = ["i", "ii", "1"]
PAGES = [
    "Preface. This book describes the harbour of Kessby and its history.",
    "Contents. The harbour. The fish market. The lighthouse.",
    "Chapter one. Kessby's harbour was dredged in 1931 so that steamers could dock.",
]
ANSWER = (
    "The book covers Kessby's harbour [1]. It lists the fish market [2]. The harbour was dredged in 1931 [3]."
)


def _documents(filename_as_id: bool) -> list[Document]:
    """What SimpleDirectoryReader(input_files=[PATH], filename_as_id=...) gives with its PDF reader
    (llama-index-readers-file's PDFReader): a document per page, metadata page_label and file_name from
    PDFReader, file_path and the rest from SimpleDirectoryReader; ids ``<path>_part_<i>`` or random."""
    return [
        Document(
            text=text,
            metadata={
                "page_label": label,
                "file_name": "book.pdf",
                "file_path": PATH,
                "file_type": "application/pdf",
                "file_size": 1234,
            },
            id_=f"{PATH}_part_{i}" if filename_as_id else str(uuid.uuid4()),
        )
        for i, (label, text) in enumerate(zip(LABELS, PAGES))
    ]


def _query(documents: list[Document], answer: str = ANSWER):
    nodes = SentenceSplitter(chunk_size=200, chunk_overlap=0).get_nodes_from_documents(documents)
    # one chunk per page, best first in page order; the third page's chunk starts inside its page
    chunks = [NodeWithScore(node=n, score=1.0 - i / 10) for i, n in enumerate(nodes)]
    engine = RetrieverQueryEngine(
        ListRetriever(chunks), response_synthesizer=CiteSynthesizer(llm=ReplayLLM(default=answer))
    )
    return engine.query("What does the book cover?")


def test_with_physical_pages_known_pages_merge_and_labels_are_shown():
    response = _query(_documents(filename_as_id=True), ANSWER.replace("[2]", "[1]").replace("[3]", "[1]"))
    answer = response.metadata["cited_answer"]
    (reference,) = answer.references  # one PDF, one reference
    assert reference.source.metadata["page_labels"] == {"1": "i", "2": "ii", "3": "1"}
    pages = [(c.start_page_number, c.end_page_number) for c in answer.citations]
    assert pages == [(1, 2), (2, 3), (3, 4)]  # physical: the page labelled "1" is the third
    assert all(c.cited_text in PAGES[c.start_page_number - 1] for c in answer.citations)
    markdown = answer.to_markdown()
    assert "pp. i–1" in markdown and "pp. 1–3" not in markdown  # the labels are what is shown


def test_with_labels_only_each_page_is_its_own_reference_with_document_offsets():
    documents = _documents(filename_as_id=False)  # SimpleDirectoryReader's default: random ids
    response = _query(documents)
    answer = response.metadata["cited_answer"]
    assert len(answer.references) == 3  # not one "p. 1" reference for all three pages
    assert all(c.type == "char_location" for c in answer.citations)  # no physical page is known
    texts = {d.doc_id: d.text for d in documents}
    for citation, reference in zip(answer.citations, answer.references):
        page = texts[reference.source.document_id]
        assert citation.coordinates == "document"
        assert page[citation.start_char_index : citation.end_char_index] == citation.cited_text
    assert [r.source.metadata["page_label"] for r in answer.references] == LABELS
    assert {id(n.node) for n in response.source_nodes} and len(response.source_nodes) == 3
    # the printed label is what a reader looks for: shown beside each reference, never as page_location
    markdown, html = answer.to_markdown(), answer.to_html()
    assert all(f"book.pdf, p. {label}" in markdown for label in LABELS), markdown
    assert all(f"p. {label}" in html for label in LABELS)


def test_pdf_reader_alone_a_numeric_label_is_not_the_page():
    documents = [
        Document(text=text, metadata={"page_label": label, "file_name": "book.pdf"})
        for label, text in zip(LABELS, PAGES)
    ]
    answer = _query(documents).metadata["cited_answer"]
    assert [c.type for c in answer.citations] == ["char_location"] * 3  # "1" was page_location 1
