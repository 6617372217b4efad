"""Agents: a query engine as a tool whose sources keep one numbering across calls and a cited final answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.base.response.schema import RESPONSE_TYPE, Response
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.tools import FunctionTool

import cite_core
from cite_core import CitationPrompt, CitationStream, CitedAnswer, DisplayDelta, Source, StreamEvent

from ._calls import Run
from ._convert import NumberedNodes
from ._node_items import checked_items
from ._synthesizer import CiteSynthesizer

__all__ = ["CitationSession", "SessionSynthesizer", "cited_query_engine_tool"]


class CitationSession(cite_core.CitationSession):
    """``cite_core.CitationSession`` for LlamaIndex nodes: ``parse(text)`` gives a cited ``Response``.

    Share one session between the tools of one agent run (``cited_query_engine_tool(..., session=s)``):
    a node keeps its number across calls, a new chunk of a known document joins that document's
    number, and ``parse(final_answer)`` cites against every source of the run.
    """

    def __init__(self, *, merge: bool = True) -> None:
        super().__init__(merge=merge)
        self._nodes: dict[str, NodeWithScore] = {}

    def add_nodes(self, nodes: Iterable[NodeWithScore]) -> list[Source]:
        """Number the nodes (repeats keep their number); returns their sources, in order of appearance."""
        kept = checked_items(list(nodes))[0]  # valid nodes only, repaired where needed
        for node, _ in kept:
            self._nodes.setdefault(node.node.node_id, node)
        return self.add([item for _, item in kept])

    @classmethod
    def from_messages(  # type: ignore[override]
        cls, messages: Iterable[Any], *, merge: bool = True, tool_names: Iterable[str] = ()
    ) -> CitationSession:
        """The session of a saved conversation (``ChatMessage``\\ s of an agent's memory or a chat store):
        the results of the tools named in ``tool_names`` (your ``cited_query_engine_tool``\\ s) give
        their sources back at the numbers the agent saw, and cited answers
        (``additional_kwargs["references"]``) the numbers the reader saw. Other tools' text is never
        read as sources (a fetched page can write ``<source number="2" ...>``)."""
        found = []
        names: dict[str, str] = {}  # tool call id -> tool name, from the assistant's tool calls
        for message in messages:
            if not isinstance(message, ChatMessage):
                raise cite_core.ArgumentError(f"expected ChatMessage objects, got {type(message).__name__}")
            for block in message.blocks:
                call_id, tool = getattr(block, "tool_call_id", None), getattr(block, "tool_name", None)
                if isinstance(call_id, str) and isinstance(tool, str):
                    names[call_id] = tool
            role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
            found.append(
                {
                    "role": role,
                    "content": message.content or "",
                    "name": names.get(message.additional_kwargs.get("tool_call_id") or ""),
                    "references": message.additional_kwargs.get("references"),
                }
            )
        session = super().from_messages(found, merge=merge, tool_names=tool_names)
        assert isinstance(session, CitationSession)
        return session

    def cited_answer(self, text: str, **options: Any) -> CitedAnswer:
        """The ``CitedAnswer`` of a final answer over every source of the session."""
        return super().parse(text, **options)

    def parse(self, text: str, **options: Any) -> Response:  # type: ignore[override]
        """A cited ``Response`` of a final answer: renumbered text, only the cited nodes (of a document
        retrieved as several chunks, the chunks its citations point into), references covering every
        call (options as for ``cite_core.parse_answer``)."""
        answer = self.cited_answer(text, **options)
        sources = self.sources
        owners = {
            source.number: [self._node(item) for item in self.items_for(source.number)] for source in sources
        }
        # a source's segment_item_indices index its items (items_for): a citation names its chunks
        segments = {
            s.number: [[owners[s.number][i] for i in indices] for indices in s.segment_item_indices]
            for s in sources
        }
        return NumberedNodes(sources=sources, nodes=owners, segment_nodes=segments).response(answer, raw=text)

    async def stream_events(self, handler: Any, **options: Any) -> AsyncIterator[Any]:
        """The events of an agent run (``handler.stream_events()``) with each ``AgentStream`` delta as the
        final answer shows it: markers renumbered and normalised (``[1, 2]`` as ``[1][2]``, ``【1】`` as
        ``[1]``), invalid ones (``[9]``) never shown, a marker held back until it is complete. The deltas
        of the last LLM turn add up to ``str(session.parse(str(await handler)))``; other events pass
        through unchanged (options as for ``cite_core.CitationStream``)."""
        turn: _Turn | None = None
        async for event in handler.stream_events():
            if type(event).__name__ == "AgentStream":
                turn = turn or _Turn(self.stream(display=True, **options))  # over the sources so far
                yield turn.shown(event, turn.stream.feed(event.delta or ""))
                continue
            for tail in turn.end() if turn is not None else []:  # the LLM turn ended (AgentOutput)
                yield tail  # what the turn held back to its end, before the event that ended it
            turn = None
            self._check_tool_result(event)
            yield event
        for tail in turn.end() if turn is not None else []:
            yield tail

    def _check_tool_result(self, event: Any) -> None:
        """Raise at a ``ToolCallResult`` of a ``cited_query_engine_tool`` numbering into another session:
        tools given different sessions (or left to their own) each number from 1, so the agent's [1]
        would name two nodes, and this session would parse the other's numbers as its own."""
        raw = getattr(getattr(event, "tool_output", None), "raw_output", None)
        owner = getattr(raw, "session", None) if isinstance(raw, _ToolText) else None
        if owner is not None and owner is not self:
            raise cite_core.ArgumentError(
                f"tool {getattr(event, 'tool_name', '?')!r} numbers its sources into another CitationSession "
                "than the one streaming the agent's events, so its [1] is not this session's: give every "
                "cited_query_engine_tool of the agent one session (cited_query_engine_tool(engine, ..., "
                "session=session)) and stream with that session"
            )

    def _node(self, item: Any) -> NodeWithScore:
        """The node an item came from; for a source restored from a saved tool result, a node of the
        text the agent was shown."""
        node_id = (item.get("metadata") or {}).get("node_id")
        if node_id in self._nodes:
            return self._nodes[node_id]
        fields = {k: item[k] for k in ("title", "url", "author") if item.get(k)}
        return NodeWithScore(node=TextNode(text=item["text"], metadata=fields))


class SessionSynthesizer(CiteSynthesizer):
    """``CiteSynthesizer`` of a ``CiteQueryEngine`` with a ``session``: every retrieved node joins the
    session, and the answer shows each source under its session number (an agent's tools, one numbering)."""

    def __init__(self, session: CitationSession, **options: Any) -> None:
        if not isinstance(session, CitationSession):
            raise cite_core.ArgumentError(
                f"session must be a llamaindex_cite.CitationSession, got {type(session).__name__}"
            )
        super().__init__(**options)
        self.session = session
        self._numbers: dict[int, int] = {}

    @contextmanager
    def _events(self, query: Any, nodes: Sequence[NodeWithScore]) -> Iterator[Run]:
        if self._output_cls is not None or self.uses_claude():
            raise cite_core.ArgumentError(
                "session= keeps one numbering through [n] markers: it does not combine with output_cls= or "
                "Claude's native citations (native=False uses markers)"
            )
        with super()._events(query, nodes) as run:
            for number, group in run.numbered.nodes.items():  # this call's number -> the session's
                self._numbers[number] = self.session.add_nodes(group)[0].number
            yield run

    def numbering(self, sources: Sequence[Source]) -> dict[str, Any]:
        """``parse_answer``'s ``display_numbers``: each source shown under its session number."""
        numbers = {s.number: self._numbers[s.number] for s in sources if s.number in self._numbers}
        return {"display_numbers": numbers, "first_new": self.session.next_number}

    def respond(self, numbered: NumberedNodes, prompt: CitationPrompt, raw: str, **kw: Any) -> RESPONSE_TYPE:
        return super().respond(numbered, prompt, raw, **self.numbering(prompt.sources), **kw)


class _Turn:
    """One LLM turn of an agent run, its ``AgentStream`` deltas as the cited answer shows them."""

    def __init__(self, stream: CitationStream) -> None:
        self.stream = stream
        self.text = ""
        self.last: Any = None

    def shown(self, event: Any, events: list[StreamEvent]) -> Any:
        """``event`` (an ``AgentStream``) with the text ``events`` show as its delta."""
        delta = "".join(e.text for e in events if isinstance(e, DisplayDelta))
        self.text += delta
        self.last = event
        return event.model_copy(update={"delta": delta, "response": self.text})

    def end(self) -> list[Any]:
        """An ``AgentStream`` with what the turn held back to its end (a marker cut by it), if any."""
        self.stream.finish()
        delta = "".join(e.text for e in self.stream.pending_events() if isinstance(e, DisplayDelta))
        if not delta:
            return []
        self.text += delta
        update: dict[str, Any] = {
            "delta": delta,
            "response": self.text,
            "raw": None,
            "tool_calls": [],
            "thinking_delta": None,
        }
        return [self.last.model_copy(update=update)]


class _ToolText(str):
    """A cited tool's output (the numbered sources), knowing the session that numbered them: the agent
    reads the text, ``stream_events`` checks the session (``ToolOutput.raw_output`` keeps this object)."""

    session: Any

    def __new__(cls, text: str, session: Any = None) -> _ToolText:
        made = super().__new__(cls, text)
        made.session = session
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))  # saved (pickled, copied) as the text: a session holds a lock


def cited_query_engine_tool(
    engine: Any, name: str, description: str, session: CitationSession | None = None
) -> FunctionTool:
    """A tool over ``engine``'s retrieval whose output is the numbered sources an agent cites with ``[n]``.

    The numbers come from ``session`` (a new ``CitationSession`` when None; reachable as
    ``tool.session``), so they stay stable across calls; ``tool.session.parse(final_answer)`` then
    gives the cited ``Response``. ``engine`` is any query engine with ``retrieve`` (``RetrieverQueryEngine``,
    ``CiteQueryEngine``), or a retriever; other engines are queried and their ``source_nodes`` used.
    Retrieval is synchronous (agents run it in a worker), so a Qdrant store needs its sync ``client=``.
    """
    session = session if session is not None else CitationSession()

    def show(nodes: list[NodeWithScore]) -> str:
        return _ToolText(session.format(session.add_nodes(nodes)), session)

    def search(input: str) -> str:
        """Search the sources; cite what you use with their [n] numbers."""
        bundle = QueryBundle(query_str=input)
        if hasattr(engine, "retrieve"):
            return show(engine.retrieve(bundle))
        return show(engine.query(bundle).source_nodes)

    tool = FunctionTool.from_defaults(fn=search, name=name, description=description)
    tool.session = session  # type: ignore[attr-defined]
    return tool
