"""Sentence-window retrieval (SentenceWindowNodeParser + MetadataReplacementPostProcessor): the node text
becomes the window but keeps the sentence's offsets, so citations index the node's own text and say so."""

from __future__ import annotations

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter, SentenceWindowNodeParser
from llama_index.core.postprocessor import MetadataReplacementPostProcessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore

from llamaindex_cite import CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever, ReplayLLM

TEXT = (
    "Kessby is a fishing village on the Baltic coast. It had an old dock. The bakery is old and still "
    "bakes rye bread. Kessby's harbour was dredged in 1931 so that steamers could dock. The fish market "
    "moved to the new quay in 1933. The lighthouse was automated in 1968."
)
DREDGED = "Kessby's harbour was dredged in 1931 so that steamers could dock."


def _engine(nodes, answer, postprocessors=()):
    llm = ReplayLLM(default=answer)
    return RetrieverQueryEngine(
        ListRetriever([NodeWithScore(node=n, score=1.0) for n in nodes]),
        response_synthesizer=CiteSynthesizer(llm=llm),
        node_postprocessors=list(postprocessors),
    )


def test_sentence_window_citations_index_the_node_text_not_the_document():
    document = Document(text=TEXT, id_="kessby")
    nodes = SentenceWindowNodeParser.from_defaults(window_size=1).get_nodes_from_documents([document])
    (dredged,) = [n for n in nodes if n.text.strip() == DREDGED]
    assert TEXT[dredged.start_char_idx : dredged.end_char_idx] == dredged.text  # the parser's own offsets
    engine = _engine([dredged], "The harbour was dredged in 1931 so that steamers could dock [1].")
    engine._node_postprocessors = [MetadataReplacementPostProcessor(target_metadata_key="window")]
    response = engine.query("When was the harbour dredged?")
    (citation,) = response.metadata["cited_answer"].citations
    (node,) = response.source_nodes
    window = node.node.get_content()
    assert window != DREDGED and DREDGED in window  # the window replaced the sentence
    assert citation.cited_text == DREDGED
    assert citation.coordinates == "source"
    assert window[citation.start_char_index : citation.end_char_index] == DREDGED
    assert "coordinates" not in response.metadata["anthropic"]["content"][0]["citations"][0]


def test_chunks_that_are_their_document_slice_give_document_offsets():
    document = Document(text=TEXT, id_="kessby")
    nodes = SentenceSplitter(chunk_size=40, chunk_overlap=0).get_nodes_from_documents([document])
    later = [n for n in nodes if DREDGED in n.text]
    assert later and later[0].start_char_idx > 0
    response = _engine(later, "The harbour was dredged in 1931 so that steamers could dock [1].").query("Q?")
    (citation,) = response.metadata["cited_answer"].citations
    assert citation.coordinates == "document"
    assert TEXT[citation.start_char_index : citation.end_char_index] == citation.cited_text == DREDGED
