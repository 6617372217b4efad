"""CiteSynthesizer as the response_synthesizer of the engines users already have; LlamaIndex's events."""

from __future__ import annotations

from collections import Counter

import pytest
from llama_index.core import Settings, get_response_synthesizer
from llama_index.core.base.response.schema import Response
from llama_index.core.callbacks import CallbackManager, CBEventType, LlamaDebugHandler
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore

from llamaindex_cite import CitedStreamingResponse, CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ANSWER, DISPLAY, QUESTION, ListRetriever, ReplayLLM, nodes

EXPECTED_METADATA = {
    "cited_answer",
    "anthropic",
    "invalid_markers",
    "references",
    "raw_answer",
    "sources",
    "dropped_sources",
    "dropped_nodes",
    "repaired_nodes",
    "llm_calls",
    "truncated_sources",
}


def ids(response):
    return [n.node.node_id for n in response.source_nodes]


def test_as_query_engine_with_the_synthesizer_cites(qdrant_index, llm):
    query_engine = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm)
    )
    response = query_engine.query(QUESTION)
    assert isinstance(response, Response) and str(response) == DISPLAY
    ours = CiteQueryEngine.from_args(
        qdrant_index, llm=ReplayLLM(answers={QUESTION: ANSWER}), similarity_top_k=10
    )
    expected = ours.query(QUESTION)
    assert ids(response) == ids(expected) and len(ids(response)) == 4  # only the cited nodes
    assert set(response.metadata) == set(expected.metadata) == EXPECTED_METADATA
    assert response.metadata["invalid_markers"] == ["[42]"]


def test_llm_defaults_to_settings_llm(qdrant_index, llm, monkeypatch):
    monkeypatch.setattr(Settings, "_llm", llm)
    synthesizer = CiteSynthesizer()
    assert synthesizer.llm is llm
    response = qdrant_index.as_query_engine(similarity_top_k=10, response_synthesizer=synthesizer).query(
        QUESTION
    )
    assert str(response) == DISPLAY


def test_retriever_query_engine_streams_renumbered_tokens_one_character_at_a_time(qdrant_index, llm):
    retriever = qdrant_index.as_retriever(similarity_top_k=10)
    query_engine = RetrieverQueryEngine(
        retriever, response_synthesizer=CiteSynthesizer(llm=llm, streaming=True)
    )
    response = query_engine.query(QUESTION)
    assert isinstance(response, CitedStreamingResponse)
    tokens = list(response.response_gen)
    assert "".join(tokens) == DISPLAY  # the model wrote [3][1]: the reader sees [1][2] as it streams
    assert len(response.source_nodes) == 4 and response.metadata["invalid_markers"] == ["[42]"]


async def test_aquery_streaming_over_async_qdrant(async_qdrant_index, llm):
    query_engine = async_qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm, streaming=True)
    )
    response = await query_engine.aquery(QUESTION)
    tokens = [token async for token in response.async_response_gen()]
    assert "".join(tokens) == DISPLAY
    assert len(response.source_nodes) == 4


async def test_aquery_whole_over_async_qdrant(async_qdrant_index, llm):
    query_engine = async_qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm)
    )
    assert str(await query_engine.aquery(QUESTION)) == DISPLAY


def test_plain_vector_store_index(llm, embed_model):
    from llama_index.core import VectorStoreIndex

    index = VectorStoreIndex(nodes(), embed_model=embed_model)
    query_engine = index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm)
    )
    assert str(query_engine.query(QUESTION)) == DISPLAY
    streaming = index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm, streaming=True)
    )
    response = streaming.query(QUESTION)
    assert str(response) == DISPLAY


def test_one_numbering_within_the_budget_every_shown_source_labelled():
    """``single``: one call, whole sources; those that do not fit are dropped and reported."""
    retrieved = [NodeWithScore(node=n, score=1.0 - i / 100) for i, n in enumerate(nodes())]
    llm = ReplayLLM(default="Mara grew up in Kessby [1].", context_window=420, num_output=20)
    response = RetrieverQueryEngine(
        ListRetriever(retrieved), response_synthesizer=CiteSynthesizer(llm=llm, response_mode="single")
    ).query(QUESTION)
    shown, dropped = response.metadata["sources"], response.metadata["dropped_sources"]
    assert shown and dropped and len(llm.prompts) == 1
    assert [s.number for s in shown] == list(range(1, len(shown) + 1))  # one numbering
    for source in shown:  # every label the model sees belongs to a source the parser knows
        assert f'<source id="{source.number}"' in llm.prompts[0] or f"[{source.number}]" in llm.prompts[0]
    assert response.metadata["dropped_nodes"]


class _Recorder(BaseEventHandler):
    names: list[str]

    @classmethod
    def class_name(cls) -> str:
        return "_Recorder"

    def handle(self, event, **kwargs) -> None:
        self.names.append(event.class_name())


def _run(make_engine):
    debug = LlamaDebugHandler()
    manager = CallbackManager([debug])
    recorder = _Recorder(names=[])
    dispatcher = get_dispatcher()
    dispatcher.add_event_handler(recorder)
    try:
        retriever = ListRetriever([NodeWithScore(node=n, score=0.5) for n in nodes()])
        retriever.callback_manager = manager
        make_engine(retriever, manager).query(QUESTION)
    finally:
        dispatcher.event_handlers.remove(recorder)
    callbacks = {
        kind: len(debug.get_event_pairs(kind))
        for kind in (CBEventType.QUERY, CBEventType.RETRIEVE, CBEventType.SYNTHESIZE)
    }
    names = Counter(
        n for n in recorder.names if n.startswith(("Query", "Retrieval", "Synthesize", "GetResponse"))
    )
    return callbacks, names


@pytest.mark.parametrize("ours", ["synthesizer", "query_engine"])
def test_same_events_and_callbacks_as_retriever_query_engine_each_once(ours):
    llm = ReplayLLM(answers={QUESTION: ANSWER})

    def theirs(retriever, manager):
        synthesizer = get_response_synthesizer(llm=llm, callback_manager=manager, response_mode="compact")
        return RetrieverQueryEngine(retriever, response_synthesizer=synthesizer, callback_manager=manager)

    def cited(retriever, manager):
        if ours == "query_engine":
            return CiteQueryEngine(retriever=retriever, llm=llm, callback_manager=manager)
        return RetrieverQueryEngine(
            retriever,
            response_synthesizer=CiteSynthesizer(llm=llm, callback_manager=manager),
            callback_manager=manager,
        )

    their_callbacks, their_events = _run(theirs)
    our_callbacks, our_events = _run(cited)
    assert (
        our_callbacks
        == their_callbacks
        == {CBEventType.QUERY: 1, CBEventType.RETRIEVE: 1, CBEventType.SYNTHESIZE: 1}
    )
    assert set(our_events) == set(their_events)
    assert all(count == 1 for count in our_events.values()), our_events


def test_numbered_sentence_style_is_a_first_class_option(qdrant_index):
    llm = ReplayLLM(default="She counted seabirds for the coastal survey [1:3].")
    synthesizer = CiteSynthesizer(llm=llm, style="sentences")
    response = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=synthesizer
    ).query(QUESTION)
    assert "\n1: Mara Lind grew up in Kessby" in llm.prompts[0]  # numbered sentences shown
    citation = response.metadata["cited_answer"].citations[0]
    assert str(response) == "She counted seabirds for the coastal survey [1]."
    assert citation.cited_text.startswith("As a child she spent her summers rowing")
