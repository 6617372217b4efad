"""Every ```python block in README.md and docs/*.md runs (blocks of one page share a namespace).

Blocks fenced as ```py are shown, not run: they need a real model, a server or top-level await.
Snippets run from the repository root, as a user following the docs would.
"""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
OPTIONAL = {"langgraph", "llamaindex-anthropic", "anthropic"}  # anthropic: the SDK that extra brings
"""Extras a page's last blocks may need: when absent, the rest of that page is skipped, not failed."""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_snippets_run(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip("no runnable snippets on this page")
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "__snippet__"}
    for number, code in enumerate(blocks, start=1):
        if _too_old(code):
            continue  # the snippet says which release it needs (the floor runs the rest of the page)
        try:
            exec(compile(code, f"{page.name}[{number}]", "exec"), namespace)
        except ImportError as exc:  # a missing module, or cite_core's MissingDependencyError naming an extra
            missing = (exc.name or "").split(".")[0] if isinstance(exc, ModuleNotFoundError) else ""
            extras = [extra for extra in OPTIONAL if f"cite-anything[{extra}]" in str(exc)]
            if missing not in OPTIONAL and not extras:
                pytest.fail(f"{page.name} block {number} failed: {type(exc).__name__}: {exc}\n{code}")
            pytest.skip(f"{page.name} block {number} and later need {missing or extras[0]} (not installed)")
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{page.name} block {number} failed: {type(exc).__name__}: {exc}\n{code}")


NEEDS = re.compile(r"^# needs ([a-z-]+) >= ([0-9.]+)", re.MULTILINE)


def _too_old(code: str) -> bool:
    """Whether a snippet starting ``# needs <distribution> >= <version>`` needs more than is installed."""
    found = NEEDS.match(code)
    if found is None:
        return False
    installed = tuple(int(p) for p in version(found[1]).split(".")[:2])
    return installed < tuple(int(p) for p in found[2].split(".")[:2])
