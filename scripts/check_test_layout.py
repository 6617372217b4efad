"""Every test folder runs alone and beside any other: each is a package and no test imports a conftest.

Run by scripts/check.sh. A folder without ``__init__.py`` puts its files on ``sys.path`` under their bare
names (two ``conftest`` or ``helpers`` modules then clash when folders run together), and
``from conftest import`` finds whichever conftest was imported first. Shared helpers go in tests/fakes.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
_CONFTEST_IMPORT = re.compile(r"^\s*(from\s+conftest\s+import|import\s+conftest\b)", re.MULTILINE)


def problems() -> list[str]:
    """What breaks running the test folders alone or together, one line each (empty when all is well)."""
    found = []
    for folder in sorted({p.parent for p in TESTS.rglob("*.py")}):
        if not (folder / "__init__.py").is_file():
            found.append(f"{folder.relative_to(TESTS.parent)}: no __init__.py (make it a package)")
    for path in sorted(TESTS.rglob("*.py")):
        if _CONFTEST_IMPORT.search(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(TESTS.parent)}: imports a conftest by name (use tests/fakes.py)")
    return found


if __name__ == "__main__":
    for line in problems():
        print(line)
    sys.exit(1 if problems() else 0)
