"""Fixtures: a small corpus, a list retriever, fake chat models, and local 127.0.0.1 API servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from langchain_cite._compat import has_content_blocks
from tests.fakes import LocalServer, Route

needs_content_blocks = pytest.mark.skipif(
    not has_content_blocks(), reason="content-block annotations need langchain-core 1.x"
)
"""For tests of what only langchain-core 1.x has (``Citation`` annotations on message text blocks)."""

QUESTION = "How does the Sun produce energy?"

SUN = (
    "The Sun is a star at the centre of the Solar System. In its core, hydrogen nuclei fuse into helium. "
    "This nuclear fusion releases the energy that makes the Sun shine."
)
SUN_MORE = "Energy from the core takes thousands of years to reach the surface. Then it leaves as sunlight."
MOON = "The Moon has no light of its own. It reflects the light of the Sun."

ANSWER = (
    "The Sun produces energy by nuclear fusion in its core, where hydrogen becomes helium [1]. "
    "That energy takes thousands of years to reach the surface [1]. The Moon only reflects sunlight [2]."
)


def corpus() -> list[Document]:
    """Three chunks: two of sun.txt (with start offsets, merged into one source) and one of moon.txt."""
    return [
        Document(page_content=SUN, metadata={"source": "sun.txt", "title": "The Sun", "start_index": 0}),
        Document(page_content=MOON, metadata={"source": "https://example.org/moon", "title": "The Moon"}),
        Document(
            page_content=SUN_MORE,
            metadata={"source": "sun.txt", "title": "The Sun", "start_index": len(SUN) + 1},
        ),
    ]


class ListRetriever(BaseRetriever):
    """Returns the same documents for every query."""

    documents: list[Document]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return list(self.documents)


@pytest.fixture
def documents() -> list[Document]:
    return corpus()


@pytest.fixture
def retriever(documents: list[Document]) -> ListRetriever:
    return ListRetriever(documents=documents)


# -- local HTTP servers ---------------------------------------------------------------------------


@pytest.fixture
def local_server() -> Iterator[Callable[[Route], LocalServer]]:
    """Start servers for a test: ``server = local_server(route)``; each is shut down afterwards."""
    started: list[LocalServer] = []

    def start(route: Route) -> LocalServer:
        server = LocalServer(route).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__(None, None, None)
