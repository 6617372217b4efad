"""Issue 13 item 3, LlamaIndex side: one argument (``semantic=True``) mixes the index's own embedding
model, or ``Settings.embed_model``, into localisation and support; without it nothing is embedded."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core import Settings
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import SourceError
from llamaindex_cite import CiteQueryEngine, CiteSynthesizer

from .conftest import QUESTION, HashEmbedding, ListRetriever, ReplayLLM

CLAIM = "counted seabirds from a rowing boat"


class CountingEmbedding(HashEmbedding):
    """``HashEmbedding`` that records every text it embeds."""

    _seen: list[str] = PrivateAttr(default_factory=list)

    @property
    def seen(self) -> list[str]:
        return self._seen

    def _get_text_embedding(self, text: str) -> list[float]:
        self._seen.append(text)
        return super()._get_text_embedding(text)


def _claims(model: CountingEmbedding) -> list[str]:
    return [t for t in model.seen if CLAIM in t]


def test_semantic_uses_the_index_embed_model(qdrant_index: Any, llm: ReplayLLM) -> None:
    model = CountingEmbedding()
    qdrant_index._embed_model = model  # the index's embed_model, as VectorStoreIndex(embed_model=...) sets it
    lexical = CiteQueryEngine.from_args(qdrant_index, llm=llm).query(QUESTION)
    assert _claims(model) == []  # not asked: nothing but the query is embedded
    semantic = CiteQueryEngine.from_args(qdrant_index, llm=llm, semantic=True).query(QUESTION)
    assert _claims(model)  # the answer's claim went through the index's model
    assert str(semantic) == str(lexical)
    assert len(semantic.metadata["cited_answer"].citations) == len(lexical.metadata["cited_answer"].citations)


def test_semantic_streaming_uses_the_model_too(qdrant_index: Any, llm: ReplayLLM) -> None:
    model = CountingEmbedding()
    qdrant_index._embed_model = model
    engine = CiteQueryEngine.from_args(qdrant_index, llm=llm, semantic=True, streaming=True)
    response = engine.query(QUESTION)
    text = "".join(response.response_gen)
    assert _claims(model) and text == str(CiteQueryEngine.from_args(qdrant_index, llm=llm).query(QUESTION))


def test_any_retriever_falls_back_to_settings_embed_model(monkeypatch: pytest.MonkeyPatch) -> None:
    model = CountingEmbedding()
    monkeypatch.setattr(Settings, "_embed_model", model)
    retriever = ListRetriever(
        [NodeWithScore(node=TextNode(text="Children counted seabirds from a rowing boat."))]
    )
    llm = ReplayLLM(answers={"Who counted?": f"Children {CLAIM} [1]."})
    response = CiteQueryEngine.from_args(retriever, llm=llm, semantic=True).query("Who counted?")
    assert str(response) == f"Children {CLAIM} [1]." and _claims(model)


def test_semantic_without_any_model_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_index.core.settings as settings_module

    def no_default(model: Any) -> Any:
        raise ValueError("no OpenAI API key")

    monkeypatch.setattr(Settings, "_embed_model", None)
    monkeypatch.setattr(settings_module, "resolve_embed_model", no_default)
    engine = CiteQueryEngine.from_args(ListRetriever([]), llm=ReplayLLM(), semantic=True)
    with pytest.raises(SourceError, match=r"Settings\.embed_model.*embeddings="):
        engine.query("Who counted?")


def test_a_synthesizer_takes_the_model_directly(qdrant_index: Any, llm: ReplayLLM) -> None:
    model = CountingEmbedding()
    engine = qdrant_index.as_query_engine(
        llm=llm, response_synthesizer=CiteSynthesizer(llm=llm, embeddings=model)
    )
    engine.query(QUESTION)
    assert _claims(model)
