"""Agents: cited_query_engine_tool numbers sources across calls via one CitationSession; the example."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode

import cite_core
from llamaindex_cite import REFERENCE_NUMBER_KEY, CitationSession, cited_query_engine_tool
from tests.llamaindex.conftest import QUESTION

ROOT = Path(__file__).resolve().parents[2]


def test_session_is_the_core_session_with_a_llamaindex_parse():
    assert issubclass(CitationSession, cite_core.CitationSession)


def test_numbers_stay_stable_across_calls_and_parse_covers_every_call(qdrant_index, llm):
    session = CitationSession()
    engine = qdrant_index.as_query_engine(llm=llm, similarity_top_k=2)
    first_tool = cited_query_engine_tool(engine, name="archive", description="The archive.", session=session)
    other_tool = cited_query_engine_tool(engine, name="again", description="The same.", session=session)
    first = first_tool.call(input=QUESTION).content
    shown_first = [s.document_id for s in session.sources]
    second = other_tool.call(input="When was the Kessby lighthouse built from granite?").content
    count = len(session)
    third = first_tool.call(input=QUESTION).content
    assert len(session) == count  # the same nodes again: no new numbers
    assert all(f'number="{n}"' in third and f'number="{n}"' in first for n in range(1, len(shown_first) + 1))
    assert [s.document_id for s in session.sources][: len(shown_first)] == shown_first  # nothing renumbered
    light = next(s.number for s in session.sources if s.document_id == "light")
    assert f'number="{light}"' in second
    answer = f"Mara grew up in Kessby [1]. The lighthouse was built in 1872 [{light}]."
    cited = session.parse(answer)
    assert isinstance(cited, Response)
    assert str(cited) == "Mara grew up in Kessby [1]. The lighthouse was built in 1872 [2]."
    assert {n.node.ref_doc_id for n in cited.source_nodes} == {shown_first[0], "light"}
    assert [n.node.metadata[REFERENCE_NUMBER_KEY] for n in cited.source_nodes][-1] == 2
    assert cited.metadata["cited_answer"].references[1].source.number == light


def test_a_tool_without_a_session_makes_its_own(qdrant_index, llm):
    tool = cited_query_engine_tool(qdrant_index.as_retriever(), name="archive", description="The archive.")
    tool.call(input=QUESTION)
    assert len(tool.session) >= 1


def test_agent_example_runs_offline():
    pytest.importorskip("llama_index.core.agent.workflow")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "llamaindex_agent.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout
    # one numbering: the answer keeps the numbers the agent saw in its tool results (issue 22)
    assert "steamers could dock [1]. The fish market moved to the new quay in 1933 [3]." in out
    assert "  [3] market.txt\n" in out
    assert "[2] church.txt" in out  # the agent saw three sources; the reference list shows the two cited


def _sun_chunk(index: int, text: str) -> NodeWithScore:
    node = TextNode(text=text, id_=f"sun-{index}")
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id="sun")
    return NodeWithScore(node=node, score=1.0)


def test_parse_returns_only_the_cited_chunks_of_a_document():
    # issue 31: the two chunks of one document are one source; a citation into the second chunk
    # returned both chunks as source_nodes
    session = CitationSession()
    session.add_nodes(
        [
            _sun_chunk(0, "The Sun is a star made mostly of hydrogen and helium."),
            _sun_chunk(1, "Light from the Sun takes about eight minutes to reach Earth."),
        ]
    )
    assert len(session) == 1
    cited = session.parse("Sunlight takes about eight minutes to reach Earth [1].")
    assert [n.node.node_id for n in cited.source_nodes] == ["sun-1"]
    both = session.parse("The Sun is mostly hydrogen [1]. Its light takes eight minutes [1].")
    assert [n.node.node_id for n in both.source_nodes] == ["sun-0", "sun-1"]
