"""langchain_cite: Anthropic-style inline citations for any chat model in LangChain (LCEL), streaming included.

``create_cited_rag_chain(retriever, llm)`` is the one-call chain. Inside an existing chain use the two
halves: ``CitationSources`` (retrieved ``Document``s to numbered sources and prompt variables) and
``CitationOutputParser`` (model output to citation events and the final answer). All the logic is in
``cite_core``; this package converts LangChain objects to core sources and core results back.
"""

from cite_core import CitationsDelta, CitedAnswer, Source, TextDelta

from ._chain import create_cited_rag_chain, is_chat_anthropic
from ._documents import document_to_item, documents_to_sources
from ._messages import to_ai_message
from ._parser import CitationOutputParser, CitedRagAnswer, StreamItem
from ._sources import CitationSources

__all__ = [
    "CitationOutputParser",
    "CitationSources",
    "CitationsDelta",
    "CitedAnswer",
    "CitedRagAnswer",
    "Source",
    "StreamItem",
    "TextDelta",
    "create_cited_rag_chain",
    "document_to_item",
    "documents_to_sources",
    "is_chat_anthropic",
    "to_ai_message",
]
