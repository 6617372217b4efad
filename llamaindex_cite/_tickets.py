"""Which LLM calls answered which query: what ``CitePostprocessor.cite()`` needs after a stream was read.

``CitePostprocessor`` gives each query a ticket (in a context variable, and in its nodes' hidden
metadata). An LLM call that starts in the query's context (while the engine synthesizes) is the
ticket's. A streamed call LlamaIndex starts lazily, when the reader first pulls a token (in any
context, after the query returned), is the ticket's whose question and nodes its prompt shows, when
exactly one open ticket's do and that ticket has no such call yet; when several do (the same question
over the same nodes), none of them is told a text that may be another's: ``cite()`` raises. The end
event of a call (fired when its stream is read to the end) gives its whole text. The query's end
event gives the caller's ``QueryBundle`` its own text back.
"""

from __future__ import annotations

import threading
import uuid
import weakref
from collections import OrderedDict
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events.llm import (
    LLMChatEndEvent,
    LLMChatInProgressEvent,
    LLMChatStartEvent,
    LLMCompletionEndEvent,
    LLMCompletionInProgressEvent,
    LLMCompletionStartEvent,
)
from llama_index.core.instrumentation.events.query import QueryEndEvent
from llama_index.core.schema import QueryBundle

from ._reasoning import noted_cut_off

__all__ = ["QUERY_KEY", "Call", "answer_calls", "close_ticket", "is_ambiguous", "open_ticket", "stream_cited"]

QUERY_KEY = "cite_query"
"""Node metadata (hidden from the LLM and embeddings): the ticket of the query that numbered the node."""

_MAX_CALLS = 1024
"""LLM calls remembered (oldest forgotten first): enough for many concurrent queries of a few calls."""

_CURRENT: ContextVar[str | None] = ContextVar("llamaindex_cite_query", default=None)
_LOCK = threading.Lock()


@dataclass
class Call:
    """One LLM call made while a ticket was open: its prompt, and its text once it ended."""

    ticket: str
    prompt: str
    text: str | None = None
    """The whole answer, once the call ended (a stream read to its end)."""
    read: bool = False
    """Whether some of a streamed answer was read (its first chunk was delivered)."""
    truncated: bool = False
    """Whether the call ended at the model's token limit (``finish_reason="length"``, ...)."""


@dataclass
class _Ticket:
    question: str = ""
    """The query text the prompt shows (with the instructions when they were added)."""
    openings: list[str] = field(default_factory=list)
    """The first characters of each node's text."""
    bundle: QueryBundle | None = None
    original: str | None = None
    edited: str | None = None
    calls: list[str] = field(default_factory=list)
    streaming: bool = False
    """Whether its query returned a stream that is still referenced: LLM calls started lazily (when
    the stream is read) can be its until the stream is dropped."""
    ambiguous: bool = False
    """Whether a lazily started call matched it and another ticket alike: its text is not known."""


_CALLS: OrderedDict[str, Call] = OrderedDict()
_TICKETS: OrderedDict[str, _Ticket] = OrderedDict()


class _TicketRecorder(BaseEventHandler):
    """Ties LLM calls to the open ticket, records their text, closes the ticket when the query ends."""

    @classmethod
    def class_name(cls) -> str:
        return "CiteTicketRecorder"

    def handle(self, event: Any, **kwargs: Any) -> None:
        if isinstance(event, (LLMCompletionStartEvent, LLMChatStartEvent)) and event.span_id:
            ticket, prompt = _CURRENT.get(), _prompt(event)
            if ticket is None:
                ticket = _matching_ticket(prompt)
            if ticket is not None:
                _started(ticket, event.span_id, prompt)
        elif isinstance(event, (LLMCompletionInProgressEvent, LLMChatInProgressEvent)):
            call = _CALLS.get(event.span_id or "")
            if call is not None:
                call.read = True
        elif isinstance(event, (LLMCompletionEndEvent, LLMChatEndEvent)):
            _ended(event.span_id, _text(event), noted_cut_off(event.response))
        elif isinstance(event, QueryEndEvent):
            ticket = _CURRENT.get()
            if ticket is not None and isinstance(event.response, (StreamingResponse, AsyncStreamingResponse)):
                _stream_returned(ticket, event.response)
            close_ticket()


def _prompt(event: Any) -> str:
    if isinstance(event, LLMCompletionStartEvent):
        return event.prompt
    return "\n".join(str(m.content or "") for m in event.messages)


def _text(event: Any) -> str | None:
    if isinstance(event, LLMCompletionEndEvent):
        return event.response.text
    return event.response.message.content or "" if event.response is not None else None


def _stream_returned(ticket: str, response: Any) -> None:
    """The ticket's query returned ``response``, a stream: lazily started calls can be its until the
    stream is dropped."""
    with _LOCK:
        state = _TICKETS.get(ticket)
        if state is not None:
            state.streaming = True
    weakref.finalize(response, _stream_dropped, ticket)


def stream_cited(ticket: str) -> None:
    """``cite()`` took the ticket's stream: later calls are not its (as when the stream is dropped)."""
    _stream_dropped(ticket)


def _stream_dropped(ticket: str) -> None:
    with _LOCK:
        state = _TICKETS.get(ticket)
        if state is not None:
            state.streaming = False


def _matching_ticket(prompt: str) -> str | None:
    """The one ticket of a live stream whose question and nodes ``prompt`` shows."""
    with _LOCK:
        found = [
            (ticket, state)
            for ticket, state in _TICKETS.items()
            if state.streaming
            and state.question
            and state.question in prompt
            and any(o in prompt for o in state.openings)
        ]
        if len(found) != 1:
            for _, state in found:
                state.ambiguous = True
            return None
        return found[0][0]


def _started(ticket: str, span_id: str, prompt: str) -> None:
    with _LOCK:
        _CALLS[span_id] = Call(ticket, prompt)
        while len(_CALLS) > _MAX_CALLS:
            _CALLS.popitem(last=False)
        if ticket in _TICKETS:
            _TICKETS[ticket].calls.append(span_id)


def _ended(span_id: str | None, text: str | None, truncated: bool) -> None:
    with _LOCK:
        call = _CALLS.get(span_id or "")
        if call is not None and text is not None:
            call.text = text
            call.truncated = truncated


def open_ticket(bundle: QueryBundle | None, edited: str | None, openings: list[str]) -> str:
    """A new ticket for the query in this context (closing the one before) over nodes beginning with
    ``openings``; with ``edited``, the bundle's ``query_str`` becomes it until the query ends."""
    _attach()
    close_ticket()
    ticket = uuid.uuid4().hex
    question = edited or (bundle.query_str if bundle is not None else "")
    state = _Ticket(question=question, openings=openings)
    if bundle is not None and edited is not None:
        state.bundle, state.original, state.edited = bundle, bundle.query_str, edited
        bundle.query_str = edited
    with _LOCK:
        _TICKETS[ticket] = state
        while len(_TICKETS) > _MAX_CALLS:
            _TICKETS.popitem(last=False)
    _CURRENT.set(ticket)
    return ticket


def close_ticket() -> None:
    """Close this context's ticket: later LLM calls are not its; its bundle gets its own text back."""
    ticket = _CURRENT.get()
    if ticket is None:
        return
    _CURRENT.set(None)
    with _LOCK:
        state = _TICKETS.get(ticket)
        if state is None or state.bundle is None:
            return
        if state.bundle.query_str == state.edited:  # nobody changed it since
            state.bundle.query_str = state.original or ""
        state.bundle = None


def is_ambiguous(ticket: str) -> bool:
    """Whether a lazily started call matched this ticket and another alike (its text is not known)."""
    with _LOCK:
        state = _TICKETS.get(ticket)
        return state is not None and state.ambiguous


def answer_calls(ticket: str) -> list[Call]:
    """The LLM calls made for ``ticket``, in the order they started."""
    with _LOCK:
        state = _TICKETS.get(ticket)
        spans = list(state.calls) if state is not None else []
        return [_CALLS[s] for s in spans if s in _CALLS]


def is_known(ticket: str) -> bool:
    """Whether ``ticket``'s LLM calls are still recorded (the oldest tickets are forgotten)."""
    with _LOCK:
        return ticket in _TICKETS


def attach_recorder() -> None:
    """Record LLM calls from now on (the end events ``last_cut_off`` reads), without opening a ticket."""
    _attach()


def _attach() -> None:
    """Attach the recorder to the root dispatcher (once)."""
    root = get_dispatcher()
    with _LOCK:
        if not any(isinstance(h, _TicketRecorder) for h in root.event_handlers):
            root.add_event_handler(_TicketRecorder())
