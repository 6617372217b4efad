"""The core's recorded search-result response (tests/data) is the one the LlamaIndex example serves."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

pytest.importorskip("llama_index.llms.anthropic")

ROOT = Path(__file__).resolve().parents[2]


def test_the_core_tests_read_what_the_example_serves():
    recorded = json.loads(
        (ROOT / "tests" / "data" / "claude_search_results.json").read_text(encoding="utf-8")
    )
    example = runpy.run_path(str(ROOT / "examples" / "llamaindex_claude.py"))
    documents = {
        d.id_: d for d in runpy.run_path(str(ROOT / "examples" / "llamaindex_qdrant.py"))["DOCUMENTS"]
    }
    assert recorded["message"] == example["MESSAGE"]
    assert recorded["question"] == example["QUESTION"]
    assert [s["text"] for s in recorded["sources"]] == [
        documents[i].text for i in ("market", "harbour", "church")
    ]
