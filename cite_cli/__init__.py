"""The ``cite`` command: ingest documents into Qdrant, then ask questions answered with citations.

``cite ingest PATH...`` reads .txt, .md and .pdf files into an embedded Qdrant collection on disk
(``./.cite/qdrant`` by default) or a Qdrant server (``--qdrant-url``); ``cite ask "question"`` retrieves,
streams a cited answer into the terminal and prints the reference list. Retrieval is offline by default
(sparse vectors with Qdrant's IDF modifier); the answer comes from any LangChain chat model, an
OpenAI-compatible server, or, with none configured, an offline extractive answerer.
"""

from __future__ import annotations

# not ``from typing import TYPE_CHECKING``: importing typing (and re) takes milliseconds, during which a
# Ctrl-C of `python -m cite_cli` would meet no handler of cite's yet (see __main__'s guarded imports)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._errors import CliError

__all__ = ["CliError"]


def __getattr__(name: str) -> Any:
    # imported on first use: `cite` starts with the standard library only, so that an interrupt while
    # cite_core loads is caught by `cite_cli.__main__.main` (one clean line, not a traceback)
    if name == "CliError":
        from ._errors import CliError

        return CliError
    raise AttributeError(f"module 'cite_cli' has no attribute {name!r}")
