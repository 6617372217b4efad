"""Reasoning models through LlamaIndex: a lone </think> (R1 distills, QwQ), a model cut off while
thinking, and reasoning that arrives beside the text (ThinkingBlock, thinking_delta) (issue 23 items 1-3)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import pytest
from llama_index.core.base.llms import types as llm_types
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    TextBlock,
)
from llama_index.core.schema import QueryBundle

from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ANSWER, DISPLAY, QUESTION, ReplayLLM

THINKING = "The user asks about childhood. Source [5] mentions the lighthouse; I will cite [2] and [4]."


def engine(index: Any, llm: Any, streaming: bool = False) -> Any:
    return index.as_query_engine(
        llm=llm, similarity_top_k=10, response_synthesizer=CiteSynthesizer(llm=llm, streaming=streaming)
    )


def test_text_before_a_lone_closing_tag_is_reasoning_whole_and_streamed(qdrant_index):
    llm = ReplayLLM(answers={QUESTION: f"{THINKING}\n</think>\n\n{ANSWER}"})
    whole = CiteQueryEngine.from_args(qdrant_index, llm=llm, similarity_top_k=10).query(QUESTION)
    answer = whole.metadata["cited_answer"]
    assert str(whole) == DISPLAY and answer.reasoning.strip() == THINKING
    assert [r.source.number for r in answer.references] == [3, 1, 2]  # not [5] nor [4] of the thinking
    streamed = engine(qdrant_index, llm, streaming=True).query(QUESTION)
    tokens = list(streamed.response_gen)
    assert streamed.answer == answer and str(streamed) == DISPLAY
    assert streamed.citations == answer.citations  # the reasoning's citations were taken back
    assert "".join(tokens).endswith(DISPLAY)
    assert {n.node.node_id for n in streamed.source_nodes} == {n.node.node_id for n in whole.source_nodes}


def test_a_model_cut_off_while_thinking_answers_empty_not_none(qdrant_index):
    llm = ReplayLLM(answers={QUESTION: f"<think>{THINKING} Now the answer"})
    for query_engine in (engine(qdrant_index, llm), CiteQueryEngine.from_args(qdrant_index, llm=llm)):
        response = query_engine.query(QUESTION)
        answer = response.metadata["cited_answer"]
        assert str(response) == "" and response.response == ""
        assert answer.stopped_in_reasoning and answer.reasoning.startswith("The user asks")
        assert response.source_nodes == []
        assert "stopped while still reasoning" in answer.to_markdown()
    streamed = engine(qdrant_index, llm, streaming=True).query(QUESTION)
    assert list(streamed.response_gen) == [] and str(streamed) == ""
    assert streamed.answer is not None and streamed.answer.stopped_in_reasoning


class ThinkingLLM(ReplayLLM):
    """A chat model that returns its reasoning beside the text, as llama-index-llms-openai does for
    ``reasoning_content``: a ``ThinkingBlock`` whole, ``thinking_delta`` when streaming."""

    def _reply(self, messages: Sequence[ChatMessage]) -> str:
        return self._answer("\n".join(str(m.content) for m in messages))

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        blocks = [llm_types.ThinkingBlock(content=THINKING), TextBlock(text=self._reply(messages))]
        return ChatResponse(message=ChatMessage(role="assistant", blocks=blocks))

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        text = self._reply(messages)

        def gen() -> Iterator[ChatResponse]:
            for i in range(0, len(THINKING), 7):
                piece = THINKING[i : i + 7]
                yield ChatResponse(
                    message=ChatMessage(role="assistant", content=""),
                    delta="",
                    additional_kwargs={"thinking_delta": piece},
                )
            for i in range(0, len(text), 5):
                yield ChatResponse(
                    message=ChatMessage(role="assistant", content=text[: i + 5]), delta=text[i : i + 5]
                )

        return gen()

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.chat(messages)

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        async def gen() -> AsyncIterator[ChatResponse]:
            for response in self.stream_chat(messages):
                yield response

        return gen()


@pytest.mark.skipif(
    not hasattr(llm_types, "ThinkingBlock"), reason="llama-index-core < 0.14 has no ThinkingBlock"
)
def test_thinking_blocks_and_thinking_deltas_go_to_reasoning(qdrant_index):
    llm = ThinkingLLM(answers={QUESTION: ANSWER})
    for streaming in (False, True):
        response = engine(qdrant_index, llm, streaming).query(QUESTION)
        answer = response.consume() if streaming else response.metadata["cited_answer"]
        assert answer.reasoning == THINKING, streaming
        assert answer.text == DISPLAY and [r.source.number for r in answer.references] == [3, 1, 2]

    async def both() -> list[Any]:
        nodes = engine(qdrant_index, llm).retrieve(QueryBundle(QUESTION))
        whole = await CiteSynthesizer(llm=llm).asynthesize(QUESTION, nodes)
        streamed = await CiteSynthesizer(llm=llm, streaming=True).asynthesize(QUESTION, nodes)
        return [whole.metadata["cited_answer"], await streamed.consume()]

    for answer in asyncio.run(both()):
        assert answer.reasoning == THINKING and answer.text == DISPLAY
