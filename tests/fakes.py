"""Fakes shared by the test folders (importable: ``from tests.fakes import hash_vector``).

Framework-free on purpose, so that importing it needs no optional extra: an offline embedding
(``hash_vector``, wrapped by the LlamaIndex embedding class of the tests) and a local HTTP server
(``LocalServer``, ``sse``) behind the fake model APIs of the LangChain and CLI tests. The examples keep
their own copies: tests may depend on examples, examples never on tests.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LocalServer", "Route", "delta_size", "hash_vector", "hash_vectors", "sse"]

_WORD = re.compile(r"\w+")


def hash_vector(text: str, size: int = 256) -> list[float]:
    """Deterministic offline embedding: a hashed bag of lower-cased words, L2-normalised."""
    vector = [0.0] * size
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vector[int.from_bytes(digest, "little") % size] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def hash_vectors(texts: list[str]) -> list[list[float]]:
    """``hash_vector`` of each text: the callable form ``embedding_scorer`` and ``embeddings=`` accept."""
    return [hash_vector(text) for text in texts]


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


def sse(data: dict[str, Any] | str, event: str | None = None) -> str:
    """One server-sent event."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "") + f"data: {payload}\n\n"


def delta_size(default: int) -> int:
    """Characters per streamed delta of a scripted model: ``default``, or ``CITE_CONFORMANCE_CHUNK``
    (.ci/run's second pass sets 1: every entry point meets each marker cut at every place)."""
    return int(os.environ.get("CITE_CONFORMANCE_CHUNK", str(default)))
