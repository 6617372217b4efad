"""The events and callbacks LlamaIndex's synthesizers fire around an answer, fired around
``CiteSynthesizer``'s (instrumentation handlers and callback managers see it as LlamaIndex's own)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.instrumentation.events.synthesis import (
    GetResponseEndEvent,
    GetResponseStartEvent,
    SynthesizeEndEvent,
    SynthesizeStartEvent,
)
from llama_index.core.response_synthesizers.base import QueryTextType
from llama_index.core.schema import NodeWithScore, QueryBundle

from ._calls import CallPlan, Run
from ._convert import number_nodes

__all__ = ["synthesis_events"]


@contextmanager
def synthesis_events(
    synthesizer: Any, dispatcher: Any, query: QueryTextType, nodes: Sequence[NodeWithScore]
) -> Iterator[Run]:
    """Number the nodes and plan the calls of ``synthesizer`` (a ``CiteSynthesizer``), between the events
    LlamaIndex's synthesizers fire (through ``dispatcher``, the synthesizer module's)."""
    bundle = QueryBundle(query_str=query) if isinstance(query, str) else query
    dispatcher.event(SynthesizeStartEvent(query=bundle))
    with synthesizer.callback_manager.event(
        CBEventType.SYNTHESIZE, payload={EventPayload.QUERY_STR: bundle.query_str}
    ) as event:
        numbered = number_nodes(list(nodes), merge=synthesizer.merge_chunks, images=synthesizer.multimodal)
        texts = [source.text for source in numbered.sources]
        dispatcher.event(GetResponseStartEvent(query_str=bundle.query_str, text_chunks=texts))
        run = Run(numbered, CallPlan(synthesizer, bundle.query_str, numbered.sources))
        yield run
        dispatcher.event(GetResponseEndEvent())
        event.on_end(payload={EventPayload.RESPONSE: run.response})
    dispatcher.event(SynthesizeEndEvent(query=bundle, response=run.response))
