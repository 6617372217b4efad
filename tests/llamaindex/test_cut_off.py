"""A cut-off answer (finish_reason "length") through the real OpenAILike client: the dangling marker
dropped and a note, the same whole and streamed (``...reflects [2`` showed ``[2`` with no note)."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.schema import NodeWithScore, TextNode
from pydantic import BaseModel

from cite_core import TruncatedOutputError, answer_notes
from llamaindex_cite import CiteSynthesizer
from tests.conformance.matrix import DOCUMENTS, Reply, openai_server

OpenAILike = pytest.importorskip("llama_index.llms.openai_like").OpenAILike

CUT = "The Sun fuses hydrogen into helium in its core [1]. The Moon reflects [2"


def nodes() -> list[NodeWithScore]:
    return [NodeWithScore(node=TextNode(text=DOCUMENTS[n]["text"]), score=1.0) for n in ("sun", "moon")]


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("finish_reason", ["length", "stop"])
def test_a_reply_cut_off_at_the_token_limit_says_so(streaming: bool, finish_reason: str) -> None:
    with openai_server([Reply(CUT, finish_reason=finish_reason)]) as server:
        llm = OpenAILike(model="m", api_base=server.base_url, api_key="x", is_chat_model=True, max_retries=0)
        response = CiteSynthesizer(llm=llm, streaming=streaming).synthesize("Why?", nodes())
        if streaming:
            shown = "".join(response.response_gen)
            assert shown == str(response)
    answer = response.metadata["cited_answer"]
    if finish_reason == "length":
        assert str(response) == "The Sun fuses hydrogen into helium in its core [1]. The Moon reflects"
        assert answer.truncated and [n.kind for n in answer_notes(answer)] == ["truncated"]
    else:
        assert str(response).endswith("[2") and not answer.truncated


class Fact(BaseModel):
    claim: str


@pytest.mark.parametrize("use_async", [False, True])
def test_a_structured_reply_cut_off_at_the_token_limit_is_a_truncated_output_error(use_async: bool) -> None:
    """Issue 31: a structured answer cut off raised LlamaIndex's misleading "Could not extract json"
    ValueError; it is cite_core's TruncatedOutputError, as LangChain's invoke and stream raise."""
    cut = '{"claim": "The Sun fuses hydrogen [1'
    for finish_reason, error in (("length", TruncatedOutputError), ("stop", ValueError)):
        with openai_server([Reply(cut, finish_reason=finish_reason)]) as server:
            llm = OpenAILike(
                model="m", api_base=server.base_url, api_key="x", is_chat_model=True, max_retries=0
            )
            synthesizer = CiteSynthesizer(llm=llm, output_cls=Fact)
            with pytest.raises(error) as info:
                if use_async:
                    asyncio.run(synthesizer.asynthesize("Why?", nodes()))
                else:
                    synthesizer.synthesize("Why?", nodes())
        if finish_reason == "stop":  # not cut off: LlamaIndex's own error, untouched
            assert not isinstance(info.value, TruncatedOutputError)
        else:
            assert "cut off" in str(info.value)
