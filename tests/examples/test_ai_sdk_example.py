"""The AI SDK example: ``--help``, the UI message stream it serves (both answers), its page's policy."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")  # starlette's TestClient

from starlette.testclient import TestClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ai_sdk_chat.py"


def _parts(body: str) -> list[Any]:
    lines = body.split("\n\n")
    assert lines[-1] == "" and all(line.startswith("data: ") for line in lines[:-1])
    return [line[6:] if line == "data: [DONE]" else json.loads(line[6:]) for line in lines[:-1]]


def test_help() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE), "--help"], capture_output=True, text=True, check=True)
    assert "UI message stream" in out.stdout and "--port" in out.stdout


@pytest.mark.parametrize("native", [False, True])
def test_the_chat_route_streams_the_protocol(native: bool) -> None:
    module = runpy.run_path(str(EXAMPLE))
    client = TestClient(module["app"])
    response = client.post("/api/chat", json={"messages": [], "native": native})
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    parts = _parts(response.text)
    answer = list(module["events"](native))[-1]
    deltas = [p["delta"] for p in parts if isinstance(p, dict) and p["type"] == "text-delta"]
    assert "".join(deltas) == answer.text and parts[-1] == "[DONE]"
    sources = [p for p in parts if isinstance(p, dict) and p["type"].startswith("source-")]
    assert [p["sourceId"] for p in sources] == [str(r.number) for r in answer.references]
    assert sources[0] == {
        "type": "source-url",
        "sourceId": "1",
        "url": "https://example.org/sun",
        "title": "How the Sun shines",
    }
    if not native:
        assert len(deltas) > 10  # streamed as the model writes, not at the end
    page = client.get("/")
    policy = page.headers["content-security-policy"]
    assert "script-src 'sha256-" in policy and "unsafe-inline" not in policy
