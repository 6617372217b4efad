"""End-to-end runs against real hosted LLMs: skipped unless their API key is in the environment.

    OPENAI_API_KEY=... python -m pytest tests/integration -m integration
    ANTHROPIC_API_KEY=... python -m pytest tests/integration -m integration

Models can be chosen with CITE_TEST_OPENAI_MODEL / CITE_TEST_ANTHROPIC_MODEL.
"""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.integration

QUESTION = "What colour is the grass, and what covers most of the Earth's surface?"
DOCUMENTS = [
    ("The grass is green. The sky is blue.", {"title": "Colours", "source": "colours.txt"}),
    (
        "Water is essential for life. Oceans cover about 71 percent of the Earth's surface.",
        {"title": "Water", "source": "water.txt"},
    ),
    ("The Moon orbits the Earth about every 27 days.", {"title": "Moon", "source": "moon.txt"}),
]


def _retriever():  # type: ignore[no-untyped-def]
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class Fixed(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager=None):  # type: ignore[no-untyped-def]
            return [Document(page_content=text, metadata=meta) for text, meta in DOCUMENTS]

    return Fixed()


def _check(answer) -> None:  # type: ignore[no-untyped-def]
    assert answer.citations, answer.text
    assert answer.invalid_markers == []
    for citation in answer.citations:
        source = answer.references[citation.reference - 1].source
        assert source.text[citation.source_start : citation.source_end] == citation.cited_text
    titles = {r.source.title for r in answer.references}
    assert titles <= {"Colours", "Water", "Moon"} and titles & {"Colours", "Water"}


@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set")
def test_openai_streams_cited_answers() -> None:
    langchain_openai = pytest.importorskip("langchain_openai")
    from langchain_cite import CitedAnswer, create_cited_rag_chain

    llm = langchain_openai.ChatOpenAI(
        model=os.environ.get("CITE_TEST_OPENAI_MODEL", "gpt-4o-mini"), temperature=0
    )
    chain = create_cited_rag_chain(_retriever(), llm)
    items = list(chain.stream(QUESTION))
    assert len(items) > 3 and isinstance(items[-1], CitedAnswer)
    _check(items[-1])


@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="ANTHROPIC_API_KEY is not set")
def test_claude_native_citations_map_to_the_same_answer() -> None:
    langchain_anthropic = pytest.importorskip("langchain_anthropic")
    from langchain_cite import create_cited_rag_chain

    llm = langchain_anthropic.ChatAnthropic(
        model=os.environ.get("CITE_TEST_ANTHROPIC_MODEL", "claude-3-5-haiku-latest"), temperature=0
    )
    answer = create_cited_rag_chain(_retriever(), llm).invoke(QUESTION)
    _check(answer)


@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set")
def test_openai_message_output_streams_renumbered_chunks() -> None:
    from langchain_openai import ChatOpenAI

    from langchain_cite import create_cited_rag_chain

    llm = ChatOpenAI(model=os.environ.get("CITE_TEST_OPENAI_MODEL", "gpt-4o-mini"), temperature=0)
    chain = create_cited_rag_chain(_retriever(), llm, output="message")
    total = None
    for chunk in chain.stream(QUESTION):
        total = chunk if total is None else total + chunk
    [block] = total.content_blocks
    assert block["annotations"] and total.text.count("[1]") >= 1
    for note in block["annotations"]:
        assert total.text[note["start_index"] : note["end_index"]].strip()


@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="OPENAI_API_KEY is not set")
def test_openai_agent_cites_across_tool_calls() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    from langchain_openai import ChatOpenAI

    from langchain_cite import CitationSession, create_cited_retriever_tool, tool_citation_instructions

    session = CitationSession()
    tool = create_cited_retriever_tool(
        _retriever(), name="search", description="Search the reference notes.", session=session
    )
    llm = ChatOpenAI(model=os.environ.get("CITE_TEST_OPENAI_MODEL", "gpt-4o-mini"), temperature=0)
    agent = prebuilt.create_react_agent(llm, [tool], prompt=tool_citation_instructions())
    _check(session.parse(agent.invoke({"messages": [("user", QUESTION)]})))
