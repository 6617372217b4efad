"""Reasoning models: <think> sections are neither cited nor shown, through every engine (issue 12 item 7)."""

from __future__ import annotations

from llamaindex_cite import CiteChatEngine, CitePostprocessor, CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ANSWER, DISPLAY, QUESTION, ReplayLLM

THINKING = "The user asks about childhood. Source [5] mentions the lighthouse; I will cite [2] and [4]."
REASONING_ANSWER = f"<think>{THINKING}</think>\n\n{ANSWER}"


def reasoning_llm() -> ReplayLLM:
    return ReplayLLM(answers={QUESTION: REASONING_ANSWER})


def test_query_engine_and_synthesizer_hide_and_do_not_cite_thinking(qdrant_index):
    engines = [
        CiteQueryEngine.from_args(qdrant_index, llm=reasoning_llm(), similarity_top_k=10),
        qdrant_index.as_query_engine(
            llm=reasoning_llm(),
            similarity_top_k=10,
            response_synthesizer=CiteSynthesizer(llm=reasoning_llm()),
        ),
    ]
    for engine in engines:
        response = engine.query(QUESTION)
        assert str(response) == DISPLAY and "<think>" not in str(response)
        answer = response.metadata["cited_answer"]
        assert answer.reasoning.strip() == THINKING
        assert [r.source.number for r in answer.references] == [3, 1, 2]  # [5] and [4] in the thinking: no
        assert answer.invalid_markers == ["[42]"]


def test_streaming_one_character_at_a_time_never_shows_thinking(qdrant_index):
    synthesizer = CiteSynthesizer(llm=reasoning_llm(), streaming=True)
    response = qdrant_index.as_query_engine(
        llm=reasoning_llm(), similarity_top_k=10, response_synthesizer=synthesizer
    ).query(QUESTION)
    tokens = list(response.response_gen)
    assert "".join(tokens) == DISPLAY
    assert not any("think" in t for t in tokens)


def test_chat_history_stores_no_thinking(qdrant_index):
    chat = CiteChatEngine.from_defaults(
        qdrant_index.as_retriever(similarity_top_k=10), llm=reasoning_llm(), skip_condense=True
    )
    assert chat.chat(QUESTION).response == DISPLAY
    assert all("<think>" not in str(m.content) for m in chat.chat_history)


def test_postprocessor_cite_drops_thinking(qdrant_index):
    engine = qdrant_index.as_query_engine(
        llm=reasoning_llm(), similarity_top_k=10, node_postprocessors=[CitePostprocessor()]
    )
    assert str(CitePostprocessor().cite(engine.query(QUESTION))) == DISPLAY
