"""The public names, the adapter's shape (thin, no regex), and the example script."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import llamaindex_cite

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "llamaindex_cite"


def test_exported_names():
    assert llamaindex_cite.__all__ == [
        "CITE_AS_KEY",
        "REFERENCE_NUMBER_KEY",
        "SENTENCES_KEY",
        "SOURCE_NUMBER_KEY",
        "AsyncCitedStreamingResponse",
        "CitationSession",
        "CiteChatEngine",
        "CitePostprocessor",
        "CiteQueryEngine",
        "CiteSynthesizer",
        "CitedStreamingResponse",
        "cited_query_engine_tool",
        "from_chat_response",
        "to_chat_message",
    ]
    assert all(hasattr(llamaindex_cite, name) for name in llamaindex_cite.__all__)


def test_components_are_named():
    assert llamaindex_cite.CiteQueryEngine.class_name() == "CiteQueryEngine"
    assert llamaindex_cite.CitePostprocessor.class_name() == "CitePostprocessor"


def test_adapter_is_thin():
    for module in PACKAGE.glob("*.py"):
        source = module.read_text()
        assert len(source.splitlines()) <= 250, module.name
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
        }
        assert "re" not in imported and "regex" not in imported, module.name


def test_core_does_not_import_the_adapter():
    for module in (ROOT / "cite_core").glob("*.py"):
        assert "llamaindex_cite" not in module.read_text(), module.name


def test_example_runs_offline_with_the_fake_llm():
    env = {k: v for k, v in os.environ.items() if k not in ("CITE_LLAMAINDEX_LLM", "QDRANT_URL")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "llamaindex_qdrant.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    out = result.stdout
    expected = (
        "The harbour was dredged in 1931 so that steamers could dock [1]. The fish market moved to the new "
        "quay in 1933 [2], and today the quay serves mostly pleasure boats [2]. It also had a submarine base."
    )
    assert out.count(expected) == 3  # query, streaming, async
    assert "[1] Harbour history" in out and "[2] market.txt" in out
    assert out.count("Invalid markers: ['[9]']") == 2
    assert "Cited nodes: ['harbour', 'market']" in out and "church" not in out
