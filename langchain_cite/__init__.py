"""langchain_cite: Anthropic-style inline citations for any chat model in LangChain, streaming included.

``create_cited_rag_chain(retriever, llm)`` is the one-call chain; ``add_citations(prompt, llm)`` adds
citations to a chain you already have. Inside your own chain use the two halves: ``CitationSources``
(retrieved ``Document``s to numbered sources and prompt variables) and ``CitationOutputParser`` (model
output to citation events, a message or text). Agents use ``create_cited_retriever_tool`` with a
``CitationSession``. All the logic is in ``cite_core``; this package converts LangChain objects to core
sources and core results back. Works on langchain-core 0.3 and 1.x (annotations need 1.x).
"""

from cite_core import (
    CitationsDelta,
    CitedAnswer,
    CitedStructure,
    Source,
    TextDelta,
    tool_citation_instructions,
)

from ._answer import CitedRagAnswer, DocumentReference
from ._chain import add_citations, create_cited_rag_chain, is_chat_anthropic
from ._documents import document_to_item, documents_to_sources
from ._from_message import from_message
from ._messages import to_ai_message
from ._parser import CitationOutputParser, StreamItem
from ._run import AnswerResetText
from ._sources import CitationSources
from ._structured import StructuredCitationParser
from ._tools import CitationSession, create_cited_retriever_tool

__all__ = [
    "AnswerResetText",
    "CitationOutputParser",
    "CitationSession",
    "CitationSources",
    "CitationsDelta",
    "CitedAnswer",
    "CitedRagAnswer",
    "CitedStructure",
    "DocumentReference",
    "Source",
    "StreamItem",
    "StructuredCitationParser",
    "TextDelta",
    "add_citations",
    "create_cited_rag_chain",
    "create_cited_retriever_tool",
    "document_to_item",
    "documents_to_sources",
    "from_message",
    "is_chat_anthropic",
    "to_ai_message",
    "tool_citation_instructions",
]
