"""A cut-off answer (finish_reason "length") through the real OpenAILike client: the dangling marker
dropped and a note, the same whole and streamed (``...reflects [2`` showed ``[2`` with no note)."""

from __future__ import annotations

import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import answer_notes
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
