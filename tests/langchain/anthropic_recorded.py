"""Recorded Messages API responses with citations, rebuilt from the Anthropic cookbook's saved outputs.

``../shared/data/anthropic_cookbook_citations_examples.json`` holds real Claude responses (MIT, see its
README); the notebook printer dropped ``document_index`` and the character indices, which the file
gives as ``derived_*`` fields recomputed by exact match. Here they are put back under the API's names,
and each response is also rendered as the server-sent events the Messages API streams.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes import sse

COOKBOOK = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "anthropic_cookbook_citations_examples.json"
)


def load_examples() -> dict[str, dict[str, Any]]:
    data = json.loads(COOKBOOK.read_text(encoding="utf-8"))
    return {ex["name"]: ex for ex in data["examples"]}


def api_citation(recorded: dict[str, Any]) -> dict[str, Any]:
    citation = {
        "type": recorded["type"],
        "cited_text": recorded["cited_text"],
        "document_index": recorded["derived_document_index"],
        "document_title": recorded["document_title"],
    }
    if recorded["type"] == "char_location":
        citation["start_char_index"] = recorded["derived_start_char_index"]
        citation["end_char_index"] = recorded["derived_end_char_index"]
    elif recorded["type"] == "content_block_location":  # one content block per article in that notebook cell
        citation["start_block_index"], citation["end_block_index"] = 0, 1
    return citation


def api_content(example: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = []
    for block in example["response_content"]:
        out: dict[str, Any] = {"type": "text", "text": block["text"]}
        if block.get("citations"):
            out["citations"] = [api_citation(c) for c in block["citations"]]
        blocks.append(out)
    return blocks


def message(content: list[dict[str, Any]], model: str) -> dict[str, Any]:
    return {
        "id": "msg_recorded",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1200, "output_tokens": 90},
    }


def stream_events(content: list[dict[str, Any]], model: str, *, piece: int = 7) -> list[str]:
    """The Messages API stream: citations_delta before the text of a cited block, except in odd blocks."""
    start = message([], model) | {"stop_reason": None, "usage": {"input_tokens": 1200, "output_tokens": 1}}
    events = [
        sse({"type": "message_start", "message": start}, "message_start"),
        sse({"type": "ping"}, "ping"),
    ]
    for index, block in enumerate(content):
        citations = block.get("citations") or []
        opening = {"type": "text", "text": ""} | ({"citations": []} if citations else {})
        events.append(
            sse(
                {"type": "content_block_start", "index": index, "content_block": opening},
                "content_block_start",
            )
        )
        deltas = [{"type": "citations_delta", "citation": c} for c in citations]
        texts = [
            {"type": "text_delta", "text": block["text"][i : i + piece]}
            for i in range(0, len(block["text"]), piece)
        ]
        for delta in texts + deltas if index % 2 else deltas + texts:
            events.append(
                sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
            )
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(
        sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 90},
            },
            "message_delta",
        )
    )
    events.append(sse({"type": "message_stop"}, "message_stop"))
    return events
