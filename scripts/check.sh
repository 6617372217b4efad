#!/usr/bin/env bash
# Static checks: the ruff rule set, the formatter and mypy over the four packages (pyproject.toml holds
# their configuration), and the test layout (every test folder runs alone or beside any other).
# Run from anywhere: bash scripts/check.sh. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ruff check ."
ruff check .
echo "== ruff format --check ."
ruff format --check .
echo "== mypy (cite_core, langchain_cite, llamaindex_cite, cite_cli)"
mypy
echo "== test layout (scripts/check_test_layout.py)"
python scripts/check_test_layout.py
