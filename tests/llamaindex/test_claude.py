"""Claude's own citations through llama-index-llms-anthropic, from recorded Messages API responses.

The recorded response (JSON, and the same as server-sent events, one character per ``text_delta``) is
served to the Anthropic SDK by an ``httpx.MockTransport`` (``examples/llamaindex_claude.py``): the
request, the SDK's parsing and llama-index-llms-anthropic's conversion all run; no network, no key.
"""

from __future__ import annotations

import copy
import runpy
from pathlib import Path

import pytest

pytest.importorskip("llama_index.llms.anthropic")

from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import CharLocation, PageLocation, from_anthropic_content
from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever

EXAMPLE = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "llamaindex_claude.py"))
if not EXAMPLE["sdk_works"]():
    pytest.skip(
        "llama-index-llms-anthropic cannot call this anthropic SDK: install the llamaindex-anthropic extra",
        allow_module_level=True,
    )
QUESTION, MESSAGE = EXAMPLE["QUESTION"], EXAMPLE["MESSAGE"]
DOCUMENTS = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "llamaindex_qdrant.py"))[
    "DOCUMENTS"
]
DISPLAY = (
    "The harbour of Kessby changed in two steps. It was dredged in 1931 so that steamers could dock [1]; "
    "before that, cargo was rowed ashore from ships anchored in the bay [1]. Then the fish market moved "
    "to the new quay in 1933 [2]."
)


def retrieved() -> list[NodeWithScore]:
    """The nodes in the order the recording saw them: 0 market.txt, 1 Harbour history, 2 church.txt."""
    by_id = {doc.id_: doc for doc in DOCUMENTS}
    return [
        NodeWithScore(
            node=TextNode(text=by_id[i].text, metadata=by_id[i].metadata, id_=i), score=0.9 - n / 10
        )
        for n, i in enumerate(["market", "harbour", "church"])
    ]


def engine(claude, **options) -> RetrieverQueryEngine:
    return RetrieverQueryEngine(
        ListRetriever(retrieved()), response_synthesizer=CiteSynthesizer(llm=claude, **options)
    )


def test_sources_go_to_claude_as_search_results_of_sentences():
    requests: list[dict] = []
    engine(EXAMPLE["recorded_claude"](requests=requests)).query(QUESTION)
    (body,) = requests
    (message,) = body["messages"]
    *results, question = message["content"]
    assert question == {"type": "text", "text": QUESTION}
    assert [r["type"] for r in results] == ["search_result"] * 3
    assert all(r["citations"] == {"enabled": True} for r in results)
    assert [r["title"] for r in results] == ["market.txt", "Harbour history", "church.txt"]
    assert [b["text"] for b in results[1]["content"]] == [
        "Kessby's harbour was dredged in 1931 so that steamers could dock.",
        "Before that, cargo was rowed ashore from ships anchored in the bay.",
        "The new quay was built from local granite.",
    ]
    assert "[n]" not in str(body.get("system", ""))  # no marker instructions: Claude cites natively


def test_claude_citations_map_to_the_same_cited_answer():
    response = engine(EXAMPLE["recorded_claude"]()).query(QUESTION)
    answer = response.metadata["cited_answer"]
    assert str(response) == DISPLAY  # search result 1 (the harbour) is cited first: [1]
    assert [ref.source.title for ref in answer.references] == ["Harbour history", "market.txt"]
    assert all(isinstance(c, CharLocation) for c in answer.citations)
    first = answer.citations[0]
    assert first.cited_text == "Kessby's harbour was dredged in 1931 so that steamers could dock."
    assert (first.document_index, first.start_char_index) == (1, 0)
    harbour = next(d for d in DOCUMENTS if d.id_ == "harbour").text
    assert harbour[first.start_char_index : first.end_char_index] == first.cited_text
    assert [n.node.node_id for n in response.source_nodes] == ["harbour", "market"]  # only the cited
    assert response.metadata["raw_answer"] == "".join(b["text"] for b in MESSAGE["content"])
    # the core's mapping of the same response over the same sources
    sources = response.metadata["sources"]
    direct = from_anthropic_content(
        [
            {**b, "citations": [_as_chars(c, sources) for c in b.get("citations", [])]}
            for b in MESSAGE["content"]
        ],
        sources,
    )
    assert direct.to_anthropic() == response.metadata["anthropic"]


def _as_chars(citation: dict, sources) -> dict:
    source = sources[citation["search_result_index"]]
    start = source.text.index(citation["cited_text"])
    return {
        "type": "char_location",
        "document_index": citation["search_result_index"],
        "cited_text": citation["cited_text"],
        "start_char_index": start,
        "end_char_index": start + len(citation["cited_text"]),
    }


def test_streaming_one_character_at_a_time_is_renumbered_and_equals_the_whole_answer():
    claude = EXAMPLE["recorded_claude"]()
    whole = engine(claude).query(QUESTION)
    response = engine(claude, streaming=True).query(QUESTION)
    tokens = list(response.response_gen)
    assert len(tokens) > 100  # one text_delta per character
    assert "".join(tokens) == str(response) == DISPLAY
    assert response.answer.model_dump() == whole.metadata["cited_answer"].model_dump()
    assert [c.reference for c in response.citations] == [1, 1, 2]
    assert [n.node.node_id for n in response.source_nodes] == ["harbour", "market"]
    before_marker = tokens[: tokens.index(" [1]")]
    assert "".join(before_marker).endswith("steamers could dock")  # the marker where the claim ends


async def test_async_query_and_async_streaming():
    claude = EXAMPLE["recorded_claude"]()
    assert str(await engine(claude).aquery(QUESTION)) == DISPLAY
    streamed = await engine(claude, streaming=True).aquery(QUESTION)
    assert "".join([t async for t in streamed.async_response_gen()]) == DISPLAY


def test_citation_of_an_unknown_search_result_is_reported_not_linked():
    message = copy.deepcopy(MESSAGE)
    message["content"][5]["citations"][0]["search_result_index"] = 7
    response = engine(EXAMPLE["recorded_claude"](message)).query(QUESTION)
    assert response.metadata["invalid_markers"] == ["[8]"]
    assert str(response).endswith("Then the fish market moved to the new quay in 1933.")
    assert [n.node.node_id for n in response.source_nodes] == ["harbour"]


def test_pages_of_a_pdf_give_page_locations():
    pages = ["Preface of the harbour report.", "The harbour was dredged in 1931. Steamers could dock."]
    nodes = [
        NodeWithScore(
            node=TextNode(
                text=text,
                id_=f"p{n}",
                metadata={"file_path": "/r/report.pdf", "file_name": "report.pdf", "page_number": n},
            )
        )
        for n, text in enumerate(pages, start=1)
    ]
    cite = {"type": "search_result_location", "cited_text": "The harbour was dredged in 1931.", "source": "x"}
    cite |= {"title": "report.pdf", "search_result_index": 0, "start_block_index": 1, "end_block_index": 2}
    message = {
        **MESSAGE,
        "content": [{"type": "text", "text": "It was dredged in 1931.", "citations": [cite]}],
    }
    synthesizer = CiteSynthesizer(llm=EXAMPLE["recorded_claude"](message))
    response = RetrieverQueryEngine(ListRetriever(nodes), response_synthesizer=synthesizer).query("When?")
    (citation,) = response.metadata["cited_answer"].citations
    assert isinstance(citation, PageLocation) and citation.start_page_number == 2
    assert citation.cited_text == "The harbour was dredged in 1931."
    assert str(response) == "It was dredged in 1931. [1]"


def test_native_false_uses_markers_and_the_query_engine_passes_native_through():
    requests: list[dict] = []
    claude = EXAMPLE["recorded_claude"](requests=requests)
    CiteQueryEngine(retriever=ListRetriever(retrieved()), llm=claude, native=False).query(QUESTION)
    assert "search_result" not in str(requests[0]) and "[1]" in str(requests[0]["system"])


def test_the_example_runs_offline():
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join([str(root), *sys.path])
    run = subprocess.run(
        [sys.executable, str(root / "examples" / "llamaindex_claude.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    assert run.stdout.splitlines()[0] == DISPLAY and run.stdout.rstrip().endswith(DISPLAY)
