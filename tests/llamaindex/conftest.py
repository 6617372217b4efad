"""Fixtures: a replaying LLM, offline hashing embeddings, and a small corpus indexed on embedded Qdrant."""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.vector_stores.qdrant")

from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import AsyncQdrantClient, QdrantClient

from tests.fakes import hash_vector

QUESTION = "What did Mara Lind do as a child, growing up in Kessby?"

BIOGRAPHY = """\
Mara Lind grew up in Kessby, a fishing village on the Baltic coast. Her father mended nets and her mother \
kept the village's only bookshop. As a child she spent her summers rowing between the skerries and \
counting seabirds for the coastal survey.

At twelve she built a crystal radio from a kit her uncle sent from Gothenburg. She listened every night \
to weather reports from the lightships and wrote the wind speeds into a notebook. The notebook still \
exists and covers four winters.

In school she was known for arguing with her mathematics teacher about tides. She won the regional \
science fair at fifteen with a model that predicted high water in the harbour from the phase of the moon.

She left Kessby at eighteen to study oceanography in Uppsala. Her later work on storm surges began with \
the wind records she had kept as a girl."""

LIGHTHOUSE = """\
The Kessby lighthouse was built in 1872 from granite quarried on the island of Väderö. Its keepers \
recorded wind, rain and passing ships three times a day until the light was automated in 1968. \
The village children were allowed to climb the tower once a year, on midsummer morning."""

GUIDE_PAGES = [
    (
        "Field guide to Baltic seabirds. Eiders nest on the outer skerries from April. Counting them from a "
        "rowing boat is a traditional summer task for children in the coastal villages."
    ),
    (
        "Black guillemots stay near the shore all year. Their red feet make them easy to recognise. "
        "Surveys have recorded them around Kessby since 1921."
    ),
    (
        "Arctic terns arrive in May and leave in August. They defend their nests fiercely and will dive "
        "at anyone who comes too close."
    ),
]

# A recorded model answer: the model saw the sources numbered by rank (1 the biography, 2 the lighthouse,
# 3 page 1 of the field guide; test_query_engine pins this) and cited [3] first, and an invalid [42].
ANSWER = (
    "As a child in Kessby she counted seabirds from a rowing boat [3][1]. At twelve she built a crystal "
    "radio and wrote the wind speeds from the lightship weather reports into a notebook [1]. Once a year "
    "the village children climbed the lighthouse tower [2]. She also kept a pet dragon [42]."
)
DISPLAY = (
    "As a child in Kessby she counted seabirds from a rowing boat [1][2]. At twelve she built a crystal "
    "radio and wrote the wind speeds from the lightship weather reports into a notebook [2]. Once a year "
    "the village children climbed the lighthouse tower [3]. She also kept a pet dragon."
)


def documents() -> list[Document]:
    docs = [
        Document(text=BIOGRAPHY, metadata={"file_name": "mara_lind.txt", "author": "K. Berg"}, id_="bio"),
        Document(
            text=LIGHTHOUSE,
            metadata={"title": "The Kessby lighthouse", "url": "https://example.org/kessby-light"},
            id_="light",
        ),
    ]
    docs += [
        Document(
            text=text,
            # a physical page (page_number) beside the printed label: a label alone is never the page
            metadata={"file_name": "seabirds.pdf", "page_label": str(page), "page_number": page},
            id_=f"guide-p{page}",
        )
        for page, text in enumerate(GUIDE_PAGES, start=1)
    ]
    return docs


class HashEmbedding(BaseEmbedding):
    """Deterministic offline embeddings: hashed bags of lower-cased words, L2-normalised."""

    dim: int = Field(default=256, description="Vector size.")

    @classmethod
    def class_name(cls) -> str:
        return "HashEmbedding"

    def _vector(self, text: str) -> list[float]:
        return hash_vector(text, self.dim)

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)


class ReplayLLM(CustomLLM):
    """Replays recorded answers, streaming them one character at a time; records every prompt."""

    answers: dict[str, str] = Field(
        default_factory=dict, description="Answer by question (found in the prompt)."
    )
    default: str = Field(default="I do not know.", description="Answer when no question matches.")
    context_window: int = Field(default=8000, description="Reported context window.")
    num_output: int = Field(default=256, description="Reported room for the answer.")
    _prompts: list[str] = PrivateAttr(default_factory=list)

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.context_window, num_output=self.num_output, model_name="replay"
        )

    def _answer(self, prompt: str) -> str:
        self._prompts.append(prompt)
        return next((a for q, a in self.answers.items() if q in prompt), self.default)

    @llm_completion_callback()  # as every LlamaIndex LLM: the instrumentation events fire
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._answer(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        answer = self._answer(prompt)

        def gen() -> Iterator[CompletionResponse]:
            for i, char in enumerate(answer):
                yield CompletionResponse(text=answer[: i + 1], delta=char)

        return gen()


SPLITTER = SentenceSplitter(
    chunk_size=100,
    chunk_overlap=0,
    id_func=lambda i, doc: str(
        uuid.uuid5(uuid.NAMESPACE_URL, f"{doc.doc_id}/{i}")
    ),  # stable ids, stable ties
)


class ListRetriever(BaseRetriever):
    """Any retriever: returns fixed nodes."""

    def __init__(self, nodes: list[NodeWithScore]) -> None:
        super().__init__()
        self.nodes = nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return list(self.nodes)


def nodes() -> list[Any]:
    return SPLITTER.get_nodes_from_documents(documents())


@pytest.fixture
def llm() -> ReplayLLM:
    return ReplayLLM(answers={QUESTION: ANSWER})


@pytest.fixture
def embed_model() -> HashEmbedding:
    return HashEmbedding()


@pytest.fixture
def qdrant_index(embed_model: HashEmbedding) -> Iterator[VectorStoreIndex]:
    """A VectorStoreIndex of the corpus on embedded, in-memory Qdrant."""
    client = QdrantClient(":memory:")
    store = QdrantVectorStore(collection_name=f"c{uuid.uuid4().hex}", client=client)
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="Payload indexes have no effect"
        )  # embedded Qdrant's notice
        index = VectorStoreIndex(
            nodes(), storage_context=StorageContext.from_defaults(vector_store=store), embed_model=embed_model
        )
    yield index
    client.close()


@pytest.fixture
async def async_qdrant_index(embed_model: HashEmbedding) -> Any:
    """The same index through Qdrant's async client (what ``aquery`` needs)."""
    aclient = AsyncQdrantClient(":memory:")
    store = QdrantVectorStore(collection_name=f"c{uuid.uuid4().hex}", aclient=aclient)
    chunks = nodes()
    for chunk in chunks:  # the store's own async API: works on every supported llama-index-core
        chunk.embedding = embed_model.get_text_embedding(chunk.get_content(metadata_mode=MetadataMode.EMBED))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Payload indexes have no effect")
        await store.async_add(chunks)
    index = VectorStoreIndex.from_vector_store(store, embed_model=embed_model)
    yield index
    await aclient.close()
