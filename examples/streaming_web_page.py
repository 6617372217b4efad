"""Stream a cited answer into a web page: Server-Sent Events from cite_core's CitationStream.

    python examples/streaming_web_page.py --port 8765     # then open http://127.0.0.1:8765/

The page shows the text as the model writes it, markers included: ``CitationStream(display=True)``
yields ``display_delta`` events whose texts add up to ``answer.text`` (markers already renumbered), so the
page never re-inserts markers itself. When the answer is complete the page swaps in the final safe HTML
(reference list, trust notes) from ``answer.to_html()``. The page is served with a
Content-Security-Policy that allows only its own inline script and style (by hash). The model here is
a scripted stand-in; plug any streaming chat model into ``model_chunks``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from cite_core import CitationStream, answer_notes, content_security_policy, number_sources

SOURCES = number_sources(
    [
        {
            "text": (
                "The Sun produces energy by nuclear fusion. Hydrogen nuclei fuse into helium in its core."
            ),
            "title": "How the Sun shines",
            "url": "https://example.org/sun",
        },
        {"text": "Sunlight takes about eight minutes to reach the Earth.", "title": "Light travel time"},
    ]
)
ANSWER = (
    "The Sun produces its energy by nuclear fusion [1]: hydrogen fuses into helium in its core [1]. "
    "That light needs about eight minutes to reach us [2]."
)

STYLE = "body{font:16px/1.6 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}"
STYLE += "#answer{white-space:pre-wrap}"
SCRIPT = """
const answer = document.getElementById("answer");
const events = new EventSource("/stream?q=" + encodeURIComponent("How does the Sun produce energy?"));
events.addEventListener("display_delta", e => {
  answer.append(document.createTextNode(JSON.parse(e.data).text));
});
events.addEventListener("done", e => {
  events.close();
  // The final HTML is rendered by cite_core: every string from the model or the sources is escaped.
  // Inserted with innerHTML its script does not run; it works without it (CSS tooltips, # links).
  answer.remove(); document.getElementById("final").innerHTML = JSON.parse(e.data).html;
});
"""
PAGE = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Streaming citations</title>
<style>{STYLE}</style></head><body>
<h1>Streaming citations</h1><div id="answer" aria-live="polite"></div><div id="final"></div>
<script>{SCRIPT}</script></body></html>"""


def page_policy() -> str:
    """The page's CSP: cite_core's fragment style, our style and script, and the event stream."""
    policy = content_security_policy(extra_styles=(STYLE,))
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    return policy.replace("script-src ", f"script-src 'sha256-{digest}' ") + "; connect-src 'self'"


def model_chunks(question: str) -> Iterator[str]:
    """A scripted model that streams a few characters at a time."""
    for i in range(0, len(ANSWER), 4):
        yield ANSWER[i : i + 4]


def sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    delay = 0.02

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path == "/":
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Security-Policy", page_policy())
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if url.path != "/stream":
            self.send_error(404)
            return
        question = parse_qs(url.query).get("q", [""])[0]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        stream = CitationStream(SOURCES, display=True)
        for chunk in model_chunks(question):
            for event in stream.feed(chunk):
                self.wfile.write(sse(event.type, event.model_dump()))
            self.wfile.flush()
            time.sleep(self.delay)
        answer = stream.finish()
        for event in stream.pending_events():
            self.wfile.write(sse(event.type, event.model_dump()))
        notes = [note.model_dump() for note in answer_notes(answer)]
        done = {"html": answer.to_html(), "answer": answer.to_anthropic(), "notes": notes}
        self.wfile.write(sse("done", done))
        self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    return ThreadingHTTPServer((host, port), Handler)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    server = serve(args.port)
    print(f"open http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)")
    server.serve_forever()
