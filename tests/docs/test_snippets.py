"""Every ```python block in README.md and docs/*.md runs alone, or says which block it continues.

A block runs in a fresh namespace, as a reader who copies it alone runs it, unless its leading comments
say ``# continues the block above (...)``: then it runs after the block above it (which may itself
continue an earlier one), with what that defined. Blocks fenced as ```py are shown, not run: they need
a real model, a server or top-level await. Snippets run from the repository root, as a user following
the docs would. The install instructions tell the truth: the package is not published yet.
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
        if not CONTINUES.search(_leading_comments(code)):
            namespace = {"__name__": "__snippet__"}  # runs alone, as a reader who copies it runs it
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
CONTINUES = re.compile(r"^# continues the block above\b", re.MULTILINE)


def _leading_comments(code: str) -> str:
    lines = code.splitlines()
    return "\n".join(
        line for line in lines[: next((i for i, x in enumerate(lines) if not x.startswith("#")), len(lines))]
    )


def _too_old(code: str) -> bool:
    """Whether a snippet starting ``# needs <distribution> >= <version>`` needs more than is installed."""
    found = NEEDS.match(code)
    if found is None:
        return False
    installed = tuple(int(p) for p in version(found[1]).split(".")[:2])
    return installed < tuple(int(p) for p in found[2].split(".")[:2])


UNPUBLISHED = re.compile(r"pip install\s+['\"]?cite-anything")
"""``pip install cite-anything`` fails until the package is published: install from a clone."""


def _texts() -> list[Path]:
    folders = ("cite_core", "cite_cli", "langchain_cite", "llamaindex_cite", "examples")
    return [*PAGES, *(p for folder in folders for p in sorted((ROOT / folder).rglob("*.py")))]


def test_install_instructions_tell_the_truth() -> None:
    """Issue 32 item 7: docs/quickstart.md and docs/cli.md said ``pip install cite-anything``."""
    wrong = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _texts()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if UNPUBLISHED.search(line) and "does not work" not in line
    ]
    assert not wrong, "\n".join(wrong)
    quickstart = (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")
    assert "git clone" in quickstart and "pip install -e '.[all]'" in quickstart


def test_blocks_that_continue_another_are_marked_where_a_reader_sees_it() -> None:
    """The marker is the block's own first comment (after a ``# needs`` line), never hidden further down."""
    for page in PAGES:
        for number, code in enumerate(BLOCK.findall(page.read_text(encoding="utf-8")), start=1):
            if "# continues the block above" in code:
                assert CONTINUES.search(_leading_comments(code)), f"{page.name} block {number}"
