"""CitePostprocessor.cite() after a streaming loop gives this query's whole answer or a clear error
(interleaved and concurrent queries, partial reads, LLMs without end events); the caller's
QueryBundle is left as it was; the instructions fit a small context window or say what does not fit."""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from llama_index.core.llms import CompletionResponse, CompletionResponseGen
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers import refine
from llama_index.core.schema import NodeWithScore, QueryBundle

from cite_core import CiteError, TokenBudgetError, brief_citation_instructions, citation_instructions
from llamaindex_cite import CitePostprocessor
from tests.llamaindex.conftest import ListRetriever, ReplayLLM, nodes

PADDING = getattr(refine, "DEFAULT_RESPONSE_PADDING_SIZE", 0)
"""What LlamaIndex's compact keeps free beside the answer (500 since 0.14, none before): the windows
below are that much larger, so they leave the same room on every supported llama-index-core."""
COUNT = 16
QUESTIONS = [f"Question {i}: what did Mara Lind do?" for i in range(COUNT)]
ANSWERS = {q: f"In answer {i}, Mara Lind grew up in Kessby [1]." for i, q in enumerate(QUESTIONS)}


def _engine(llm: Any, cite: CitePostprocessor, *, streaming: bool = True) -> RetrieverQueryEngine:
    retriever = ListRetriever([NodeWithScore(node=n, score=1.0) for n in nodes()[:3]])
    return RetrieverQueryEngine.from_args(retriever, llm=llm, node_postprocessors=[cite], streaming=streaming)


def _expected(question: str) -> str:
    return ANSWERS[question]  # the three nodes are one document: source [1], shown as [1]


def test_interleaved_streams_each_cite_their_own_answer():
    cite = CitePostprocessor()
    engine = _engine(ReplayLLM(answers=ANSWERS), cite)
    responses = [(q, engine.query(q)) for q in QUESTIONS]  # 16 streams open, none read yet
    order = list(range(COUNT))
    random.Random(7).shuffle(order)
    for i in order:  # read in another order than asked: the latest answer is another query's
        question, response = responses[i]
        assert "".join(response.response_gen) == ANSWERS[question]
    for i in reversed(order):
        question, response = responses[i]
        assert str(cite.cite(response)) == _expected(question)


def test_concurrent_streams_each_cite_their_own_answer():
    cite = CitePostprocessor()
    engine = _engine(ReplayLLM(answers=ANSWERS), cite)

    def ask(question: str) -> str:
        response = engine.query(question)
        for _ in response.response_gen:  # the standard streaming loop
            pass
        return str(cite.cite(response))

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(ask, QUESTIONS)) == [_expected(q) for q in QUESTIONS]


async def test_concurrent_async_streams_each_cite_their_own_answer():
    import asyncio

    cite = CitePostprocessor()
    engine = _engine(ReplayLLM(answers=ANSWERS), cite)

    async def ask(question: str) -> str:
        response = await engine.aquery(question)
        async for _ in response.response_gen:
            await asyncio.sleep(0)  # interleave the readers
        cited = await cite.acite(response)
        return "".join([t async for t in cited.async_response_gen()])

    assert await asyncio.gather(*(ask(q) for q in QUESTIONS)) == [_expected(q) for q in QUESTIONS]


def test_after_a_partial_read_cite_gives_the_whole_answer():
    cite = CitePostprocessor()
    engine = _engine(ReplayLLM(answers=ANSWERS), cite)
    response = engine.query(QUESTIONS[3])
    tokens = response.response_gen
    assert "".join(next(tokens) for _ in range(10)) == ANSWERS[QUESTIONS[3]][:10]
    assert str(cite.cite(response)) == _expected(QUESTIONS[3])  # not only the unread remainder


class SilentLLM(ReplayLLM):
    """An LLM that fires no LlamaIndex events (its methods are not wrapped by the LLM callbacks)."""

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._answer(prompt))

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        answer = self._answer(prompt)

        def gen() -> Iterator[CompletionResponse]:
            for i, char in enumerate(answer):
                yield CompletionResponse(text=answer[: i + 1], delta=char)

        return gen()


def test_an_llm_without_end_events_gives_a_clear_error_not_none():
    cite = CitePostprocessor()
    engine = _engine(SilentLLM(answers=ANSWERS), cite)
    response = engine.query(QUESTIONS[0])
    assert "".join(response.response_gen) == ANSWERS[QUESTIONS[0]]
    with pytest.raises(CiteError, match="call cite\\(response\\) before reading the stream"):
        cite.cite(response)
    unread = engine.query(QUESTIONS[1])  # cited before reading: works with any LLM
    assert "".join(cite.cite(unread).response_gen) == _expected(QUESTIONS[1])


def test_the_callers_query_bundle_is_left_as_it_was():
    llm = ReplayLLM(answers=ANSWERS)
    bundle = QueryBundle(QUESTIONS[2])
    response = _engine(llm, CitePostprocessor(), streaming=False).query(bundle)
    assert bundle.query_str == QUESTIONS[2]
    assert citation_instructions(1) in llm.prompts[-1]  # the synthesizer saw the instructions
    assert str(CitePostprocessor().cite(response)) == _expected(QUESTIONS[2])
    streaming = _engine(llm, CitePostprocessor()).query(bundle)
    assert bundle.query_str == QUESTIONS[2]
    "".join(streaming.response_gen)
    assert citation_instructions(1) in llm.prompts[-1]


def test_a_small_context_window_gets_the_brief_instructions():
    # LlamaIndex's compact leaves this LLM less room than the full instructions take (Chunk size ... is
    # not positive, raised by LlamaIndex, before); without the postprocessor the engine works
    llm = ReplayLLM(answers=ANSWERS, context_window=200 + PADDING, num_output=20)
    _engine(llm, CitePostprocessor(instruct=False), streaming=False).query(QUESTIONS[4])
    response = _engine(llm, CitePostprocessor(llm=llm), streaming=False).query(QUESTIONS[4])
    assert brief_citation_instructions(1) in llm.prompts[-1]
    assert citation_instructions(1) not in llm.prompts[-1]
    assert str(CitePostprocessor().cite(response)) == _expected(QUESTIONS[4])


def test_instructions_that_cannot_fit_say_so():
    llm = ReplayLLM(answers=ANSWERS, context_window=120 + PADDING, num_output=20)
    with pytest.raises(TokenBudgetError, match="less num_output=20"):
        _engine(llm, CitePostprocessor(llm=llm), streaming=False).query(QUESTIONS[5])
