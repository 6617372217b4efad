"""Where a component runs: LlamaIndex hands a postprocessor or a query engine no word of who called it,
so the paths that cannot cite (a chat engine around ``CitePostprocessor``, a ``QueryEngineTool`` around
``CiteQueryEngine``) are found on the call stack, and raise an error naming the component that works."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from llama_index.core.chat_engine.types import BaseChatEngine
from llama_index.core.tools import QueryEngineTool

from cite_core import ArgumentError

__all__ = ["check_engine_caller", "check_postprocessor_caller"]


def _caller(kind: type | tuple[type, ...]) -> Any | None:
    """The nearest object of ``kind`` whose method is running below this call (awaiting coroutines
    included: their frames chain as calls do)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if isinstance(owner, kind):
            return owner
        frame = frame.f_back
    return None


_CHAT = (
    "use llamaindex_cite.CiteChatEngine.from_defaults(index.as_retriever(), llm=llm) for a chat with "
    "citations: one numbering for the whole conversation, the instruction to cite, and a memory that keeps "
    "the answers as the reader saw them"
)


def check_postprocessor_caller() -> None:
    """Raise when ``CitePostprocessor`` runs inside a chat engine (``index.as_chat_engine(chat_mode=
    "context" | "condense_plus_context", node_postprocessors=[...])``): the engine writes its own prompt
    from a query the postprocessor cannot reach (no instruction to cite), numbers each turn's nodes from 1
    again, and stores the model's raw text in its memory; none of that can be fixed from a postprocessor.
    Likewise inside an agent's ``QueryEngineTool``: each call numbers from 1, and nobody cites the text."""
    from ._chat_engine import CiteChatEngine  # a chat engine module imports the postprocessor's modules

    engine = _caller((BaseChatEngine, QueryEngineTool))
    if isinstance(engine, QueryEngineTool):
        raise ArgumentError(
            f"CitePostprocessor inside QueryEngineTool {engine.metadata.get_name()!r} numbers each call's "
            "nodes from [1] and the agent reads the model's raw numbering: use "
            "llamaindex_cite.cited_query_engine_tool(engine, name=..., description=..., "
            "session=CitationSession()) (one numbering across calls and tools)"
        )
    if isinstance(engine, CiteChatEngine):
        raise ArgumentError(
            "CiteChatEngine numbers its sources itself: remove CitePostprocessor from its node_postprocessors"
        )
    if engine is not None:
        raise ArgumentError(
            f"CitePostprocessor cannot cite inside {type(engine).__name__}: a chat engine writes its own "
            "prompt (the instruction to cite never reaches the model), numbers each turn's nodes from [1] "
            f"again and keeps the model's raw numbering in its memory; {_CHAT}"
        )


def check_engine_caller(session: Any) -> None:
    """Raise when ``CiteQueryEngine`` without a ``session`` answers for a ``QueryEngineTool`` (an agent's
    tool): each query numbers its sources from [1], so two calls or two tools would give [1] to different
    documents in the agent's answer."""
    tool = _caller(QueryEngineTool) if session is None else None
    if tool is not None:
        raise ArgumentError(
            f"CiteQueryEngine behind QueryEngineTool {tool.metadata.get_name()!r} numbers each call's "
            "sources from [1], so two calls or two tools would both cite [1] for different documents in "
            "the agent's answer: use llamaindex_cite.cited_query_engine_tool(engine, name=..., "
            "description=..., session=CitationSession()) (one numbering across calls and tools; "
            "session.parse(final_answer) cites the agent's answer), or give the engines one "
            "CiteQueryEngine(..., session=CitationSession())"
        )
