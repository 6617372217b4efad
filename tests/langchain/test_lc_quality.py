"""Issue 13, adapter parts: the retriever's own embedding model with one argument (``semantic=True``),
and the numbered-sentence prompt style (``style="sentences"``), streamed."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore
from pydantic import Field

from cite_core import SourceError
from langchain_cite import create_cited_rag_chain

TEXT = "Gannets nest on cliffs. They dive from thirty metres to catch fish. Their chicks fledge in autumn."


class CountingEmbedding(DeterministicFakeEmbedding):
    """Records every text it embeds."""

    seen: list[str] = Field(default_factory=list)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return super().embed_documents(texts)


def test_semantic_uses_the_retrievers_embedding_model() -> None:
    embeddings = CountingEmbedding(size=16)
    store = InMemoryVectorStore(embedding=embeddings)
    store.add_documents([Document(page_content=TEXT, metadata={"title": "Gannets"})])
    llm = FakeListChatModel(responses=["Gannets plunge to catch fish [1]."] * 2)
    embeddings.seen.clear()
    lexical = create_cited_rag_chain(store.as_retriever(), llm).invoke("How do gannets fish?")
    assert not any("plunge" in t for t in embeddings.seen)
    semantic = create_cited_rag_chain(store.as_retriever(), llm, semantic=True).invoke("How do gannets fish?")
    assert any("plunge" in t for t in embeddings.seen)  # the claim went through the user's model
    assert semantic.text == lexical.text and len(semantic.citations) == 1


def test_semantic_without_a_vector_store_says_what_is_missing() -> None:
    with pytest.raises(SourceError, match=r"vectorstore\.embeddings"):
        create_cited_rag_chain(
            RunnableLambda(lambda q: []), FakeListChatModel(responses=["x"]), semantic=True
        )


def test_sentence_style_cites_exact_sentences_streamed_one_char_at_a_time() -> None:
    retriever = RunnableLambda(lambda q: [Document(page_content=TEXT, metadata={"title": "Gannets"})])
    llm = FakeListChatModel(responses=["They plunge from great heights [1:2]."] * 3)
    chain = create_cited_rag_chain(retriever, llm, style="sentences")
    items = list(chain.stream("How do gannets fish?"))
    answer = items[-1]
    assert answer == chain.invoke("How do gannets fish?")
    assert answer.text == "They plunge from great heights [1]."
    [citation] = answer.citations
    assert citation.cited_text == "They dive from thirty metres to catch fish."
    shown = "".join(i.text for i in items[:-1] if i.type == "text_delta")
    assert shown == answer.plain_text
    assert "1:2" not in shown
    text = create_cited_rag_chain(retriever, llm, style="sentences", output="text")
    assert "".join(text.stream("How do gannets fish?")) == "They plunge from great heights [1]."
