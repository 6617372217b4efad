"""The answer of a query ``CitePostprocessor`` numbered the nodes of: its last LLM call's whole text."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import MetadataMode, NodeWithScore

from cite_core import CiteError

from ._tickets import QUERY_KEY, Call, answer_calls, is_ambiguous, is_known, stream_cited

__all__ = ["answer_of", "asked_a_model", "cut_off_of", "openings", "release", "was_read"]


def _calls_of(nodes: list[NodeWithScore]) -> list[Call]:
    """This query's LLM calls (by the ticket in its nodes) whose prompt showed one of its nodes."""
    ticket = _ticket(nodes)
    if ticket is None:
        raise CiteError(
            "cite(): the response's source_nodes were not numbered by a CitePostprocessor (put it last in "
            "node_postprocessors)"
        )
    if is_ambiguous(ticket):
        raise CiteError(
            "cite(): another query with the same question over the same nodes streamed at the same "
            "time, so which streamed answer is this one's is not known: call cite(response) before "
            "reading the stream and read the cited response's response_gen instead"
        )
    return [c for c in answer_calls(ticket) if any(o in c.prompt for o in openings(nodes))]


def openings(nodes: list[NodeWithScore]) -> list[str]:
    """The first characters of each node's text: how a prompt that showed the nodes is recognised."""
    texts = [n.node.get_content(metadata_mode=MetadataMode.NONE).strip() for n in nodes]
    return [text[:80] for text in texts if text]


def was_read(nodes: list[NodeWithScore], tokens: Any) -> bool:
    """Whether a stream of this query was read, in part or whole, before ``cite()``: its last LLM call
    delivered a chunk or ended; or, when the LLM reports nothing, its generator is finished."""
    calls = _calls_of(nodes)
    if calls:
        return calls[-1].read or calls[-1].text is not None
    return getattr(tokens, "ag_frame", True) is None


def answer_of(nodes: list[NodeWithScore]) -> str:
    """The whole answer of the query whose numbered ``nodes`` these are: the text its last LLM call
    ended with. Raises ``CiteError`` when the LLM reported no such end (the text read is lost)."""
    calls = _calls_of(nodes)
    stream_cited(_ticket(nodes) or "")
    if calls and calls[-1].text is not None:
        return calls[-1].text
    raise CiteError(
        "cite(): this query's stream was read before cite() and its LLM reported no end of its answer "
        "(LlamaIndex's LLMCompletionEndEvent/LLMChatEndEvent), so its whole text is not known: call "
        "cite(response) before reading the stream and read the cited response's response_gen instead"
    )


def cut_off_of(nodes: list[NodeWithScore]) -> bool:
    """Whether the last LLM call of the query whose numbered ``nodes`` these are stopped at its token
    limit (its end event's raw ``finish_reason``); False when the LLM reported no end."""
    try:
        calls = _calls_of(nodes)
    except CiteError:
        return False
    return bool(calls) and calls[-1].truncated


def _ticket(nodes: list[NodeWithScore]) -> str | None:
    tickets = [n.node.metadata.get(QUERY_KEY) for n in nodes]
    return next((t for t in tickets if isinstance(t, str)), None)


def release(nodes: list[NodeWithScore]) -> None:
    """``cite()`` streams this query's tokens itself: LLM calls started later are not its."""
    stream_cited(_ticket(nodes) or "")


def asked_a_model(nodes: list[NodeWithScore]) -> bool:
    """Whether the query whose numbered ``nodes`` these are asked an LLM: False only when its ticket is
    known and recorded no LLM call (``response_mode="no_text"``); when that is not known, True, so an
    empty reply is never said to be one no model was asked for."""
    ticket = _ticket(nodes)
    if ticket is None or is_ambiguous(ticket) or not is_known(ticket):
        return True
    return bool(answer_calls(ticket))
