#!/usr/bin/env bash
# Run tests/langchain on the newest langchain-core 0.3 (the main test run covers the newest 1.x).
#
# Creates .venv-lc03 beside the project once, then reuses it. When the main environment exists
# (.venv, as .ci/run makes it, or BASE_VENV=...), .venv-lc03 sees its packages through a .pth file and
# installs only langchain-core <0.4 and the partner packages and langgraph made for it, which shadow
# the 1.x ones (about a minute); otherwise it installs everything itself (a few minutes).
# Usage: bash scripts/test-langchain-versions.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
VENV=.venv-lc03
BASE_VENV=${BASE_VENV:-.venv}
PINS=(
    "langchain-core>=0.3,<0.4"
    "langchain>=0.3,<0.4"  # the cli extra brings langchain 1.x into the base environment; 0.3 needs its own
    "langchain-openai>=0.2,<0.4"
    "langchain-anthropic>=0.3,<0.4"
    "langchain-qdrant>=0.2,<0.3"
    "langgraph>=0.3,<0.7"
)
BASE_PACKAGES=(
    "pydantic>=2.6" "tiktoken>=0.7" "qdrant-client>=1.12" "pypdf>=4" "pytest>=8" "pytest-asyncio>=0.23"
    "pytest-xdist>=3" "llama-index-core>=0.12"  # llama-index-core ships tiktoken's BPE files (offline)
)
STAMP="$VENV/.pins-$(printf '%s\n' "${PINS[@]}" "$BASE_VENV" | sha1sum | cut -c1-12)"
if [ ! -f "$STAMP" ]; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    site=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    if [ -x "$BASE_VENV/bin/python" ]; then
        "$BASE_VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" > "$site/base-venv.pth"
        "$VENV/bin/python" -m pip install -q "${PINS[@]}"
    else
        "$VENV/bin/python" -m pip install -q --no-deps -e .
        "$VENV/bin/python" -m pip install -q "${BASE_PACKAGES[@]}" "${PINS[@]}"
    fi
    touch "$STAMP"
fi
version=$("$VENV/bin/python" -c "import langchain_core; print(langchain_core.__version__)")
case "$version" in
    0.3.*) ;;
    *) echo "test-langchain-versions.sh: expected langchain-core 0.3.x in $VENV, got $version" >&2; exit 1 ;;
esac
echo "tests/langchain on langchain-core $version"
PYTHONPATH="$PWD" "$VENV/bin/python" -m pytest -q -p no:cacheprovider -n 2 tests/langchain "$@"
