"""The core examples run: offline, and against a local OpenAI-compatible server over real HTTP/SSE."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_core_example_offline() -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / "core_any_chat_api.py"), "What color is the grass?"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.startswith("The grass is green[1], and the sky above it is blue[1].")
    assert (
        "[1] My Document <https://example.org/colors>" in out and '"cited_text": "The grass is green."' in out
    )


class _Completions(BaseHTTPRequestHandler):
    answer = "The Sun fuses hydrogen into helium [3]. Grass is green [1]."
    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for i in range(0, len(self.answer), 3):
            chunk = {"choices": [{"index": 0, "delta": {"content": self.answer[i : i + 3]}}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *args: object) -> None:
        pass


def test_core_example_against_a_local_openai_compatible_server() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Completions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {
            "CITE_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1",
            "CITE_MODEL": "local",
            "PATH": "/usr/bin:/bin",
        }
        out = subprocess.run(
            [sys.executable, str(EXAMPLES / "core_any_chat_api.py"), "How does the Sun shine?"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        ).stdout
    finally:
        server.shutdown()
    assert out.startswith("The Sun fuses hydrogen into helium[1]. Grass is green[2].")
    assert "[1] The Sun" in out and "[2] My Document" in out
    request = _Completions.seen[-1]
    assert request["stream"] is True and request["messages"][0]["role"] == "system"
    assert "How does the Sun shine?" in request["messages"][1]["content"]


def test_streaming_web_page_example() -> None:
    module = runpy.run_path(str(EXAMPLES / "streaming_web_page.py"))
    module["Handler"].delay = 0
    server = module["serve"](0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        page = urllib.request.urlopen(base + "/", timeout=10).read().decode()
        stream = urllib.request.urlopen(base + "/stream?q=sun", timeout=10).read().decode()
    finally:
        server.shutdown()
    assert "EventSource" in page
    events = [
        (block.split("\n")[0][7:], json.loads(block.split("\n")[1][6:]))
        for block in stream.strip().split("\n\n")
    ]
    kinds = [kind for kind, _ in events]
    assert kinds.count("text_delta") > 5 and kinds.count("citations_delta") == 3 and kinds[-1] == "done"
    text = "".join(data["text"] for kind, data in events if kind == "text_delta")
    final = events[-1][1]
    assert text == "".join(block["text"] for block in final["answer"]["content"])
    assert 'href="https://example.org/sun#:~:text=' in final["html"]  # opens the page at the cited sentence
