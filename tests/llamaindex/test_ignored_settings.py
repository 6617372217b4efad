"""Settings a LlamaIndex user passes as to LlamaIndex's own components work or raise naming the fix."""

from __future__ import annotations

import pytest
from llama_index.core.response_synthesizers import ResponseMode

from cite_core import ArgumentError
from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import DISPLAY, QUESTION


def test_streaming_given_to_as_query_engine_says_where_it_goes(qdrant_index, llm):
    # LlamaIndex hands streaming=True to the retriever and drops it when response_synthesizer= is given
    engine = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, streaming=True, response_synthesizer=CiteSynthesizer(llm=llm)
    )
    response = engine.query(QUESTION)
    assert str(response) == DISPLAY
    with pytest.raises(AttributeError, match=r"CiteSynthesizer\(llm=\.\.\., streaming=True\)"):
        response.response_gen  # noqa: B018
    with pytest.raises(AttributeError, match="streaming=True goes to the synthesizer"):
        response.print_response_stream()
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        response.nothing  # noqa: B018


def test_streaming_on_the_synthesizer_streams(qdrant_index, llm):
    engine = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm, streaming=True)
    )
    assert "".join(engine.query(QUESTION).response_gen) == DISPLAY


@pytest.mark.parametrize("mode", ["refin", "tree_summarize", ResponseMode.TREE_SUMMARIZE, "", None])
def test_a_response_mode_that_is_not_a_citation_mode_raises(mode):
    with pytest.raises(ArgumentError, match="'compact', 'refine', 'single'"):
        CiteSynthesizer(response_mode=mode)


def test_llama_index_response_mode_values_work(qdrant_index, llm):
    synthesizer = CiteSynthesizer(llm=llm, response_mode=ResponseMode.REFINE)
    assert synthesizer.response_mode == "refine"
    engine = qdrant_index.as_query_engine(llm=llm, similarity_top_k=10, response_synthesizer=synthesizer)
    assert str(engine.query(QUESTION)) == DISPLAY


def test_an_engine_response_mode_that_is_not_a_citation_mode_raises(qdrant_index, llm):
    with pytest.raises(ArgumentError, match="response_mode must be one of 'compact', 'refine', 'single'"):
        CiteQueryEngine.from_args(qdrant_index, llm=llm, response_mode="tree_summarize")


@pytest.mark.parametrize(
    ("option", "value", "fix"),
    [
        ("citation_chunk_size", 256, r"SentenceSplitter\(chunk_size=\.\.\.\)"),
        ("citation_chunk_overlap", 20, r"SentenceSplitter\(chunk_overlap=\.\.\.\)"),
        ("citation_qa_template", "x", "system_template= and/or user_template="),
    ],
)
def test_citation_query_engine_options_raise_naming_the_fix(qdrant_index, llm, option, value, fix):
    with pytest.raises(TypeError, match=fix):
        CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=10, **{option: value})
    # the retriever path already rejected them; the index path handed them to as_retriever
    with pytest.raises(TypeError, match=option):
        CiteQueryEngine.from_args(qdrant_index.as_retriever(), llm=llm, **{option: value})
