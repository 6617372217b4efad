"""to_ai_sdk_stream: this library's events as the Vercel AI SDK's UI message stream (SSE)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cite_core import (
    AI_SDK_HEADERS,
    AnswerReset,
    ArgumentError,
    CitationStream,
    DisplayDelta,
    ThinkingDelta,
    from_native,
    number_sources,
    to_ai_sdk_stream,
)
from tests.core.native_payloads import gemini

SOURCES = number_sources(
    [
        {
            "text": "The Sun fuses hydrogen into helium. 太陽は恒星です。",
            "title": "Sun",
            "url": "https://example.org/sun",
        },
        {"text": "Light takes eight minutes to reach the Earth 🌍.", "title": "Light"},
    ]
)
TEXT = "Light needs eight minutes to reach us [2]. 太陽は恒星です [1]。The Sun fuses hydrogen [1][2]."


def parts(lines: list[str]) -> list[Any]:
    """The parts of the stream, each line checked to be one SSE data line."""
    out: list[Any] = []
    for line in lines:
        assert line.startswith("data: ") and line.endswith("\n\n") and "\n" not in line[:-2]
        body = line[len("data: ") : -2]
        out.append(body if body == "[DONE]" else json.loads(body))
    return out


def events(display: bool, size: int = 3) -> list[Any]:
    stream = CitationStream(SOURCES, display=display)
    items: list[Any] = []
    for i in range(0, len(TEXT), size):
        items += stream.feed(TEXT[i : i + size])
    answer = stream.finish()
    return [*items, *stream.pending_events(), answer]


def test_display_deltas_stream_as_they_come_and_add_up_to_the_answer_text() -> None:
    items = events(display=True)
    answer = items[-1]
    got = parts(list(to_ai_sdk_stream(items, sources=SOURCES, message_id="m1")))
    assert got[0] == {"type": "start", "messageId": "m1"}
    assert got[1] == {"type": "text-start", "id": "text-1"}
    assert got[-3:] == [{"type": "text-end", "id": "text-1"}, {"type": "finish"}, "[DONE]"]
    deltas = [p["delta"] for p in got if isinstance(p, dict) and p["type"] == "text-delta"]
    assert len(deltas) > 10 and "".join(deltas) == answer.text
    assert all(p["id"] == "text-1" for p in got if isinstance(p, dict) and p["type"].startswith("text-"))
    sources = [p for p in got if isinstance(p, dict) and p["type"].startswith("source-")]
    assert sources == [
        {"type": "source-document", "sourceId": "1", "mediaType": "text/plain", "title": "Light"},
        {"type": "source-url", "sourceId": "2", "url": "https://example.org/sun", "title": "Sun"},
    ]
    # each source part comes as soon as its reference is first cited: before the text that follows
    first_source = got.index(sources[0])
    shown = "".join(
        p["delta"] for p in got[:first_source] if isinstance(p, dict) and p["type"] == "text-delta"
    )
    assert shown.startswith("Light needs eight minutes") and len(shown) < len(answer.text) // 2
    cited = [p["data"] for p in got if isinstance(p, dict) and p["type"] == "data-citation"]
    assert [c["reference"] for c in cited] == [c.reference for c in answer.citations]
    assert cited[0]["citedText"] == "Light takes eight minutes to reach the Earth 🌍."


def test_plain_text_deltas_have_no_markers_so_the_answer_text_is_sent_whole() -> None:
    items = events(display=False)
    got = parts(list(to_ai_sdk_stream(items)))
    deltas = [p["delta"] for p in got if isinstance(p, dict) and p["type"] == "text-delta"]
    assert deltas == [items[-1].text]
    # without the sources, references get their parts from the answer (the document title only)
    assert [p["sourceId"] for p in got if isinstance(p, dict) and p["type"].startswith("source-")] == [
        "1",
        "2",
    ]
    assert got[0]["messageId"].startswith("msg-")


def test_a_native_answer_alone_streams_its_text_and_references() -> None:
    answer = from_native(gemini())
    got = parts(list(to_ai_sdk_stream([answer])))
    assert (
        "".join(p["delta"] for p in got if isinstance(p, dict) and p["type"] == "text-delta") == answer.text
    )
    urls = [p["url"] for p in got if isinstance(p, dict) and p["type"] == "source-url"]
    assert urls == ["https://example.org/vienna", "https://example.org/tokyo", "https://example.org/paris"]


def test_reasoning_and_an_answer_reset_keep_the_last_text_part_equal_to_the_answer() -> None:
    answer = from_native(gemini())
    items = [
        ThinkingDelta(thinking="Vienna first."),
        DisplayDelta(text="This was reasoning"),
        AnswerReset(),
        DisplayDelta(text=answer.text[:10]),
        DisplayDelta(text=answer.text[10:]),
        answer,
    ]
    got = parts(list(to_ai_sdk_stream(items)))
    kinds = [p["type"] for p in got[:5] if isinstance(p, dict)]
    assert kinds == ["start", "reasoning-start", "reasoning-delta", "reasoning-end", "text-start"]
    last = [p for p in got if isinstance(p, dict) and p["type"] == "text-delta" and p["id"] == "text-2"]
    assert "".join(p["delta"] for p in last) == answer.text


def test_events_of_another_answer_or_no_answer_are_a_clear_error() -> None:
    answer = from_native(gemini())
    with pytest.raises(ArgumentError, match="do not add up"):
        list(to_ai_sdk_stream([DisplayDelta(text="Something else"), answer]))
    with pytest.raises(ArgumentError, match="without its CitedAnswer"):
        list(to_ai_sdk_stream([DisplayDelta(text="x")]))
    with pytest.raises(ArgumentError, match="got int"):
        list(to_ai_sdk_stream([3, answer]))
    assert AI_SDK_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"
