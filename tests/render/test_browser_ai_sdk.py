"""The AI SDK example's page in headless chromium: what it shows after reading the UI message stream."""

from __future__ import annotations

import runpy
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ai_sdk_chat.py"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, dict[str, Any]]]:
    """The example's app on 127.0.0.1, on a port the system chose."""
    module = runpy.run_path(str(EXAMPLE))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(module["app"], log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", module
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _done(browser: Any, url: str) -> None:
    browser.get(url)
    deadline = time.monotonic() + 10
    while browser.execute_script("return document.body.dataset.state") != "done":
        assert time.monotonic() < deadline, "the page never read the finish part"
        time.sleep(0.05)


@pytest.mark.parametrize("native", [False, True])
def test_the_page_shows_the_answer_its_markers_and_sources(browser: Any, served: Any, native: bool) -> None:
    base, module = served
    answer = list(module["events"](native))[-1]
    _done(browser, base + ("/?native=1" if native else "/"))
    shown = browser.execute_script("return document.getElementById('answer').textContent")
    assert shown == answer.text  # the deltas joined, markers included
    markers = browser.execute_script(
        "return [...document.querySelectorAll('#answer a.marker')].map(a => [a.textContent, a.hash, a.title])"
    )
    numbers = [c.reference for block in answer.content for g in block.marker_groups for c in g.citations]
    assert [m[0] for m in markers] == [
        f"[{n}]" for b in answer.content for g in b.marker_groups for n in g.numbers
    ]
    assert all(m[1] == f"#src-{m[0][1:-1]}" for m in markers) and numbers
    first = answer.citations[0]
    assert first.cited_text in markers[0][2]  # the quote of data-citation parts, as the marker's title
    items = browser.execute_script(
        "return [...document.querySelectorAll('#sources li')].map(li => [li.id, li.textContent,"
        " li.querySelector('a') && li.querySelector('a').href])"
    )
    assert [i[0] for i in items] == [f"src-{r.number}" for r in answer.references]
    assert [i[1] for i in items] == [r.source.label for r in answer.references]
    assert items[0][2] == "https://example.org/sun"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors
