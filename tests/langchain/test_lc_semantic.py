"""Issue 13 item 3, LangChain side: ``semantic=True`` takes ``retriever.vectorstore.embeddings`` while
streaming too, and ``CitationOutputParser(embeddings=...)`` takes a model in a chain of your own."""

from __future__ import annotations

from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.vectorstores import InMemoryVectorStore

from langchain_cite import CitationOutputParser, CitationSources, create_cited_rag_chain

from .test_lc_quality import TEXT, CountingEmbedding


def test_semantic_streaming_uses_the_retrievers_embedding_model() -> None:
    embeddings = CountingEmbedding(size=16)
    store = InMemoryVectorStore(embedding=embeddings)
    store.add_documents([Document(page_content=TEXT, metadata={"title": "Gannets"})])
    llm = FakeListChatModel(responses=["Gannets plunge to catch fish [1]."] * 2)
    embeddings.seen.clear()
    items = list(create_cited_rag_chain(store.as_retriever(), llm, semantic=True).stream("How?"))
    assert any("plunge" in t for t in embeddings.seen)
    assert items[-1].text == "Gannets plunge to catch fish [1]." and len(items[-1].citations) == 1


def test_output_parser_takes_the_model_in_your_own_chain() -> None:
    embeddings = CountingEmbedding(size=16)
    sources = CitationSources().invoke({"documents": [Document(page_content=TEXT)], "question": "How?"})
    answer = CitationOutputParser(embeddings=embeddings).invoke(
        {**sources, "message": "Gannets plunge to catch fish [1]."}
    )
    assert any("plunge" in t for t in embeddings.seen) and len(answer.citations) == 1
