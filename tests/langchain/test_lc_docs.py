"""The ```python snippets of docs/langchain.md run, in order, in one namespace (``python no-run``: not)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from .conftest import needs_content_blocks

DOC = Path(__file__).resolve().parents[2] / "docs" / "langchain.md"


def snippets() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


@needs_content_blocks
def test_docs_snippets_run(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = snippets()
    assert len(blocks) >= 5
    namespace: dict[str, object] = {}
    for block in blocks:
        if "langgraph" in block and importlib.util.find_spec("langgraph") is None:
            break  # the last blocks need the langgraph extra
        exec(compile(block, str(DOC), "exec"), namespace)
    out = capsys.readouterr().out
    assert "[1]" in out and "hydrogen fuses into helium" in out
    if importlib.util.find_spec("langgraph") is not None:  # chat apps (LangGraph) and the blocks after them
        assert "The Moon reflects sunlight [2] made by fusion [1]." in out and "It reflects light [2]." in out
        assert "Hydrogen fuses [1]." in out  # reasoning
