"""Serve cited answers as the Vercel AI SDK's UI message stream, to a page that reads the protocol.

    python examples/ai_sdk_chat.py --port 8766      # then open http://127.0.0.1:8766/

``POST /api/chat`` answers the way ``useChat`` (React, Next.js) expects: Server-Sent Events of
``text-delta``, ``source-url`` / ``source-document`` and ``finish`` parts, ending ``data: [DONE]``, with
the header ``x-vercel-ai-ui-message-stream: v1``. ``cite_core.to_ai_sdk_stream`` makes them from a
``CitationStream(display=True)`` over a scripted model (the deltas add up to ``answer.text``, markers
renumbered) or, with ``{"native": true}`` in the request, from a Gemini response with its own grounding
citations read by ``cite_core.from_native``. A React app points ``useChat`` at ``/api/chat``; the page
served at ``/`` is a small self-contained reader of the same protocol (no npm, no build), whose script
builds the DOM with text nodes only.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
from collections.abc import Iterator
from typing import Any

from cite_core import AI_SDK_HEADERS, CitationStream, from_native, number_sources, to_ai_sdk_stream

try:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, StreamingResponse
    from starlette.routing import Route
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SystemExit(
        "this example needs starlette and uvicorn: in a clone of the repository, pip install -e '.[web]'"
    ) from exc

SOURCES = number_sources(
    [
        {
            "text": (
                "The Sun produces energy by nuclear fusion. Hydrogen nuclei fuse into helium in its core."
            ),
            "title": "How the Sun shines",
            "url": "https://example.org/sun",
        },
        {"text": "Sunlight takes about eight minutes to reach the Earth 🌍.", "title": "Light travel time"},
    ]
)
ANSWER = (
    "The Sun produces its energy by nuclear fusion [1]: hydrogen fuses into helium in its core [1]. "
    "Its light needs about eight minutes to reach us 🌍 [2]."
)
NATIVE_TEXT = "太陽は核融合で輝きます。 Sunlight reaches the Earth in eight minutes 🌍."


def gemini_response() -> dict[str, Any]:
    """A grounded Gemini response: segment offsets in UTF-8 bytes, as the API gives them."""
    first = "太陽は核融合で輝きます。"
    end = len(first.encode())
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": NATIVE_TEXT}]},
                "groundingMetadata": {
                    "groundingChunks": [
                        {"web": {"uri": "https://example.org/sun", "title": "How the Sun shines"}},
                        {"web": {"uri": "https://example.org/light", "title": "Light travel time"}},
                    ],
                    "groundingSupports": [
                        {"segment": {"endIndex": end, "text": first}, "groundingChunkIndices": [0]},
                        {
                            "segment": {"startIndex": end + 1, "endIndex": len(NATIVE_TEXT.encode())},
                            "groundingChunkIndices": [1],
                        },
                    ],
                },
            }
        ]
    }


STYLE = (
    "body{font:16px/1.6 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}"
    "#answer{white-space:pre-wrap}.marker{font-size:.8em;vertical-align:super;text-decoration:none}"
)
SCRIPT = """
const answer = document.getElementById("answer"), list = document.getElementById("sources");
const quotes = {};
function link(n) {
  const a = document.createElement("a");
  a.className = "marker"; a.href = "#src-" + n; a.textContent = "[" + n + "]";
  if (quotes[n]) a.title = quotes[n].join(" … ");
  return a;
}
function markers(text) {  // the finished text with its [n] as links to the sources, text nodes only
  answer.textContent = "";
  let last = 0;
  for (const m of text.matchAll(/\\[(\\d+)\\]/g)) {
    answer.append(document.createTextNode(text.slice(last, m.index)), link(m[1]));
    last = m.index + m[0].length;
  }
  answer.append(document.createTextNode(text.slice(last)));
}
function part(p) {
  if (p.type === "text-delta") answer.append(document.createTextNode(p.delta));
  else if (p.type === "source-url" || p.type === "source-document") {
    const li = document.createElement("li");
    li.id = "src-" + p.sourceId; li.value = Number(p.sourceId);
    if (p.url) {
      const a = document.createElement("a");
      a.href = p.url; a.textContent = p.title; li.append(a);
    } else li.textContent = p.title;
    list.append(li);
  } else if (p.type === "data-citation") (quotes[p.data.reference] ||= []).push(p.data.citedText);
  else if (p.type === "finish") { markers(answer.textContent); document.body.dataset.state = "done"; }
}
async function ask(native) {
  const question = {role: "user", parts: [{type: "text", text: "How does the Sun shine?"}]};
  const body = JSON.stringify({messages: [question], native});
  const headers = {"content-type": "application/json"};
  const response = await fetch("/api/chat", {method: "POST", headers, body});
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\\n\\n")) >= 0) {
      const line = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
      if (line.startsWith("data: ") && line !== "data: [DONE]") part(JSON.parse(line.slice(6)));
    }
  }
}
ask(new URLSearchParams(location.search).has("native"));
"""
PAGE = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>AI SDK stream with citations</title>
<style>{STYLE}</style></head><body data-state="streaming">
<h1>Cited answer</h1><div id="answer" aria-live="polite"></div><h2>Sources</h2><ol id="sources"></ol>
<script>{SCRIPT}</script></body></html>"""


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


POLICY = (
    f"default-src 'none'; script-src 'sha256-{_digest(SCRIPT)}'; style-src 'sha256-{_digest(STYLE)}'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'"
)


def model_chunks() -> Iterator[str]:
    """A scripted model that streams a few characters at a time; plug a real one in here."""
    for i in range(0, len(ANSWER), 5):
        yield ANSWER[i : i + 5]


def events(native: bool) -> Iterator[Any]:
    """This library's events, ending with the answer: what ``to_ai_sdk_stream`` reads."""
    if native:
        yield from_native(gemini_response())
        return
    stream = CitationStream(SOURCES, display=True)
    for chunk in model_chunks():
        yield from stream.feed(chunk)
    answer = stream.finish()
    yield from stream.pending_events()
    yield answer


async def page(request: Request) -> HTMLResponse:
    return HTMLResponse(PAGE, headers={"content-security-policy": POLICY})


async def chat(request: Request) -> StreamingResponse:
    body = json.loads(await request.body() or b"{}")
    native = bool(body.get("native")) if isinstance(body, dict) else False
    stream = to_ai_sdk_stream(events(native), sources=SOURCES)
    return StreamingResponse(stream, headers=AI_SDK_HEADERS, media_type="text/event-stream")


app = Starlette(routes=[Route("/", page), Route("/api/chat", chat, methods=["POST"])])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8766, help="port on 127.0.0.1 (default 8766)")
    args = parser.parse_args()
    import uvicorn

    print(f"open http://127.0.0.1:{args.port}/ (Ctrl-C to stop)")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
