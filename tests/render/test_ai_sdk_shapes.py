"""Every part ``to_ai_sdk_stream`` sends has the shape the AI SDK's UI message stream protocol gives it.

``SCHEMA`` is the protocol's chunk schema (``uiMessageChunkSchema`` of the ``ai`` package,
ui-message-stream/ui-message-chunks.ts: strict objects, so an unknown key is an error there too) for
the part types this library sends: each type's required and optional keys and their JSON types. The
order rules are those ``processUIMessageStream`` enforces: a text or reasoning delta belongs to a part
opened with its id and not yet ended, ``start`` comes first, ``finish`` last, then ``[DONE]``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from cite_core import (
    IMAGE_KEY,
    AnswerReset,
    CitationStream,
    DisplayDelta,
    Source,
    ThinkingDelta,
    VerificationDelta,
    ato_ai_sdk_stream,
    from_native,
    number_sources,
    parse_answer,
    to_ai_sdk_stream,
    verify,
)
from tests.core.native_payloads import gemini

_STR, _BOOL = (str,), (bool,)
SCHEMA: dict[str, tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]] = {
    # type: (required keys, optional keys); providerMetadata is never sent
    "start": ({}, {"messageId": _STR, "messageMetadata": (object,)}),
    "text-start": ({"id": _STR}, {}),
    "text-delta": ({"id": _STR, "delta": _STR}, {}),
    "text-end": ({"id": _STR}, {}),
    "reasoning-start": ({"id": _STR}, {}),
    "reasoning-delta": ({"id": _STR, "delta": _STR}, {}),
    "reasoning-end": ({"id": _STR}, {}),
    "source-url": ({"sourceId": _STR, "url": _STR}, {"title": _STR}),
    "source-document": ({"sourceId": _STR, "mediaType": _STR, "title": _STR}, {"filename": _STR}),
    "finish": ({}, {"finishReason": _STR, "messageMetadata": (object,)}),
}
DATA = ({"data": (object,)}, {"id": _STR, "transient": _BOOL})  # any type starting "data-"
FINISH_REASONS = {"stop", "length", "content-filter", "tool-calls", "error", "other"}


def check_part(part: dict[str, Any]) -> None:
    kind = part.get("type")
    assert isinstance(kind, str), part
    required, optional = DATA if kind.startswith("data-") else SCHEMA[kind]
    assert set(required) <= set(part), (kind, part)
    assert set(part) - {"type"} <= set(required) | set(optional), f"keys the protocol refuses: {part}"
    for key, value in part.items():
        if key != "type":
            kinds = {**required, **optional}[key]
            assert isinstance(value, kinds) and not (kinds == _STR and isinstance(value, bool)), (key, part)
    if kind == "finish" and "finishReason" in part:
        assert part["finishReason"] in FINISH_REASONS
    if kind == "source-document":
        assert "/" in part["mediaType"], part


def check_stream(lines: list[str]) -> list[dict[str, Any]]:
    """The parts of an SSE stream, each checked against the schema and the order rules."""
    assert lines[-1] == "data: [DONE]\n\n"
    parts = []
    for line in lines[:-1]:
        assert line.startswith("data: ") and line.endswith("\n\n") and "\n" not in line[:-2]
        part = json.loads(line[len("data: ") : -2])
        check_part(part)
        parts.append(part)
    assert parts[0]["type"] == "start" and parts[-1]["type"] == "finish"
    assert [p["type"] for p in parts].count("start") == 1 and [p["type"] for p in parts].count("finish") == 1
    open_parts: set[str] = set()
    ended: set[str] = set()
    for part in parts:
        kind, pid = part["type"], part.get("id")
        for family in ("text", "reasoning"):
            if kind == f"{family}-start":
                assert pid not in open_parts and pid not in ended, f"{pid} opened twice"
                open_parts.add(pid)
            elif kind in (f"{family}-delta", f"{family}-end"):
                assert pid in open_parts, f"{kind} of {pid}, which is not open"
                if kind.endswith("-end"):
                    open_parts.discard(pid)
                    ended.add(pid)
    assert not open_parts, f"parts never ended: {open_parts}"
    sources = [p["sourceId"] for p in parts if p["type"].startswith("source-")]
    assert len(sources) == len(set(sources)), "one source part per reference"
    return parts


SOURCES = number_sources(
    [
        {
            "text": "The Sun fuses hydrogen into helium. 太陽は恒星です。",
            "title": "Sun",
            "url": "https://example.org/sun",
        },
        {"text": "Light takes eight minutes to reach the Earth 🌍.", "title": "Light"},
        {
            "text": "Page one. Page two of the report.",
            "title": "Report",
            "metadata": {"file_name": "report.pdf"},
        },
    ]
)
TEXT = "Light needs eight minutes [2]. 太陽は恒星です [1]。The report has two pages [3][2]."


def _stream(display: bool, size: int = 4, *, truncated: bool = False) -> list[Any]:
    stream = CitationStream(SOURCES, display=display)
    items: list[Any] = []
    for i in range(0, len(TEXT), size):
        items += stream.feed(TEXT[i : i + size])
    answer = stream.finish(truncated=truncated)
    return [*items, *stream.pending_events(), answer]


def _image_answer() -> tuple[Any, list[Source]]:
    sources = number_sources(
        [
            {
                "text": "Image chart.png (no caption)",
                "title": "chart",
                "metadata": {IMAGE_KEY: {"mimetype": "image/png"}},
            },
            {"text": "A plain note.", "title": "Note"},
        ]
    )
    return parse_answer("A chart [1] and a note [2].", sources), sources


def judge(prompt: str) -> str:
    """A judge of one's own: a function from the verification prompt to its JSON reply."""
    return json.dumps({"claims": [{"id": 1, "verdict": "supported", "reason": "stated"}]})


def _verified() -> list[Any]:
    answer = verify(parse_answer("Light needs eight minutes [2].", SOURCES), judge)
    assert answer.verification is not None
    return [VerificationDelta(verification=answer.verification), answer]


def _reset() -> list[Any]:
    answer = from_native(gemini())
    return [
        ThinkingDelta(thinking="Vienna."),
        DisplayDelta(text="reasoning"),
        AnswerReset(),
        DisplayDelta(text=answer.text),
        answer,
    ]


STREAMS = {
    "display deltas": lambda: (_stream(True), SOURCES),
    "plain text deltas": lambda: (_stream(False), ()),
    "one-character deltas": lambda: (_stream(True, size=1), SOURCES),
    "cut off": lambda: (_stream(True, truncated=True), SOURCES),
    "native answer alone": lambda: ([from_native(gemini())], ()),
    "reasoning and reset": lambda: (_reset(), ()),
    "verified": lambda: (_verified(), ()),
    "image source": lambda: ([_image_answer()[0]], ()),
    "empty answer": lambda: ([parse_answer("", SOURCES)], ()),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_every_part_has_the_protocols_shape(name: str) -> None:
    items, sources = STREAMS[name]()
    parts = check_stream(list(to_ai_sdk_stream(items, sources=sources)))
    answer = items[-1]
    texts = [p for p in parts if p["type"] == "text-delta"]
    last = texts[-1]["id"] if texts else None
    assert "".join(p["delta"] for p in texts if p["id"] == last) == answer.text


def test_source_documents_carry_media_types_and_file_names() -> None:
    parts = check_stream(list(to_ai_sdk_stream(_stream(True), sources=SOURCES)))
    documents = {p["sourceId"]: p for p in parts if p["type"] == "source-document"}
    assert documents["1"]["mediaType"] == "text/plain" and "filename" not in documents["1"]
    assert documents["3"] == {
        "type": "source-document",
        "sourceId": "3",
        "mediaType": "application/pdf",
        "title": "Report",
        "filename": "report.pdf",
    }
    answer, _ = _image_answer()
    image = next(p for p in check_stream(list(to_ai_sdk_stream([answer]))) if p["type"] == "source-document")
    assert image["mediaType"] == "image/png"


def test_a_cut_off_answer_finishes_with_the_length_reason_and_a_verified_one_sends_its_verdicts() -> None:
    parts = check_stream(list(to_ai_sdk_stream(_stream(True, truncated=True))))
    assert parts[-1] == {"type": "finish", "finishReason": "length"}
    parts = check_stream(list(to_ai_sdk_stream(_verified())))
    [verification] = [p for p in parts if p["type"] == "data-verification"]
    assert verification["data"] == {
        "judge": "callable:judge",
        "calls": 1,
        "problem": None,
        "claims": [
            {
                "markers": "[1]",
                "claim": "Light needs eight minutes",
                "verdict": {"level": "supported", "reason": "stated", "score": None},
            }
        ],
    }


@pytest.mark.parametrize("name", sorted(STREAMS))
async def test_the_async_stream_sends_the_same_parts(name: str) -> None:
    items, sources = STREAMS[name]()

    async def events():  # type: ignore[no-untyped-def]
        for item in items:
            yield item

    lines = [line async for line in ato_ai_sdk_stream(events(), sources=sources, message_id="m")]
    assert lines == list(to_ai_sdk_stream(items, sources=sources, message_id="m"))
    check_stream(lines)
