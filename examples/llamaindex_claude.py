"""Claude's own citations in LlamaIndex: ``CiteSynthesizer`` with llama-index-llms-anthropic's ``Anthropic``.

Needs the ``llamaindex-anthropic`` extra, which ``[all]`` does not include (in a clone: ``pip install -e
'.[llamaindex-anthropic]'``; without it the example says so in one line). With it, it runs offline as
is: the index of ``examples/llamaindex_qdrant.py`` and a recorded Claude response (the Messages API
JSON, and the same as server-sent events when streaming) served to the Anthropic client by an
``httpx.MockTransport``; no network, no API key.

    python examples/llamaindex_claude.py

With ``ANTHROPIC_API_KEY`` set, it asks the real Claude (``CITE_CLAUDE_MODEL``, default claude-sonnet-4-5).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Any

from cite_core import MissingDependencyError
from llamaindex_cite import CiteQueryEngine

try:  # the llamaindex-anthropic extra, not in [all]: --help works without it, running says what to install
    import anthropic
    import anthropic._base_client
    from llama_index.llms.anthropic import Anthropic
except ImportError as exc:
    MISSING: ImportError | None = exc
else:
    MISSING = None
EXTRA = (
    "install the extra cite-anything[llamaindex-anthropic], which [all] does not include "
    "(in a clone: pip install -e '.[llamaindex-anthropic]')"
)

QUESTION = "How did the harbour of Kessby change?"


def _cite(index: int, title: str, source: str, cited_text: str, block: int) -> dict[str, Any]:
    return {
        "type": "search_result_location",
        "cited_text": cited_text,
        "source": source,
        "title": title,
        "search_result_index": index,
        "start_block_index": block,
        "end_block_index": block + 1,
    }


HARBOUR = ("Harbour history", "https://example.org/harbour")
MESSAGE: dict[str, Any] = {
    "id": "msg_01KessbyHarbourRecorded",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [
        {"type": "text", "text": "The harbour of Kessby changed in two steps. "},
        {
            "type": "text",
            "text": "It was dredged in 1931 so that steamers could dock",
            "citations": [
                _cite(1, *HARBOUR, "Kessby's harbour was dredged in 1931 so that steamers could dock.", 0)
            ],
        },
        {"type": "text", "text": "; "},
        {
            "type": "text",
            "text": "before that, cargo was rowed ashore from ships anchored in the bay",
            "citations": [
                _cite(1, *HARBOUR, "Before that, cargo was rowed ashore from ships anchored in the bay.", 1)
            ],
        },
        {"type": "text", "text": ". Then "},
        {
            "type": "text",
            "text": "the fish market moved to the new quay in 1933",
            "citations": [
                _cite(0, "market.txt", "market", "The fish market moved to the new quay in 1933.", 0)
            ],
        },
        {"type": "text", "text": "."},
    ],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1084, "output_tokens": 96},
}
"""A Messages API response to QUESTION over the sources CiteSynthesizer sends for it (0: market.txt,
1: Harbour history, 2: church.txt, each a search result whose blocks are its sentences)."""


def stream_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """``message`` as the Messages API streams it: each block's citations, then its text one character
    per ``text_delta``."""
    start = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        events.append(
            {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
        )
        for citation in block.get("citations") or []:
            delta = {"type": "citations_delta", "citation": citation}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        for char in block["text"]:
            events.append(
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": char}}
            )
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append(
        {
            "type": "message_delta",
            "delta": stop,
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events


def sdk_works() -> bool:
    """Whether llama-index-llms-anthropic (0.12.3 and before) can call the installed anthropic SDK: it
    passes ``temperature``, which recent anthropic releases (1.17, 2.12) no longer take."""
    if MISSING is not None:
        return False
    from anthropic.resources.messages import Messages

    return "temperature" in inspect.signature(Messages.create).parameters


def require_sdk() -> None:
    """Raise ``MissingDependencyError`` naming the extra when the SDK is missing or too new."""
    if MISSING is not None:
        raise MissingDependencyError(
            f"this example needs {MISSING.name or 'anthropic'}: {EXTRA}"
        ) from MISSING
    if not sdk_works():
        raise MissingDependencyError(
            f"llama-index-llms-anthropic cannot call anthropic {anthropic.__version__} (its Messages.create "
            "takes no temperature): install the extra cite-anything[llamaindex-anthropic] (anthropic<1; in a "
            "clone: pip install -e '.[llamaindex-anthropic]')"
        )


def recorded_claude(
    message: dict[str, Any] = MESSAGE, requests: list[dict[str, Any]] | None = None
) -> Anthropic:
    """An ``Anthropic`` LLM whose clients get ``message`` (as JSON, or as server-sent events when the
    request streams) from an ``httpx.MockTransport``; each request body is appended to ``requests``."""

    require_sdk()
    httpx = getattr(anthropic._base_client, "httpx2", None) or anthropic._base_client.httpx  # the SDK's own

    def reply(request: Any) -> Any:
        body = json.loads(request.content)
        if requests is not None:
            requests.append(body)
        if not body.get("stream"):
            return httpx.Response(200, json=message)
        sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in stream_events(message))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=sse.encode())

    llm = Anthropic(model="claude-sonnet-4-5", api_key="offline", max_retries=0)
    transport = httpx.MockTransport(reply)
    llm._client = anthropic.Anthropic(api_key="offline", http_client=httpx.Client(transport=transport))
    llm._aclient = anthropic.AsyncAnthropic(
        api_key="offline", http_client=httpx.AsyncClient(transport=transport)
    )
    return llm


def make_claude() -> Anthropic:
    """The real Claude when ``ANTHROPIC_API_KEY`` is set, else the recorded one."""
    if os.environ.get("ANTHROPIC_API_KEY"):
        require_sdk()
        return Anthropic(model=os.environ.get("CITE_CLAUDE_MODEL", "claude-sonnet-4-5"))
    return recorded_claude()


def main() -> None:
    example = runpy.run_path(str(Path(__file__).with_name("llamaindex_qdrant.py")))
    index, claude = example["make_index"](), make_claude()
    response = CiteQueryEngine.from_args(index, llm=claude, similarity_top_k=10).query(QUESTION)
    print(response)
    print(response.metadata["cited_answer"].to_markdown())
    streaming = CiteQueryEngine.from_args(index, llm=claude, similarity_top_k=10, streaming=True)
    for token in streaming.query(QUESTION).response_gen:
        print(token, end="", flush=True)
    print()


if __name__ == "__main__":
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    try:
        main()
    except MissingDependencyError as exc:
        sys.exit(f"{sys.argv[0]}: {exc}")
