"""CitePostprocessor in an existing LlamaIndex query engine, with that engine's own prompts."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core import PromptTemplate
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode

from cite_core import answer_notes, split_sentences
from llamaindex_cite import CITE_AS_KEY, SENTENCES_KEY, SOURCE_NUMBER_KEY, CitePostprocessor, CiteQueryEngine

from .conftest import ANSWER, DISPLAY, QUESTION, ReplayLLM

QA = PromptTemplate(
    CitePostprocessor.instructions(10) + "\n\nContext:\n{context_str}\n\nQuestion: {query_str}\nAnswer: "
)


def existing_engine(index, llm, **kwargs):
    return index.as_query_engine(
        llm=llm, similarity_top_k=10, node_postprocessors=[CitePostprocessor()], text_qa_template=QA, **kwargs
    )


def test_numbers_nodes_and_records_sentence_spans(qdrant_index):
    retrieved = qdrant_index.as_retriever(similarity_top_k=10).retrieve(QUESTION)
    out = CitePostprocessor().postprocess_nodes(retrieved, query_bundle=QueryBundle(QUESTION))
    assert len(out) == len(retrieved)
    numbers = [n.node.metadata[SOURCE_NUMBER_KEY] for n in out]
    assert numbers == sorted(numbers) and numbers[:3] == [1, 1, 1]  # three chunks of one document, one number
    for node in out:
        text = node.node.get_content(metadata_mode=MetadataMode.NONE)
        spans = node.node.metadata[SENTENCES_KEY]
        assert [tuple(s) for s in spans] == split_sentences(text)
        assert node.node.metadata[CITE_AS_KEY] == f"[{node.node.metadata[SOURCE_NUMBER_KEY]}]"
        shown = node.node.get_content(metadata_mode=MetadataMode.LLM)
        assert (
            shown.startswith(f"{CITE_AS_KEY}: [")
            and SENTENCES_KEY not in shown
            and SOURCE_NUMBER_KEY not in shown
        )
        embedded = node.node.get_content(metadata_mode=MetadataMode.EMBED)
        assert CITE_AS_KEY not in embedded
    assert all(CITE_AS_KEY not in n.node.metadata for n in retrieved)  # the input nodes are not mutated


def test_existing_engine_cites_with_its_own_prompt(qdrant_index, llm):
    response = existing_engine(qdrant_index, llm).query(QUESTION)
    assert len(llm.prompts) == 1 and "cite_as: [3]" in llm.prompts[0] and "Context:" in llm.prompts[0]
    cited = CitePostprocessor().cite(response)
    assert str(cited) == DISPLAY
    ours = CiteQueryEngine.from_args(
        qdrant_index, llm=ReplayLLM(answers={QUESTION: ANSWER}), similarity_top_k=10
    )
    expected = ours.query(QUESTION)
    assert [n.node.node_id for n in cited.source_nodes] == [n.node.node_id for n in expected.source_nodes]
    assert cited.metadata["invalid_markers"] == ["[42]"]
    assert cited.metadata["cited_answer"].to_anthropic() == expected.metadata["cited_answer"].to_anthropic()


def test_existing_streaming_engine(qdrant_index, llm):
    response = existing_engine(qdrant_index, llm, streaming=True).query(QUESTION)
    cited = CitePostprocessor().cite(response)
    assert str(cited) == DISPLAY and len(cited.source_nodes) == 4


async def test_existing_engine_async(async_qdrant_index, llm):
    response = await existing_engine(async_qdrant_index, llm, streaming=True).aquery(QUESTION)
    cited = await CitePostprocessor().acite(response)
    assert str(cited) == DISPLAY


def test_nodes_without_text_kept_unnumbered_at_the_end():
    nodes = [NodeWithScore(node=TextNode(text=" ")), NodeWithScore(node=TextNode(text="Some text."))]
    out = CitePostprocessor(merge_chunks=False).postprocess_nodes(nodes)
    assert out[0].node.metadata[SOURCE_NUMBER_KEY] == 1 and out[1] is nodes[0]


def test_default_prompts_are_told_to_cite(qdrant_index, llm):
    """Issue 12, item 1: with LlamaIndex's default prompts the model was never told to cite."""
    engine = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, node_postprocessors=[CitePostprocessor()]
    )
    response = engine.query(QUESTION)
    assert CitePostprocessor.instructions(5) in llm.prompts[0]
    assert len(response.source_nodes) == 7  # LlamaIndex's own response: every node
    cited = CitePostprocessor().cite(response)
    assert str(cited) == DISPLAY and len(cited.source_nodes) == 4


def test_cite_after_the_standard_streaming_loop(qdrant_index, llm):
    """Issue 12, item 1: after ``for t in r.response_gen`` cite() returned 'None' with 0 nodes."""
    engine = existing_engine(qdrant_index, llm, streaming=True)
    response = engine.query(QUESTION)
    tokens = list(response.response_gen)
    assert "".join(tokens) == ANSWER
    cited = CitePostprocessor().cite(response)
    assert str(cited) == DISPLAY and len(cited.source_nodes) == 4


def test_cite_before_reading_streams_tokens_in_final_numbering(qdrant_index, llm):
    """Issue 12 item 1: the streamed tokens showed the model's own numbering ([3][1]), not the final one."""
    cite = CitePostprocessor()
    engine = qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, node_postprocessors=[cite], text_qa_template=QA, streaming=True
    )
    cited = cite.cite(engine.query(QUESTION))  # before reading any token
    tokens = list(cited.response_gen)
    assert len(tokens) > 100  # the model's characters, as they come (markers held until resolved)
    assert "".join(tokens) == DISPLAY == str(cited)  # [1][2] ... [2] ... [3]; the model wrote [3][1] ... [42]
    assert "[3][1]" not in "".join(tokens) and "[42]" not in "".join(tokens)
    assert len(cited.source_nodes) == 4 and cited.metadata["invalid_markers"] == ["[42]"]
    assert cited.metadata["raw_answer"] == ANSWER


async def test_acite_before_reading_streams_tokens_in_final_numbering(async_qdrant_index, llm):
    cite = CitePostprocessor()
    engine = async_qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, node_postprocessors=[cite], text_qa_template=QA, streaming=True
    )
    cited = await cite.acite(await engine.aquery(QUESTION))
    tokens = [t async for t in cited.async_response_gen()]
    assert "".join(tokens) == DISPLAY and len(tokens) > 100
    assert len(cited.source_nodes) == 4


async def test_acite_after_reading_the_raw_async_stream(async_qdrant_index, llm):
    cite = CitePostprocessor()
    engine = async_qdrant_index.as_query_engine(
        llm=llm, similarity_top_k=10, node_postprocessors=[cite], text_qa_template=QA, streaming=True
    )
    response = await engine.aquery(QUESTION)
    assert "".join([t async for t in response.response_gen]) == ANSWER  # read raw, model numbering
    cited = await cite.acite(response)
    assert "".join([t async for t in cited.async_response_gen()]) == DISPLAY  # from the recorded text
    assert len(cited.source_nodes) == 4


def _engine(nodes, llm, **options):
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.response_synthesizers import get_response_synthesizer

    from .conftest import ListRetriever

    mode = options.pop("response_mode", "compact")
    synthesizer = get_response_synthesizer(llm=llm, response_mode=mode, **options)
    return RetrieverQueryEngine(
        ListRetriever(nodes), response_synthesizer=synthesizer, node_postprocessors=[CitePostprocessor()]
    )


def _scored():
    return [NodeWithScore(node=TextNode(text="The Sun is a hot star."), score=1.0)]


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("aio", [False, True])
def test_nothing_retrieved_is_an_empty_answer_not_the_placeholder(llm, streaming, aio):
    # LlamaIndex answers "Empty Response" without asking the model when no node reaches it: cite() gave
    # the answer "Empty Response" (and a model's "[1]" placeholder nothing would cite)
    from cite_core import answer_notes

    engine = _engine([], llm, streaming=streaming)
    post = engine._node_postprocessors[0]
    if aio:
        response = asyncio.run(engine.aquery(QUESTION))
        cited = asyncio.run(post.acite(response))
    else:
        cited = post.cite(engine.query(QUESTION))
    if streaming:
        tokens = asyncio.run(_collect(cited.async_response_gen())) if aio else "".join(cited.response_gen)
        assert tokens == ""
        cited = asyncio.run(cited.get_response()) if aio else cited.get_response()
    answer = cited.metadata["cited_answer"]
    assert str(cited) == answer.text == "" and not cited.source_nodes and not llm.prompts
    # no model was asked: the note says so, not that the model's reply was empty
    assert [n.kind for n in answer_notes(answer)] == ["no_model_asked"]
    assert answer.no_model_asked == "no_sources"
    assert "No sources were retrieved, so no model was asked" in answer.to_markdown()


async def _collect(tokens) -> str:
    return "".join([t async for t in tokens])


def test_no_text_mode_is_an_empty_answer_not_the_word_none(llm, monkeypatch):
    # response_mode="no_text" gives Response(""), whose str() LlamaIndex writes "None": cite() cited "None"
    from llama_index.core import Settings

    monkeypatch.setattr(Settings, "_llm", llm)  # LlamaIndex's NoText takes no llm= and reads Settings
    cited = CitePostprocessor().cite(_engine(_scored(), llm, response_mode="no_text").query(QUESTION))
    assert str(cited) == cited.metadata["cited_answer"].text == ""
    assert not llm.prompts
    answer = cited.metadata["cited_answer"]
    assert answer.no_model_asked == "no_text"  # its note: no model was asked, not "its reply was empty"
    assert [n.kind for n in answer_notes(answer)] == ["no_model_asked"]


def test_a_model_s_empty_reply_is_never_said_to_be_one_no_model_was_asked_for():
    # a model was asked and replied with nothing: the answer must not claim no model was asked
    llm = ReplayLLM(answers={QUESTION: ""})
    cited = CitePostprocessor().cite(_engine(_scored(), llm).query(QUESTION))
    answer = cited.metadata["cited_answer"]
    assert llm.prompts and answer.no_model_asked is None
    assert "no_model_asked" not in [n.kind for n in answer_notes(answer)]


def test_an_answer_without_nodes_from_another_engine_is_kept(llm):
    from llama_index.core.base.response.schema import Response

    cited = CitePostprocessor().cite(Response(response="Hello [1]. Empty Response is a phrase."))
    assert str(cited) == "Hello. Empty Response is a phrase."  # a real answer: its invalid marker removed


def test_the_context_of_context_only_mode_is_not_cited_as_an_answer(llm, monkeypatch):
    # response_mode="context_only" answers with the nodes as the model would read them, each after its
    # "cite_as: [n]" label: cite() read the labels as markers and cited every node, with no model
    from llama_index.core import Settings

    from cite_core import ArgumentError

    monkeypatch.setattr(Settings, "_llm", llm)  # LlamaIndex's ContextOnly takes no llm= and reads Settings
    engine = _engine(_scored() * 2, llm, response_mode="context_only")
    response = engine.query(QUESTION)
    assert str(response).startswith("cite_as: [1]")
    with pytest.raises(ArgumentError, match=r"context_only.*not citations.*source_nodes"):
        CitePostprocessor().cite(response)
    with pytest.raises(ArgumentError, match="context_only"):
        asyncio.run(CitePostprocessor().acite(response))
    answered = CitePostprocessor().cite(_engine(_scored(), llm).query(QUESTION))  # a model's answer
    assert "cited_answer" in answered.metadata
