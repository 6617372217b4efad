"""A new entry point cannot be added without its row: every public name of the adapters is covered by a
row of the matrix (or named as no entry point, with the reason), and every row answers every scenario."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from .matrix import ROW_MODULES, SCENARIOS, Row


def _row_module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except pytest.skip.Exception:  # the module's framework is not installed
        return None
    except ModuleNotFoundError as error:
        if error.name == name:  # the module itself is not written yet (the LlamaIndex rows)
            return None
        raise


def _rows() -> tuple[list[Row], dict[str, str]]:
    rows: list[Row] = []
    exempt: dict[str, str] = {}
    for name in ROW_MODULES:
        module = _row_module(name)
        if module is not None:
            rows += list(module.ROWS)
            exempt.update(getattr(module, "NOT_ENTRY_POINTS", {}))
    return rows, exempt


def test_every_row_answers_every_scenario() -> None:
    rows, _ = _rows()
    assert rows
    for row in rows:
        missing = [s for s in SCENARIOS if s not in row.cells]
        unknown = [s for s in row.cells if s not in SCENARIOS]
        assert not missing and not unknown, f"{row.entry}: no cell for {missing}, unknown scenarios {unknown}"
        for scenario, cell in row.cells.items():
            assert callable(cell) or (isinstance(cell, str) and cell.strip()), f"{row.entry}/{scenario}"


@pytest.mark.parametrize("package", ["langchain_cite", "llamaindex_cite"])
def test_every_public_name_has_a_row(package: str) -> None:
    module = pytest.importorskip(package)
    rows, exempt = _rows()
    if package == "llamaindex_cite" and not any(r.entry.startswith("llamaindex_cite") for r in rows):
        pytest.skip("the LlamaIndex rows (test_llamaindex_rows.py) are not there yet")
    covered = {f"{package}.{n}" for row in rows for n in row.covers} | set(exempt)
    missing = [n for n in module.__all__ if f"{package}.{n}" not in covered]
    assert not missing, f"public names of {package} with no row in the conformance matrix: {missing}"
