"""Shared fixtures: paths to ../shared, sockets limited to 127.0.0.1 for every test, and the hypothesis
profiles (registered once here: ``ci`` by default, ``HYPOTHESIS_PROFILE=long`` for 10,000 examples).

Shared fakes live in importable modules (``tests/fakes.py``), not here: a conftest is not imported by name.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_DATA = SHARED / "data"


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data``; tests using it skip cleanly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not beside the project")
    return SHARED_DATA


_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address):  # type: ignore[no-untyped-def]
    host = address[0] if isinstance(address, tuple) else address
    local = isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1"))
    if self.family in (socket.AF_INET, socket.AF_INET6) and isinstance(host, str) and not local:
        raise OSError(f"tests may not reach the network (tried {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test but those marked ``integration`` (real hosted models, skipped without a key)."""
    if request.node.get_closest_marker("integration") is None:
        monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


SLOW_TESTS = (
    "tests/cli/test_cli.py::test_console_script_in_a_subprocess",
    "tests/core/test_golden.py",
    "tests/examples/test_core_examples.py",
    "tests/examples/test_example_help.py",
    "tests/langchain/test_lc_qdrant.py::test_example_runs_as_a_script",
    "tests/llamaindex/test_exports_and_example.py::test_example_runs_offline_with_the_fake_llm",
    "tests/render/test_browser.py::test_xss_corpus_runs_no_script",
    "tests/robustness/test_fuzz_properties.py::test_markers_split_at_every_position_equal_the_whole_parse",
    "tests/robustness/test_linear_time.py",
    "tests/robustness/test_memory.py",
)
"""Tests (or whole modules) that took 4 s or more with ``--durations=40 -n 2`` on a 2-core machine; they
get the ``slow`` marker here, in one place, so ``-m "not slow"`` gives a quick run."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.nodeid == s or item.nodeid.startswith((s + "::", s + "[")) for s in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)
