#!/usr/bin/env bash
# Run tests/langchain on the newest langchain-core 0.3 (the main test run covers the newest 1.x).
# Creates .venv-lc03 beside the project once (the package editable, langchain-core <0.4 and the partner
# packages and langgraph versions made for it), then reuses it. Usage: bash scripts/test-langchain-versions.sh
# [pytest args]. About a minute when the environment exists, two or three to build it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
VENV=.venv-lc03
PINS=(
    "langchain-core>=0.3,<0.4"
    "langchain-openai>=0.2,<0.4"
    "langchain-anthropic>=0.3,<0.4"
    "langchain-qdrant>=0.2,<0.3"
    "qdrant-client>=1.12"
    "langgraph>=0.3,<0.7"
    "pypdf>=4"
    "pytest>=8"
    "pytest-asyncio>=0.23"
    "pytest-xdist>=3"
)
STAMP="$VENV/.pins-$(printf '%s\n' "${PINS[@]}" | sha1sum | cut -c1-12)"
if [ ! -f "$STAMP" ]; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --no-deps -e .
    "$VENV/bin/python" -m pip install -q "pydantic>=2.6" "tiktoken>=0.7" "${PINS[@]}"
    touch "$STAMP"
fi
version=$("$VENV/bin/python" -c "import langchain_core; print(langchain_core.__version__)")
case "$version" in
    0.3.*) ;;
    *) echo "test-langchain-versions.sh: expected langchain-core 0.3.x in $VENV, got $version" >&2; exit 1 ;;
esac
echo "tests/langchain on langchain-core $version"
PYTHONPATH="$PWD" "$VENV/bin/python" -m pytest -q -p no:cacheprovider -n 2 tests/langchain "$@"
