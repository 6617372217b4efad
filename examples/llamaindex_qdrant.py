"""Cited answers from a LlamaIndex index on Qdrant, with any LLM.

Runs offline as is: embedded Qdrant in memory, hashing embeddings and a fake LLM with a fixed answer.

    python examples/llamaindex_qdrant.py

Point it at real services with environment variables:
    QDRANT_URL=http://localhost:6333                      a Qdrant server instead of embedded Qdrant
    CITE_LLAMAINDEX_LLM=llama_index.llms.openai:OpenAI    any LlamaIndex LLM class, as module:Class
    CITE_LLAMAINDEX_MODEL=gpt-4o-mini                     its model= argument (optional)
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib
import json
import math
import os
import warnings
from typing import Any

from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms import LLM, CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.node_parser import SentenceSplitter
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import AsyncQdrantClient, QdrantClient

from llamaindex_cite import CiteQueryEngine

warnings.filterwarnings("ignore", message="Payload indexes have no effect")  # embedded Qdrant's notice

QUESTION = "How did the harbour of Kessby change?"

DOCUMENTS = [
    Document(
        text="Kessby's harbour was dredged in 1931 so that steamers could dock. Before that, cargo was rowed "
        "ashore from ships anchored in the bay. The new quay was built from local granite.",
        metadata={"title": "Harbour history", "url": "https://example.org/harbour"},
        id_="harbour",
    ),
    Document(
        text="The fish market moved to the new quay in 1933. Herring was the main catch until the 1960s, "
        "when the shoals moved north. Today the quay serves mostly pleasure boats.",
        metadata={"file_name": "market.txt"},
        id_="market",
    ),
    Document(
        text="Kessby's church has a wooden ceiling painted in 1744. Its bell came from a shipwreck.",
        metadata={"file_name": "church.txt"},
        id_="church",
    ),
]

FAKE_ANSWER = (
    "The harbour was dredged in 1931 so that steamers could dock [2]. The fish market moved to the new quay "
    "in 1933 [1], and today the quay serves mostly pleasure boats [1]. It also had a submarine base [9]."
)


class HashingEmbedding(BaseEmbedding):
    """Offline embeddings for the demo: hashed bags of words (use a real embedding model in practice)."""

    @classmethod
    def class_name(cls) -> str:
        return "HashingEmbedding"

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * 256
        for word in text.lower().split():
            vec[hashlib.blake2b(word.strip(".,?!").encode(), digest_size=4).digest()[0]] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)


class FakeLLM(CustomLLM):
    """Answers every question with ``answer`` (FAKE_ANSWER unless given), streamed word by word."""

    answer: str = FAKE_ANSWER

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=8000, num_output=256, model_name="fake")

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.answer)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        words = self.answer.split(" ")
        return (CompletionResponse(text="", delta=w if i == 0 else " " + w) for i, w in enumerate(words))


def make_llm() -> LLM:
    spec = os.environ.get("CITE_LLAMAINDEX_LLM")
    if not spec:
        return FakeLLM()
    module, _, name = spec.partition(":")
    model = os.environ.get("CITE_LLAMAINDEX_MODEL")
    return getattr(importlib.import_module(module), name)(**({"model": model} if model else {}))


def make_index() -> VectorStoreIndex:
    url = os.environ.get("QDRANT_URL")
    client = QdrantClient(url=url) if url else QdrantClient(":memory:")  # or QdrantClient(path="./qdrant")
    store = QdrantVectorStore(collection_name="kessby", client=client)
    return VectorStoreIndex(
        nodes(),
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=HashingEmbedding(),
    )


def nodes() -> list[Any]:
    return SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents(DOCUMENTS)


def show(response: Any) -> None:
    print(str(response))
    print("References:")
    for ref in response.metadata["cited_answer"].references:
        print(f"  [{ref.number}] {ref.source.label}")
    print("Invalid markers:", response.metadata["invalid_markers"])


def main() -> None:
    llm = make_llm()
    index = make_index()

    engine = CiteQueryEngine.from_args(index.as_retriever(similarity_top_k=10), llm=llm)
    response = engine.query(QUESTION)
    show(response)
    print("Cited nodes:", [n.node.ref_doc_id for n in response.source_nodes])
    print(json.dumps(response.metadata["anthropic"], indent=2, ensure_ascii=False))

    print("\nStreaming:")
    streaming = CiteQueryEngine.from_args(index, llm=llm, similarity_top_k=10, streaming=True).query(QUESTION)
    streaming.print_response_stream()
    print("Cited nodes:", [n.node.ref_doc_id for n in streaming.source_nodes])

    print("\nAsync:")
    asyncio.run(async_main(llm))


async def async_main(llm: LLM) -> None:
    url = os.environ.get("QDRANT_URL")
    aclient = AsyncQdrantClient(url=url) if url else AsyncQdrantClient(":memory:")
    store = QdrantVectorStore(collection_name="kessby_async", aclient=aclient)  # aclient= for aquery()
    embed_model = HashingEmbedding()
    chunks = nodes()  # in memory, the async client holds its own copy of the data
    for chunk, vector in zip(chunks, await embed_model.aget_text_embedding_batch([c.text for c in chunks])):
        chunk.embedding = vector
    await store.async_add(chunks)  # (newer llama-index-core: index.ainsert_nodes)
    index = VectorStoreIndex.from_vector_store(store, embed_model=embed_model)
    engine = CiteQueryEngine.from_args(index, llm=llm, similarity_top_k=10)
    show(await engine.aquery(QUESTION))
    await aclient.close()


if __name__ == "__main__":
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    main()
