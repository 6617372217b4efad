#!/usr/bin/env bash
# Run tests/llamaindex against the lowest llama-index-core the project supports (the highest is what
# `pip install -e '.[test]'` gives, tested by the main run). Builds .venv-li-low once, then reuses it.
#   bash scripts/test-llamaindex-versions.sh            # venv at ./.venv-li-low
#   LI_LOW_VENV=/some/dir bash scripts/test-llamaindex-versions.sh
# The floor is pinned here and in pyproject.toml's `llamaindex` extra: keep them equal.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
LOW_CORE="0.13.0"  # the first llama-index-vector-stores-qdrant 0.10.3 takes (0.12.x resolves 0.6.1, whose
                   # import fails on qdrant-client >= 1.19: it names IDF_EMBEDDING_MODELS, removed there)
LOW_QDRANT="0.10.3"  # the first that imports on qdrant-client >= 1.19 (the qdrant extra's floor)
LOW_CLIENT="1.16.0"  # the lowest llama-index-vector-stores-qdrant 0.10.3 takes
VENV="${LI_LOW_VENV:-.venv-li-low}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import llama_index.core as c; assert c.__version__ == '$LOW_CORE'" 2>/dev/null; then
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q \
        "llama-index-core==$LOW_CORE" "llama-index-vector-stores-qdrant==$LOW_QDRANT" \
        "qdrant-client==$LOW_CLIENT" "pydantic>=2.6" "tiktoken>=0.7" \
        "pypdf>=4" "pytest>=8" "pytest-asyncio>=0.23" "hypothesis>=6.100"
fi
"$VENV/bin/python" -c "import llama_index.core as c; print('llama-index-core', c.__version__)"
# llama-index-core 0.13 looks for its NLTK data (stopwords, punkt_tab) under $NLTK_DATA/_static/nltk_cache,
# else downloads it into the user's cache: point it at the copy the package ships, so the run is offline
export NLTK_DATA="${NLTK_DATA:-$("$VENV/bin/python" -c 'import llama_index.core as c, os; print(os.path.dirname(c.__file__))')}"
# the LlamaIndex tests, and the snippets of docs/llamaindex.md (the docs promise they run on the floor)
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/llamaindex \
    "tests/docs/test_snippets.py::test_python_snippets_run[docs/llamaindex.md]" "$@"
