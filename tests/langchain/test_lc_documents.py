"""Documents to numbered sources: metadata mapping, pages, start offsets, merging."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from langchain_cite import document_to_item, documents_to_sources

from .conftest import MOON, SUN, SUN_MORE, corpus


def test_metadata_becomes_source_fields() -> None:
    doc = Document(
        page_content="Water boils at 100 degrees.",
        id="chunk-7",
        metadata={
            "source": "https://example.org/water",
            "title": "Water",
            "url": "https://example.org/water",
            "author": "Ada",
            "lang": "en",
        },
    )
    [source] = documents_to_sources([doc])
    assert source.number == 1
    assert source.text == "Water boils at 100 degrees."
    assert (source.title, source.url, source.author) == ("Water", "https://example.org/water", "Ada")
    assert source.document_id == "https://example.org/water"
    assert source.metadata["lang"] == "en"
    assert source.metadata["chunk_id"] == "chunk-7"


def test_chunks_of_one_document_merge_in_document_order() -> None:
    sources = documents_to_sources(corpus())
    assert [s.title for s in sources] == ["The Sun", "The Moon"]
    sun = sources[0]
    assert [seg.text for seg in sun.segments] == [SUN, SUN_MORE]
    assert [seg.doc_start for seg in sun.segments] == [0, len(SUN) + 1]
    assert sun.document_coordinates
    assert sources[1].text == MOON


def test_merge_can_be_turned_off() -> None:
    assert len(documents_to_sources(corpus(), merge=False)) == 3


def test_pdf_pages_are_zero_based_in_langchain() -> None:
    docs = [
        Document(page_content="Page one text.", metadata={"source": "a.pdf", "page": 0, "page_label": "i"}),
        Document(page_content="Page two text.", metadata={"source": "a.pdf", "page": 1}),
    ]
    [source] = documents_to_sources(docs)
    assert source.kind == "pages"
    assert source.pages == (1, 2)
    assert source.metadata["page_label"] == "i"
    [one_based] = documents_to_sources(docs, zero_based_pages=False)
    assert one_based.pages == (1,)  # page 0 is no valid 1-based page: ignored
    assert document_to_item(Document(page_content="x", metadata={"page_number": 3}))["page"] == 3


def test_qdrant_point_id_and_collection_are_kept() -> None:
    doc = Document(
        page_content="Chunk.", metadata={"_id": "9f1c", "_collection_name": "docs", "source": "a.md"}
    )
    [source] = documents_to_sources([doc])
    assert source.metadata["chunk_id"] == "9f1c"
    assert source.metadata["_collection_name"] == "docs"
    assert source.document_id == "a.md"


def test_metadata_never_collides_with_core_keys() -> None:
    doc = Document(
        page_content="Text.", metadata={"pages": 12, "type": "document", "start_index": -1, "score": "x"}
    )
    [source] = documents_to_sources([doc])
    assert source.kind == "text"
    assert source.segments[0].doc_start is None


def test_rejects_a_single_document() -> None:
    with pytest.raises(TypeError, match="list of Documents"):
        documents_to_sources(Document(page_content="x"))  # type: ignore[arg-type]


def test_documents_without_text_are_skipped_before_numbering(caplog: pytest.LogCaptureFixture) -> None:
    docs = [Document(page_content="  ", metadata={"source": "blank"}), Document(page_content="Real text.")]
    [source] = documents_to_sources(docs)
    assert source.number == 1 and source.text == "Real text."
    assert "no text" in caplog.text


# -- issue 11 item 8: labels, page labels, and the original Documents of each reference ---------------


def pdf_pages(path: str) -> list[Document]:
    """What PyPDFLoader gives: the absolute path as source, 0-based physical pages, printed labels."""
    return [
        Document(
            page_content="Preface text about seabirds.",
            metadata={"source": path, "page": 0, "page_label": "iv"},
        ),
        Document(
            page_content="Gannets dive from thirty metres.",
            metadata={"source": path, "page": 1, "page_label": "v"},
        ),
    ]


def test_a_loader_path_is_labelled_by_its_file_name() -> None:
    [pdf] = documents_to_sources(pdf_pages("/home/ana/books/seabirds.pdf"))
    assert pdf.title == pdf.label == "seabirds.pdf"
    assert pdf.document_id == "/home/ana/books/seabirds.pdf"  # still identifies the document for merging
    [windows] = documents_to_sources([Document(page_content="x", metadata={"source": "C:\\docs\\notes.txt"})])
    assert windows.label == "notes.txt"
    [titled] = documents_to_sources(
        [Document(page_content="x", metadata={"source": "/a/b.txt", "title": "B"})]
    )
    assert titled.label == "B"
    [web] = documents_to_sources([Document(page_content="x", metadata={"source": "https://example.org/p"})])
    assert web.label == "https://example.org/p"


def test_references_reach_their_documents_and_show_page_labels() -> None:
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.runnables import RunnableLambda

    from langchain_cite import create_cited_rag_chain

    pages = pdf_pages("/srv/seabirds.pdf")
    other = Document(page_content="Puffins nest in burrows.", metadata={"source": "/srv/puffins.txt"})
    retriever = RunnableLambda(lambda q: [pages[1], other, pages[0]])
    llm = FakeListChatModel(responses=["Puffins nest in burrows [2]. Gannets dive from thirty metres [1]."])
    answer = create_cited_rag_chain(retriever, llm).invoke("How do seabirds live?")
    puffins, seabirds = answer.references
    assert puffins.documents == [other]
    assert seabirds.documents == [pages[1], pages[0]]  # a merged source keeps every chunk, in rank order
    assert seabirds.page_labels == ["v", "iv"] and seabirds.source.pages == (1, 2)
    assert seabirds.pages_shown == "v–iv" and puffins.pages_shown is None
    [citation] = [c for c in answer.citations if c.document_index == seabirds.source.number - 1]
    assert citation.type == "page_location" and citation.start_page_number == 2  # the physical page
    assert answer.documents == [other, pages[1], pages[0]]


def test_the_same_document_twice_is_one_source() -> None:
    """A union of two retrievers returns one Document twice: the model saw it as [1] and [3], and the
    reference list named it twice."""
    from langchain_cite._documents import number_documents

    harbour = Document(page_content="The harbour was dredged in 1931.", metadata={"title": "Harbour"})
    light = Document(page_content="The lighthouse was built in 1872.", metadata={"title": "Light"})
    other = Document(page_content="The harbour was dredged in 1931.", metadata={"title": "Other"})
    sources, behind = number_documents([harbour, light, harbour, other])
    assert [(s.number, s.title) for s in sources] == [(1, "Harbour"), (2, "Light"), (3, "Other")]
    assert behind[1] == [harbour]


def test_a_document_whose_page_content_is_not_text_is_a_source_error() -> None:
    """``Document.model_construct(page_content=None)`` raised a bare AttributeError (``None.strip()``)."""
    from cite_core import SourceError
    from langchain_cite import CitationSession, documents_to_sources

    broken = Document.model_construct(page_content=None, metadata={})
    good = Document(page_content="The harbour was dredged in 1931.")
    with pytest.raises(SourceError, match=r"item 1: Document.page_content must be a str, got NoneType"):
        documents_to_sources([good, broken])
    with pytest.raises(SourceError, match="page_content"):
        CitationSession().add_documents([broken])


def test_pymupdf_documents_are_titled_with_the_file_name() -> None:
    """PyMuPDFLoader writes ``title=""`` beside the absolute ``file_path``/``source``: the blank title kept
    the file name from being used, and no title was shown."""
    from langchain_cite import documents_to_sources

    meta = {"source": "/srv/data/report.pdf", "file_path": "/srv/data/report.pdf", "page": 0, "title": ""}
    meta |= {"author": "", "subject": "", "total_pages": 3, "format": "PDF 1.7"}
    [source] = documents_to_sources([Document(page_content="Gannets dive.", metadata=meta)])
    assert source.title == "report.pdf" and source.author is None


def test_a_numeric_title_is_kept_as_text() -> None:
    from langchain_cite import documents_to_sources

    [source] = documents_to_sources([Document(page_content="War is peace.", metadata={"title": 1984})])
    assert source.title == "1984"
