"""Fixtures: a small corpus, a list retriever, fake chat models, and local 127.0.0.1 API servers."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from langchain_cite._compat import has_content_blocks

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

Route = Callable[[str, dict[str, Any]], tuple[int, str, Any]]
"""``(path, json body) -> (status, content type, body)``; a body that is a list is sent as SSE events."""


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 answering POSTs with JSON or server-sent events."""

    def __init__(self, route: Route) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append((self.path, body))
                status, content_type, payload = route(self.path, body)
                if isinstance(payload, list):  # server-sent events, one write per event
                    self.send_response(status)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for event in payload:
                        self.wfile.write(event.encode("utf-8"))
                        self.wfile.flush()
                    self.close_connection = True
                    return
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> LocalServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


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


def sse(data: dict[str, Any] | str, event: str | None = None) -> str:
    """One server-sent event."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "") + f"data: {payload}\n\n"
