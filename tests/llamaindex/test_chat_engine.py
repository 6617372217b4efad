"""CiteChatEngine (condense-plus-context with citations) and index.as_chat_engine with CiteSynthesizer."""

from __future__ import annotations

import re

import pytest
from llama_index.core.base.llms.types import MessageRole

from cite_core import ArgumentError
from llamaindex_cite import REFERENCE_NUMBER_KEY, CiteChatEngine, CiteSynthesizer
from tests.llamaindex.conftest import ANSWER, DISPLAY, QUESTION, ReplayLLM

FOLLOW_UP = "And what about the lighthouse keepers?"
FOLLOW_UP_ANSWER = "The keepers recorded wind, rain and passing ships three times a day [2]."
FOLLOW_UP_DISPLAY = "The keepers recorded wind, rain and passing ships three times a day [2]."
"""The source the first answer showed as [2] keeps that number on the second turn (one numbering)."""


def chat_llm() -> ReplayLLM:
    return ReplayLLM(answers={FOLLOW_UP: FOLLOW_UP_ANSWER, QUESTION: ANSWER})


def engine(index, llm, **kwargs):
    return CiteChatEngine.from_defaults(
        index.as_retriever(similarity_top_k=10), llm=llm, skip_condense=True, **kwargs
    )


def assistant_messages(chat_engine):
    return [m.content for m in chat_engine.chat_history if m.role == MessageRole.ASSISTANT]


def test_chat_keeps_one_numbering_across_turns_and_history_is_renumbered(qdrant_index):
    chat_engine = engine(qdrant_index, chat_llm())
    first = chat_engine.chat(QUESTION)
    assert first.response == DISPLAY
    assert [n.node.metadata[REFERENCE_NUMBER_KEY] for n in first.source_nodes] == [1, 2, 2, 3]
    assert first.metadata["invalid_markers"] == ["[42]"]
    second = chat_engine.chat(FOLLOW_UP)
    assert second.response == FOLLOW_UP_DISPLAY  # the model's [2]: the first answer's [2] again
    seen_as_2 = second.metadata["sources"][1].document_id  # this turn's own retrieval, numbered afresh
    assert {n.node.ref_doc_id for n in second.source_nodes} == {seen_as_2}
    assert first.metadata["cited_answer"].references[1].source.document_id == seen_as_2
    assert assistant_messages(chat_engine) == [DISPLAY, FOLLOW_UP_DISPLAY]


def test_history_and_system_prompt_reach_the_model(qdrant_index):
    llm = chat_llm()
    chat_engine = engine(qdrant_index, llm, system_prompt="You are a village archivist.")
    chat_engine.chat(QUESTION)
    chat_engine.chat(FOLLOW_UP)
    # the earlier answer, its markers in this turn's numbering (tests/llamaindex/test_chat_conversation.py)
    assert "village archivist" in llm.prompts[1] and DISPLAY.split(" [")[0] in llm.prompts[1]


def test_stream_chat_one_character_at_a_time(qdrant_index):
    chat_engine = engine(qdrant_index, chat_llm())
    response = chat_engine.stream_chat(QUESTION)
    tokens = list(response.response_gen)
    assert "".join(tokens) == DISPLAY
    # (consuming response_gen waits for the history to be written)
    assert assistant_messages(chat_engine) == [DISPLAY]
    assert [n.node.ref_doc_id for n in response.source_nodes] == ["guide-p1", "bio", "bio", "light"]
    assert "[3][1]" not in "".join(tokens)  # the model's numbering never shows


async def test_achat_and_astream_chat_on_async_qdrant(async_qdrant_index):
    chat_engine = engine(async_qdrant_index, chat_llm())
    first = await chat_engine.achat(QUESTION)
    assert first.response == DISPLAY and len(first.source_nodes) == 4
    streamed = await chat_engine.astream_chat(FOLLOW_UP)
    tokens = [token async for token in streamed.async_response_gen()]
    assert "".join(tokens) == FOLLOW_UP_DISPLAY
    assert assistant_messages(chat_engine) == [DISPLAY, FOLLOW_UP_DISPLAY]


def test_as_chat_engine_with_the_cite_synthesizer(qdrant_index):
    llm = ReplayLLM(answers={QUESTION: ANSWER})
    chat_engine = qdrant_index.as_chat_engine(
        chat_mode="condense_question",
        llm=llm,
        similarity_top_k=10,
        response_synthesizer=CiteSynthesizer(llm=llm),
    )
    assert str(chat_engine.chat(QUESTION)) == DISPLAY
    chat_engine.reset()
    streamed = chat_engine.stream_chat(QUESTION)
    assert "".join(streamed.response_gen) == DISPLAY


@pytest.mark.parametrize(
    ("option", "fix"),
    [
        ("context_prompt", "system_template= and/or user_template="),
        ("context_refine_prompt", "refine_template="),
        ("calibration", "CiteQueryEngine's"),
        ("verify", "CiteQueryEngine's"),
        ("judge", "CiteQueryEngine's"),
    ],
)
def test_an_option_from_defaults_would_drop_is_an_argument_error(qdrant_index, option, fix):
    # issue 31: CondensePlusContextChatEngine.from_defaults takes **kwargs and ignores what it does not
    # know; the one options check (cite_core.refuse_options over ELSEWHERE) names where each goes
    refused = rf"CiteChatEngine.from_defaults does not apply {option}= \({option}=: .*{re.escape(fix)}"
    with pytest.raises(ArgumentError, match=refused):
        CiteChatEngine.from_defaults(qdrant_index.as_retriever(), llm=chat_llm(), **{option: object()})


def test_an_option_from_defaults_does_not_know_is_an_argument_error_naming_its_options(qdrant_index):
    with pytest.raises(
        ArgumentError,
        match=r"unknown option\(s\) 'similarity_top_k' \(not an option of "
        r"CiteChatEngine\); it takes .*condense_prompt.*unsupported_threshold",
    ):
        CiteChatEngine.from_defaults(qdrant_index.as_retriever(), llm=chat_llm(), similarity_top_k=3)
