"""Where a component runs: LlamaIndex hands a postprocessor or a query engine no word of who called it,
so the paths that cannot cite (a chat engine around ``CitePostprocessor``, a ``QueryEngineTool`` around
``CiteQueryEngine`` or ``CiteSynthesizer``, a router combining several engines' answers) are found on the
call stack, and raise an error naming the component that works."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from llama_index.core.chat_engine.types import BaseChatEngine
from llama_index.core.query_engine import (
    RouterQueryEngine,
    SubQuestionQueryEngine,
    ToolRetrieverRouterQueryEngine,
)
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


def _combining_router() -> Any | None:
    """The engine (``RouterQueryEngine`` with a multi selector that chose several engines,
    ``ToolRetrieverRouterQueryEngine`` with several tools, ``SubQuestionQueryEngine``) whose combined
    answer this query is a part of. Sync, its frame is on the stack with its selection; async, a router
    runs the parts with ``asyncio.gather`` (a task each: no frame of it below), which LlamaIndex's
    instrumentation still names: the part's span has the router's span as its parent (``parent_id`` of
    the span wrapper). (A ``SubQuestionQueryEngine``'s own coroutine awaits each part: on the stack.)"""
    frame: FrameType | None = sys._getframe(2)
    gathered = False
    while frame is not None:
        owner, found = frame.f_locals.get("self"), frame.f_locals
        if isinstance(owner, RouterQueryEngine):
            result = found.get("result")
            return owner if len(getattr(result, "inds", ())) > 1 else None
        if isinstance(owner, ToolRetrieverRouterQueryEngine):
            return owner if len(found.get("query_engine_tools") or ()) > 1 else None
        if isinstance(owner, SubQuestionQueryEngine):  # a sub-answer, not its final synthesizer's answer
            return owner if frame.f_code.co_name in ("_query_subq", "_aquery_subq") else None
        parent = found.get("parent_id") if frame.f_code.co_name == "async_wrapper" else None
        if isinstance(parent, str) and parent.startswith(_ROUTER_SPANS):
            gathered = True  # the router's frame follows unless a task of its gather runs this
        frame = frame.f_back
    return RouterQueryEngine if gathered else None


_ROUTER_SPANS = tuple(f"{kind.__name__}." for kind in (RouterQueryEngine, ToolRetrieverRouterQueryEngine))

_ONE_TOOL = (
    "use llamaindex_cite.cited_query_engine_tool(engine, name=..., description=..., "
    "session=CitationSession()) (one numbering across calls and tools; session.parse(final_answer) cites "
    "the agent's answer)"
)


def check_engine_caller(component: str, session: Any) -> None:
    """The one check of where a query-side component answers (``CiteQueryEngine``, ``CiteSynthesizer`` in
    any engine): raise when its answer becomes part of another answer it cannot number.

    - behind a ``QueryEngineTool`` (an agent's tool) without a ``session``: each query numbers its
      sources from [1], so two calls or two tools would give [1] to different documents in the agent's
      answer (with a session every answer shows the session's numbers);
    - one of several engines a router combines (a multi selector), or a sub-question's engine of a
      ``SubQuestionQueryEngine``: each part numbers from [1] and their texts are merged, so the
      combined answer's [1] names different documents, and nothing cites it."""
    tool = _caller(QueryEngineTool) if session is None else None
    if tool is not None:
        raise ArgumentError(
            f"{component} behind QueryEngineTool {tool.metadata.get_name()!r} numbers each call's "
            "sources from [1], so two calls or two tools would both cite [1] for different documents in "
            f"the agent's answer: {_ONE_TOOL}, or give the engines one "
            "CiteQueryEngine(..., session=CitationSession())"
        )
    router = _combining_router()
    if router is not None:
        name = router.__name__ if isinstance(router, type) else type(router).__name__
        remedy = _REMEDIES.get(name, _REMEDIES["RouterQueryEngine"])
        raise ArgumentError(
            f"{component} answers one part of what {name} combines into one answer: each part numbers its "
            f"sources from [1] and the parts' texts are merged, so [1] would name different documents in "
            f"the combined answer, which nothing cites: {remedy}"
        )


_REMEDIES = {
    "RouterQueryEngine": "route with a single selector (LLMSingleSelector, PydanticSingleSelector), or "
    "cite once over the chosen retrievers: CiteQueryEngine.from_args(RouterRetriever(selector=..., "
    "retriever_tools=[...]))",
    "SubQuestionQueryEngine": "answer the sub-questions with engines that do not cite and give the "
    "SubQuestionQueryEngine response_synthesizer=CiteSynthesizer(llm=...), which cites the sub-answers "
    "in one numbering, or use an agent with cited_query_engine_tool (one session)",
}
