"""Stream a cited answer into a web page: Server-Sent Events from cite_core's CitationStream.

    python examples/streaming_web_page.py --port 8765     # then open http://127.0.0.1:8765/

The page shows the text as the model writes it, adds a superscript marker as soon as a citation
resolves (hover it for the cited text), and swaps in the final safe HTML with its reference list when
the answer is complete. The model here is a scripted stand-in; plug any streaming chat model into
``model_chunks``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from cite_core import CitationStream, number_sources

SOURCES = number_sources(
    [
        {
            "text": "The Sun produces energy by nuclear fusion. Hydrogen nuclei fuse into helium in its core.",
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

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Streaming citations</title>
<style>body{font:16px/1.6 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}
sup a{text-decoration:none;color:#0645ad}#answer{white-space:pre-wrap}</style></head><body>
<h1>Streaming citations</h1><div id="answer" aria-live="polite"></div><div id="final"></div>
<script>
const answer = document.getElementById("answer");
const events = new EventSource("/stream?q=" + encodeURIComponent("How does the Sun produce energy?"));
events.addEventListener("text_delta", e => answer.append(document.createTextNode(JSON.parse(e.data).text)));
events.addEventListener("citations_delta", e => {
  const c = JSON.parse(e.data).citation, sup = document.createElement("sup"), a = document.createElement("a");
  a.textContent = "[" + c.reference + "]"; a.title = c.cited_text; a.href = "#ref-" + c.reference;
  sup.append(a); answer.append(sup);
});
events.addEventListener("done", e => {
  events.close();
  // the final HTML is rendered by cite_core: every string from the model or the sources is escaped
  answer.remove(); document.getElementById("final").innerHTML = JSON.parse(e.data).html;
});
</script></body></html>"""


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
        stream = CitationStream(SOURCES)
        for chunk in model_chunks(question):
            for event in stream.feed(chunk):
                self.wfile.write(sse(event.type, event.model_dump()))
            self.wfile.flush()
            time.sleep(self.delay)
        answer = stream.finish()
        for event in stream.pending_events():
            self.wfile.write(sse(event.type, event.model_dump()))
        self.wfile.write(sse("done", {"html": answer.to_html(), "answer": answer.to_anthropic()}))
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
