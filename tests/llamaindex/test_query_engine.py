"""CiteQueryEngine over an index on embedded Qdrant, with a replaying LLM streamed one character at a time."""

from __future__ import annotations

import uuid

import pytest
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import QdrantClient

from cite_core import PageLocation, TokenBudgetError
from llamaindex_cite import (
    REFERENCE_NUMBER_KEY,
    SOURCE_NUMBER_KEY,
    AsyncCitedStreamingResponse,
    CitedStreamingResponse,
    CiteQueryEngine,
)

from .conftest import ANSWER, DISPLAY, QUESTION, ListRetriever, ReplayLLM, documents, nodes

DOCS = {doc.doc_id: doc for doc in documents()}


def ids(response):
    return [n.node.node_id for n in response.source_nodes]


def engine(index, llm, **kwargs):
    return CiteQueryEngine.from_args(index.as_retriever(similarity_top_k=10), llm=llm, **kwargs)


def test_numbering_is_stable(qdrant_index, llm):
    """The recorded answer assumes this numbering: chunks of one document merged, ranked by best chunk."""
    response = engine(qdrant_index, llm).query(QUESTION)
    sources = response.metadata["sources"]
    assert [s.document_id for s in sources] == ["bio", "light", "guide-p1", "guide-p3", "guide-p2"]
    assert len(sources[0].segments) == 3  # three chunks of the biography, one reference


def test_only_cited_nodes_in_reference_order(qdrant_index, llm):
    response = engine(qdrant_index, llm).query(QUESTION)
    assert isinstance(response, Response)
    assert str(response) == DISPLAY
    cited = [(n.node.ref_doc_id, n.node.metadata[REFERENCE_NUMBER_KEY]) for n in response.source_nodes]
    assert cited == [("guide-p1", 1), ("bio", 2), ("bio", 2), ("light", 3)]
    assert [n.node.metadata[SOURCE_NUMBER_KEY] for n in response.source_nodes] == [3, 1, 1, 2]
    retrieved = {n.node.node_id for n in qdrant_index.as_retriever(similarity_top_k=10).retrieve(QUESTION)}
    assert len(retrieved) == 7 and set(ids(response)) < retrieved
    assert len(llm.prompts) == 1  # one LLM call


def test_invalid_marker_is_reported_not_linked(qdrant_index, llm):
    response = engine(qdrant_index, llm).query(QUESTION)
    assert response.metadata["invalid_markers"] == ["[42]"]
    assert "[42]" not in str(response)
    assert response.metadata["cited_answer"].invalid_markers == ["[42]"]
    assert response.metadata["raw_answer"] == ANSWER


def test_metadata_carries_anthropic_citations_in_document_coordinates(qdrant_index, llm):
    response = engine(qdrant_index, llm).query(QUESTION)
    content = response.metadata["anthropic"]["content"]
    assert "".join(block["text"] for block in content) == response.metadata["cited_answer"].plain_text
    citations = [c for block in content for c in block.get("citations", [])]
    assert {c["type"] for c in citations} == {"char_location", "page_location"}
    sources = response.metadata["sources"]
    for c in citations:
        source = sources[c["document_index"]]
        if c["type"] == "char_location":  # offsets in the original document, not in the chunk
            assert (
                DOCS[source.document_id].text[c["start_char_index"] : c["end_char_index"]] == c["cited_text"]
            )
            assert c["document_title"] in ("mara_lind.txt", "The Kessby lighthouse")
        else:
            assert (c["start_page_number"], c["end_page_number"]) == (1, 2)
            assert c["cited_text"] in DOCS["guide-p1"].text
    bio = [c for c in citations if c["document_title"] == "mara_lind.txt"]
    assert any(c["start_char_index"] >= 327 for c in bio)  # cited in the second chunk: document offsets


def test_node_metadata_maps_to_sources(qdrant_index, llm):
    response = engine(qdrant_index, llm).query(QUESTION)
    by_doc = {s.document_id: s for s in response.metadata["sources"]}
    assert by_doc["light"].title == "The Kessby lighthouse"
    assert by_doc["light"].url == "https://example.org/kessby-light"
    assert by_doc["bio"].title == "mara_lind.txt" and by_doc["bio"].author == "K. Berg"
    assert by_doc["guide-p1"].kind == "pages" and by_doc["guide-p1"].pages == (1,)
    assert by_doc["bio"].document_coordinates
    assert 'title="mara_lind.txt"' in llm.prompts[0] and "[page 1]" in llm.prompts[0]


def test_stream_and_query_agree(qdrant_index, llm):
    whole = engine(qdrant_index, llm).query(QUESTION)
    streaming = engine(qdrant_index, ReplayLLM(answers={QUESTION: ANSWER}), streaming=True).query(QUESTION)
    assert isinstance(streaming, CitedStreamingResponse)
    tokens, nodes_seen = [], []
    for token in streaming.response_gen:
        tokens.append(token)
        nodes_seen.append(len(streaming.source_nodes))
    assert len(tokens) > 100  # the model's characters flow through, not one final block
    assert nodes_seen[10] == 0 and 0 < nodes_seen[len(tokens) // 2] < len(
        whole.source_nodes
    )  # resolved on the way
    assert "".join(tokens) == str(whole) == str(streaming) == DISPLAY
    assert ids(streaming) == ids(whole)
    assert streaming.answer == whole.metadata["cited_answer"] == streaming.metadata["cited_answer"]
    assert streaming.metadata["invalid_markers"] == ["[42]"]
    assert [c.cited_text for c in streaming.citations] == [c.cited_text for c in streaming.answer.citations]
    assert streaming.get_response().source_nodes == streaming.source_nodes


def test_streaming_str_consumes_the_stream(qdrant_index, llm):
    response = engine(qdrant_index, llm, streaming=True).query(QUESTION)
    assert str(response) == DISPLAY
    assert [n.node.ref_doc_id for n in response.source_nodes] == ["guide-p1", "bio", "bio", "light"]


async def test_aquery_with_async_qdrant_client(async_qdrant_index, qdrant_index, llm):
    sync = engine(qdrant_index, ReplayLLM(answers={QUESTION: ANSWER})).query(QUESTION)
    response = await engine(async_qdrant_index, llm).aquery(QUESTION)
    assert str(response) == DISPLAY
    assert ids(response) == ids(sync)
    assert response.metadata["invalid_markers"] == ["[42]"]


async def test_async_streaming(async_qdrant_index, llm):
    response = await engine(async_qdrant_index, llm, streaming=True).aquery(QUESTION)
    assert isinstance(response, AsyncCitedStreamingResponse)
    tokens = [token async for token in response.async_response_gen()]
    assert "".join(tokens) == DISPLAY and len(tokens) > 100
    answer = await response.consume()
    assert answer.text == DISPLAY and response.response_txt == DISPLAY
    assert [n.node.ref_doc_id for n in response.source_nodes] == ["guide-p1", "bio", "bio", "light"]
    assert (await response.get_response()).response == DISPLAY


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect")
def test_qdrant_on_disk_path(tmp_path, embed_model, llm):
    client = QdrantClient(path=str(tmp_path / "qdrant"))
    store = QdrantVectorStore(collection_name="corpus", client=client)
    index = VectorStoreIndex(
        nodes(), storage_context=StorageContext.from_defaults(vector_store=store), embed_model=embed_model
    )
    response = CiteQueryEngine.from_args(index, llm=llm, similarity_top_k=10).query(QUESTION)
    assert str(response) == DISPLAY
    client.close()


def plain_nodes(*texts: str) -> list[NodeWithScore]:
    return [
        NodeWithScore(node=TextNode(text=t, id_=str(uuid.uuid4())), score=1.0 - i / 10)
        for i, t in enumerate(texts)
    ]


def test_any_retriever_plain_nodes():
    retrieved = plain_nodes("The grass is green.", "The sky is blue.", "Water is wet.")
    llm = ReplayLLM(default="The sky is blue [2] and the grass is green [1].")
    response = CiteQueryEngine.from_args(ListRetriever(retrieved), llm=llm).query("Colours?")
    assert str(response) == "The sky is blue [1] and the grass is green [2]."
    assert ids(response) == [retrieved[1].node.node_id, retrieved[0].node.node_id]
    assert response.metadata["sources"][0].label == retrieved[0].node.node_id  # no title: its id names it


def test_context_window_drops_whole_sources_lowest_ranked_first():
    texts = [f"Fact {i}: " + " ".join(f"word{i}x{j}" for j in range(60)) + "." for i in range(6)]
    retrieved = plain_nodes(*texts)
    llm = ReplayLLM(default="Fact zero [1].", context_window=900, num_output=200)
    engine = CiteQueryEngine.from_args(ListRetriever(retrieved), llm=llm, response_mode="single")
    response = engine.query("Facts?")
    shown, dropped = response.metadata["sources"], response.metadata["dropped_sources"]
    assert shown and dropped and len(shown) + len(dropped) == 6
    assert response.metadata["dropped_nodes"] == retrieved[len(shown) :]
    assert [s.text for s in shown] == texts[: len(shown)]  # the best ones, whole
    assert all(text in llm.prompts[0] for text in texts[: len(shown)])
    assert not any(
        text[:20] in llm.prompts[0] for text in texts[len(shown) :]
    )  # the rest not at all, not cut
    assert len(llm.prompts) == 1


def test_budget_override_and_too_small_budget():
    retrieved = plain_nodes("A long source. " * 50, "Short.")
    llm = ReplayLLM(default="x")
    with pytest.raises(TokenBudgetError):  # not even the instructions fit
        CiteQueryEngine.from_args(ListRetriever(retrieved), llm=llm, max_prompt_tokens=100).query("Q?")
    cut = CiteQueryEngine.from_args(ListRetriever(retrieved), llm=llm, max_prompt_tokens=250).query("Q?")
    assert cut.metadata["truncated_sources"][0].text == retrieved[0].node.text  # shown in part
    big = CiteQueryEngine.from_args(ListRetriever(retrieved), llm=llm, max_prompt_tokens=100_000).query("Q?")
    assert len(big.metadata["sources"]) == 2


def test_merge_can_be_turned_off(qdrant_index, llm):
    response = engine(qdrant_index, llm, merge_chunks=False).query(QUESTION)
    assert len(response.metadata["sources"]) == 7


def test_from_args_with_index_and_retriever_kwargs(qdrant_index, llm):
    by_index = CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=2)
    assert len(by_index.retrieve(QueryBundle(QUESTION))) == 2
    with pytest.raises(TypeError, match="similarity_top_k"):
        CiteQueryEngine.from_args(qdrant_index.as_retriever(), llm=llm, similarity_top_k=2)


def test_page_citation_type(qdrant_index, llm):
    answer = engine(qdrant_index, llm).query(QUESTION).metadata["cited_answer"]
    assert isinstance(answer.citations[0], PageLocation)


def test_nodes_without_text_are_not_sources():
    retrieved = plain_nodes("Real text.", " ")
    response = CiteQueryEngine.from_args(ListRetriever(retrieved), llm=ReplayLLM(default="Yes [1].")).query(
        "Q?"
    )
    assert len(response.metadata["sources"]) == 1 and ids(response) == [retrieved[0].node.node_id]


def test_one_big_document_is_shown_in_part_and_the_unseen_chunks_reported():
    """All chunks of one document merge into one source; when that is too big for a call, it is shown in
    part (cite_core's truncate: a prefix, same number), and the chunks not shown at all are reported."""
    chunks = [f"Chunk {i} says: " + " ".join(f"fact{i}x{j}" for j in range(80)) + "." for i in range(8)]
    retrieved = [
        NodeWithScore(
            node=TextNode(
                text=t,
                id_=f"n{i}",
                start_char_idx=i * 1000,
                relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id="doc")},
            ),
            score=1.0 - i / 10,
        )
        for i, t in enumerate(chunks)
    ]
    llm = ReplayLLM(default="A fact [1].", context_window=1500, num_output=200)
    response = CiteQueryEngine.from_args(ListRetriever(retrieved), llm=llm).query("Facts?")
    (source,) = response.metadata["sources"]
    (whole,) = response.metadata["truncated_sources"]
    assert whole.text.startswith(source.text) and len(source.text) < len(whole.text)
    kept = len(source.segments)
    assert 1 <= kept < 8 and len(llm.prompts) == 1
    assert [n.node.node_id for n in response.metadata["dropped_nodes"]] == [f"n{i}" for i in range(kept, 8)]
    assert all(t in llm.prompts[0] for t in chunks[: kept - 1]) and chunks[kept][:20] not in llm.prompts[0]


def test_metadata_references_say_where_each_text_is(qdrant_index, llm):
    response = engine(qdrant_index, llm).query(QUESTION)
    refs = {r["title"]: r for r in response.metadata["references"]}
    assert [r["number"] for r in response.metadata["references"]] == [1, 2, 3]
    guide, bio, light = refs["seabirds.pdf"], refs["mara_lind.txt"], refs["The Kessby lighthouse"]
    assert (guide["path"], guide["page_range"], guide["pages"], guide["link"]) == (
        "seabirds.pdf",
        [1, 1],
        "1",
        None,
    )
    assert (bio["path"], bio["author"], bio["page_range"]) == ("mara_lind.txt", "K. Berg", None)
    assert light["url"] == "https://example.org/kessby-light"
    passage = light["passages"][0]
    assert passage["cited_text"] in DOCS["light"].text
    assert light["link"] == passage["link"] and passage["link"].startswith(
        "https://example.org/kessby-light#:~:text="
    )


def test_from_args_names_a_wrong_response_mode_and_other_wrong_fields():
    """``response_mode="tree_summarize"`` raised pydantic's ValidationError naming the model, not the fix."""
    from llama_index.core.response_synthesizers import ResponseMode

    from cite_core import ArgumentError

    retriever, llm = ListRetriever(plain_nodes("The sky is blue.")), ReplayLLM(default="Blue [1].")
    with pytest.raises(ArgumentError, match=r"response_mode must be one of .*got 'tree_summarize'"):
        CiteQueryEngine.from_args(retriever, llm=llm, response_mode="tree_summarize")
    with pytest.raises(ArgumentError, match=r"CiteQueryEngine: prompt_style: .*got 'cards'"):
        CiteQueryEngine(retriever=retriever, llm=llm, prompt_style="cards")
    assert (
        CiteQueryEngine.from_args(retriever, llm=llm, response_mode=ResponseMode.REFINE).response_mode
        == "refine"
    )


class _BrokenLLM(ReplayLLM):
    """Streams a few characters, then the connection drops."""

    def stream_complete(self, prompt, formatted=False, **kwargs):
        def gen():
            yield from list(super(_BrokenLLM, self).stream_complete(prompt, formatted, **kwargs))[:5]
            raise ConnectionError("connection reset by peer")

        return gen()


def test_reading_a_failed_stream_says_it_failed_and_why():
    """``str(response)`` after a stream that failed raised a bare AssertionError."""
    from cite_core import StreamClosedError

    engine = CiteQueryEngine(
        retriever=ListRetriever(plain_nodes("The sky is blue.")),
        llm=_BrokenLLM(default="Blue [1]."),
        streaming=True,
    )
    response = engine.query(QUESTION)
    with pytest.raises(ConnectionError):
        "".join(response.response_gen)
    with pytest.raises(
        StreamClosedError, match=r"stream failed.*ConnectionError: connection reset by peer"
    ) as info:
        str(response)
    assert isinstance(info.value.__cause__, ConnectionError)


async def test_reading_a_failed_async_stream_says_it_failed_and_why():
    from cite_core import StreamClosedError

    engine = CiteQueryEngine(
        retriever=ListRetriever(plain_nodes("The sky is blue.")),
        llm=_BrokenLLM(default="Blue [1]."),
        streaming=True,
    )
    response = await engine.aquery(QUESTION)
    with pytest.raises(ConnectionError):
        async for _ in response.async_response_gen():
            pass
    with pytest.raises(StreamClosedError, match="ConnectionError: connection reset by peer"):
        await response.consume()
