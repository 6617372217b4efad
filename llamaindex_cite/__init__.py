"""llamaindex_cite: Anthropic-style citations for any LLM in LlamaIndex.

``CiteQueryEngine`` answers over whole numbered sources (one numbering however many LLM calls they
need; Claude's own citations with llama-index-llms-anthropic) and returns only the cited nodes;
``CitePostprocessor`` numbers nodes for the synthesizer of any existing query engine. The work is
done by ``cite_core``; this package converts nodes to sources and cited answers back to responses.
"""

try:
    import llama_index.core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from cite_core import MissingDependencyError

    raise MissingDependencyError(
        "llamaindex_cite needs llama-index-core: install the extra cite-anything[llamaindex] "
        "(in a clone of the repository: pip install -e '.[llamaindex]')"
    ) from exc

from ._blocks import from_chat_response, to_chat_message
from ._chat_engine import CiteChatEngine
from ._convert import CITE_AS_KEY, REFERENCE_NUMBER_KEY, SENTENCES_KEY, SOURCE_NUMBER_KEY
from ._postprocessor import CitePostprocessor
from ._query_engine import CiteQueryEngine
from ._streaming import AsyncCitedStreamingResponse, CitedStreamingResponse
from ._synthesizer import CiteSynthesizer
from ._tools import CitationSession, cited_query_engine_tool

__all__ = [
    "CITE_AS_KEY",
    "REFERENCE_NUMBER_KEY",
    "SENTENCES_KEY",
    "SOURCE_NUMBER_KEY",
    "AsyncCitedStreamingResponse",
    "CitationSession",
    "CiteChatEngine",
    "CitePostprocessor",
    "CiteQueryEngine",
    "CiteSynthesizer",
    "CitedStreamingResponse",
    "cited_query_engine_tool",
    "from_chat_response",
    "to_chat_message",
]
