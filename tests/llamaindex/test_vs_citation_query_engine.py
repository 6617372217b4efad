"""Side by side: the same retrieval and the same model answer through llama-index-core's
``CitationQueryEngine`` and through ``CiteQueryEngine``, asserting each difference the issue lists."""

from __future__ import annotations

import uuid

import llama_index.core
import pytest
from llama_index.core.query_engine import CitationQueryEngine
from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

import llamaindex_cite
from llamaindex_cite import CiteQueryEngine

from .conftest import ANSWER, DISPLAY, QUESTION, ListRetriever, ReplayLLM

# 0.13.0 (the floor) still keeps start_char_idx on its citation chunks and packs them otherwise
OLD_CORE = tuple(int(p) for p in llama_index.core.__version__.split(".")[:2]) < (0, 14)
theirs_as_of_0_13 = pytest.mark.skipif(
    OLD_CORE, reason="pins how CitationQueryEngine splits and packs sources in llama-index-core >= 0.14"
)


@pytest.fixture
def both(qdrant_index):
    retriever = qdrant_index.as_retriever(similarity_top_k=10)
    theirs_llm, ours_llm = ReplayLLM(answers={QUESTION: ANSWER}), ReplayLLM(answers={QUESTION: ANSWER})
    theirs = CitationQueryEngine(retriever=retriever, llm=theirs_llm).query(QUESTION)
    ours = CiteQueryEngine.from_args(retriever, llm=ours_llm).query(QUESTION)
    retrieved = retriever.retrieve(QUESTION)
    return theirs, ours, retrieved


@theirs_as_of_0_13
def test_theirs_resplits_into_labelled_chunks_and_loses_offsets_ours_keeps_nodes(both):
    theirs, ours, retrieved = both
    assert all(
        n.node.get_content().startswith(f"Source {i}:\n") for i, n in enumerate(theirs.source_nodes, 1)
    )
    assert all(n.node.start_char_idx is None for n in theirs.source_nodes)
    originals = {n.node.node_id: n.node for n in retrieved}
    for node in ours.source_nodes:
        original = originals[node.node.node_id]
        assert node.node.text == original.text and node.node.start_char_idx == original.start_char_idx
    assert any(n.node.start_char_idx > 0 for n in ours.source_nodes)


def test_theirs_never_parses_the_answer_ours_renumbers_and_reports(both):
    theirs, ours, _ = both
    assert str(theirs) == ANSWER  # "[3][1]" and "[42]" passed through as the model wrote them
    assert "[42]" in str(theirs) and (theirs.metadata or {}).get("invalid_markers") is None
    assert str(ours) == DISPLAY and ours.metadata["invalid_markers"] == ["[42]"]


def test_theirs_returns_every_chunk_ours_only_the_cited(both):
    theirs, ours, retrieved = both
    assert len(theirs.source_nodes) == len(retrieved) == 7
    assert len(ours.source_nodes) == 4
    assert {n.node.ref_doc_id for n in ours.source_nodes} == {"guide-p1", "bio", "light"}


def test_theirs_numbers_chunks_ours_merges_documents(both):
    theirs, ours, _ = both
    assert sum(n.node.ref_doc_id == "bio" for n in theirs.source_nodes) == 3  # three "Source N" for one doc
    references = ours.metadata["cited_answer"].references
    assert [r.source.document_id for r in references] == ["guide-p1", "bio", "light"]  # one reference each


def long_nodes() -> list[NodeWithScore]:
    long = " ".join(
        f"Sentence {i} of the long report mentions the harbour wall number {i}." for i in range(38)
    )
    texts = [long] + [f"Short note {i} about the tides and the lighthouse keeper." for i in range(4)]
    return [
        NodeWithScore(
            node=TextNode(
                text=t,
                id_=str(uuid.uuid4()),
                start_char_idx=0,
                end_char_idx=len(t),
                relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=f"doc{i}")},
            ),
            score=1.0 - i / 10,
        )
        for i, t in enumerate(texts)
    ]


@theirs_as_of_0_13
def test_theirs_cuts_a_source_between_calls_ours_shows_each_whole_under_its_number():
    nodes = long_nodes()
    long = nodes[0].node.text
    theirs_llm = ReplayLLM(default="The wall [1].", context_window=900, num_output=100)
    CitationQueryEngine(retriever=ListRetriever(nodes), llm=theirs_llm).query("What about the wall?")
    assert len(theirs_llm.prompts) > 1  # compact + refine: several calls
    assert not any(long in p for p in theirs_llm.prompts)  # the long source never whole in one call
    first = next(i for i, p in enumerate(theirs_llm.prompts) if long[:60] in p)
    last = next(i for i, p in enumerate(theirs_llm.prompts) if long[-60:] in p)
    assert first < last  # its beginning and its end went to different calls

    ours_llm = ReplayLLM(default="The wall [1].", context_window=900, num_output=100)
    response = CiteQueryEngine.from_args(ListRetriever(nodes), llm=ours_llm).query("What about the wall?")
    assert long in ours_llm.prompts[0]  # ours: the long source whole, in one call
    shown = response.metadata["sources"]
    for source in shown:  # every source whole in exactly one call, under its own number
        (call,) = [p for p in ours_llm.prompts if source.text in p]
        assert f'<source number="{source.number}"' in call
    assert response.metadata["dropped_sources"] == [] and len(shown) == len(nodes)
    assert [n.node.node_id for n in response.source_nodes] == [nodes[0].node.node_id]
    single_llm = ReplayLLM(default="The wall [1].", context_window=900, num_output=100)
    one = CiteQueryEngine.from_args(ListRetriever(nodes), llm=single_llm, response_mode="single")
    assert one.query("What about the wall?").metadata["dropped_sources"] and len(single_llm.prompts) == 1


def test_names_do_not_collide_with_llama_index_core():
    import llama_index.core.query_engine as core_engines

    assert not set(llamaindex_cite.__all__) & set(dir(core_engines))
    assert CiteQueryEngine.class_name() != "CitationQueryEngine"
