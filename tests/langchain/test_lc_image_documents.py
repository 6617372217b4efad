"""LangChain has no image document: a ``Document`` that names an image (``image_url``/``image_path``
metadata, or a ``source`` with an image ``mime_type``) is an image source, its text the caption, cited
whole and linked to the image; one with neither text nor a caption is skipped as any empty document."""

from __future__ import annotations

import json

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda

from cite_core import IMAGE_KEY, to_ai_sdk_stream
from langchain_cite import create_cited_rag_chain, documents_to_sources

HARBOUR = "Photo of Kessby harbour. Red boats lie at the pier at dawn."
DOCUMENTS = [
    Document(page_content="Kessby harbour holds twelve fishing boats.", metadata={"source": "notes.txt"}),
    Document(
        page_content=HARBOUR, metadata={"image_url": "https://example.org/harbour.png", "title": "Harbour"}
    ),
    Document(
        page_content="",
        metadata={
            "source": "maps/coast.jpg",
            "mime_type": "image/jpeg",
            "caption": "Map of the Kessby coast.",
        },
    ),
    Document(page_content="", metadata={"image_path": "blank.png"}),
    Document(page_content="Invoice 12. Total due: 40 EUR.", metadata={"source": "scan.png"}),  # OCR text
]


def test_image_documents_are_image_sources_cited_whole_by_their_caption() -> None:
    sources = documents_to_sources(DOCUMENTS)
    assert len(sources) == 4  # the image with neither text nor caption is skipped, as an empty document
    text, photo, coast, scan = sources
    assert IMAGE_KEY not in scan.metadata  # a file name alone does not make an OCR text an image
    assert IMAGE_KEY not in text.metadata
    assert photo.metadata[IMAGE_KEY] == {"url": "https://example.org/harbour.png", "mimetype": "image/png"}
    assert photo.url == "https://example.org/harbour.png"
    assert coast.text == "Map of the Kessby coast." and coast.title == "coast.jpg"
    assert coast.metadata[IMAGE_KEY] == {"path": "maps/coast.jpg", "mimetype": "image/jpeg"}
    chain = create_cited_rag_chain(
        RunnableLambda(lambda q: DOCUMENTS),
        FakeListChatModel(responses=["Red boats lie at the pier [2]. The coast is mapped [3]."]),
    )
    answer = chain.invoke("What is in the harbour picture?")
    photo_cite, coast_cite = answer.citations
    assert photo_cite.cited_text == HARBOUR  # the caption stands for the whole image, not its best sentence
    assert coast_cite.cited_text == "Map of the Kessby coast."
    lines = to_ai_sdk_stream(chain.stream("What is in the harbour picture?"))
    parts = [json.loads(line[6:-2]) for line in lines if line != "data: [DONE]\n\n"]
    documents = [p for p in parts if p["type"] == "source-document"]
    assert documents == [
        {
            "type": "source-document",
            "sourceId": "2",
            "mediaType": "image/jpeg",
            "title": "coast.jpg",
            "filename": "coast.jpg",
        }
    ]


def test_documents_with_neither_text_nor_caption_are_reported_in_left_out() -> None:
    # they cannot be sources, and the answer says so (the left_out note), as llamaindex_cite does
    given = [*DOCUMENTS, Document(page_content="  ", metadata={"source": "empty.txt"})]
    chain = create_cited_rag_chain(
        RunnableLambda(lambda q: given), FakeListChatModel(responses=["Red boats lie at the pier [2]."])
    )
    answer = chain.invoke("What is in the harbour picture?")
    assert answer.left_out == ["Image blank.png (no caption)", "Document empty.txt (no text)"]
    assert "blank.png" in answer.to_markdown() and "empty.txt" in answer.to_markdown()
    assert len(answer.sources) == 4  # the other documents are sources as before
