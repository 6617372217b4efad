"""Citations from any chat API with cite_core alone: number sources, prompt, stream, parse.

    python examples/core_any_chat_api.py "What color is the grass?"

With CITE_BASE_URL (an OpenAI-compatible server: Ollama, vLLM, llama.cpp, a hosted API) and
CITE_MODEL (and CITE_API_KEY if needed) set, the question goes to that model over HTTP with
streaming. Without them a scripted answer stands in for the model, so the example runs offline.

The prompt budget (``max_tokens=4000``) is counted with tiktoken. tiktoken ships with cite_core, but it
fetches its encoding file on first use; offline with no cached copy (a core-only install) the example
says so on stderr and sends every source without a budget. It needs only the core (``pip install -e .``
in a clone: the package is not published yet) and runs the same with every extra.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request
from collections.abc import Iterator

from cite_core import CitationStream, TokenizerUnavailableError, build_messages, number_sources

DOCUMENTS = [
    {
        "text": "The grass is green. The sky is blue.",
        "title": "My Document",
        "url": "https://example.org/colors",
    },
    {
        "text": "Water is essential for life. Most of the Earth's surface is covered by oceans.",
        "title": "Water",
    },
    {"text": "The Sun produces energy by nuclear fusion of hydrogen into helium.", "title": "The Sun"},
]

SCRIPTED = "The grass is green [1], and the sky above it is blue [1]. Water covers most of the Earth [2]."


def chat_stream(messages: list[dict[str, str]]) -> Iterator[str]:
    """Yield the model's text as it streams (OpenAI-compatible SSE), or the scripted answer offline."""
    base_url = os.environ.get("CITE_BASE_URL")
    if not base_url:
        yield from (SCRIPTED[i : i + 7] for i in range(0, len(SCRIPTED), 7))
        return
    body = json.dumps(
        {"model": os.environ.get("CITE_MODEL", "default"), "messages": messages, "stream": True}
    )
    request = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=body.encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {os.environ.get('CITE_API_KEY', 'none')}",
        },
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        for raw in response:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            delta = json.loads(line[5:])["choices"][0].get("delta", {}).get("content")
            if delta:
                yield delta


def main(question: str) -> int:
    sources = number_sources(DOCUMENTS)
    try:
        messages = build_messages(question, sources, max_tokens=4000)
    except TokenizerUnavailableError as exc:
        print(f"no token budget ({exc}); sending every source", file=sys.stderr)
        messages = build_messages(question, sources)
    stream = CitationStream(messages.sources)
    for chunk in chat_stream(messages):
        for event in stream.feed(chunk):
            if event.type == "text_delta":
                print(event.text, end="", flush=True)
            else:
                print(f"[{event.citation.reference}]", end="", flush=True)
    answer = stream.finish()
    for event in stream.pending_events():
        if event.type == "text_delta":
            print(event.text, end="")
    print("\n")
    for ref in answer.references:
        print(f"[{ref.number}] {ref.title}" + (f" <{ref.url}>" if ref.url else ""))
    for citation in answer.citations:
        print(f'  [{citation.reference}] "{citation.cited_text}" (support {citation.support:.2f})')
    if answer.invalid_markers:
        print("markers pointing at no source:", ", ".join(answer.invalid_markers))
    print(json.dumps(answer.to_anthropic(), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("question", nargs="?", default="What color is the grass, and what about water?")
    sys.exit(main(parser.parse_args().question))
