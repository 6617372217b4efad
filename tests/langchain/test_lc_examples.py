"""The LangChain agent example runs offline and cites across both of its searches."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_langgraph_agent_example() -> None:
    pytest.importorskip("langgraph.prebuilt")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITE_EXAMPLE_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "langgraph_agent.py")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert (
        "The Sun fuses hydrogen into helium [\\[1\\]](#ref-1), and Mars has two small moons [\\[3\\]]" in out
    )
    assert "[3] mars.md: 1 document(s)\n" in out  # the session's numbers, as the agent wrote them
    assert "Deprecat" not in result.stderr
