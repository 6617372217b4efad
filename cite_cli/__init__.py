"""The ``cite`` command: ingest documents into Qdrant, then ask questions answered with citations.

``cite ingest PATH...`` reads .txt, .md and .pdf files into an embedded Qdrant collection on disk
(``./.cite/qdrant`` by default) or a Qdrant server (``--qdrant-url``); ``cite ask "question"`` retrieves,
streams a cited answer into the terminal and prints the reference list. Retrieval is offline by default
(sparse vectors with Qdrant's IDF modifier); the answer comes from any LangChain chat model, an
OpenAI-compatible server, or, with none configured, an offline extractive answerer.
"""

from ._errors import CliError

__all__ = ["CliError"]
