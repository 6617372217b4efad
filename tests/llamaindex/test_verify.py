"""verify=True in LlamaIndex: CiteSynthesizer and CiteQueryEngine check the cited claims with the LLM
(or judge=) in one call after the answer ends; streaming verifies after the last token and fires a
VerificationEvent; calibration= sets the flag threshold."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.schema import NodeWithScore, TextNode

from cite_core import ArgumentError, calibrate_flag
from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever

ANSWER = "Goose eggs take 28 to 32 days [1]. Paris is the French capital [2]."
VERDICTS = json.dumps(
    {
        "claims": [
            {"id": 1, "verdict": "contradicted", "reason": "35 days"},
            {"id": 2, "verdict": "supported", "reason": "stated"},
        ]
    }
)


class Script(CustomLLM):
    """Answers each call with the next scripted reply (streamed a character at a time); records prompts."""

    script: list[str] = Field(default_factory=list, description="Replies, one per call.")
    _prompts: list[str] = PrivateAttr(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4000, num_output=200, model_name="script")

    def _reply(self, prompt: str) -> str:
        self._prompts.append(prompt)
        return self.script[len(self._prompts) - 1]

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._reply(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        reply = self._reply(prompt)

        def gen() -> Iterator[CompletionResponse]:
            for i, char in enumerate(reply):
                yield CompletionResponse(text=reply[: i + 1], delta=char)

        return gen()


def nodes() -> list[NodeWithScore]:
    texts = ["Most goose eggs take from 28 to 35 days to hatch.", "Paris is the capital of France."]
    return [NodeWithScore(node=TextNode(text=t, id_=f"n{i}"), score=1.0) for i, t in enumerate(texts)]


def levels(answer: Any) -> list[str]:
    return [v.level for v in answer.verdicts if v is not None]


def test_the_synthesizer_verifies_with_its_llm_in_one_more_call() -> None:
    llm = Script(script=[ANSWER, VERDICTS])
    response = CiteSynthesizer(llm=llm, verify=True).synthesize("Q?", nodes())
    assert len(llm._prompts) == 2 and '<claim id="1">' in llm._prompts[1]
    assert levels(response.metadata["cited_answer"]) == ["contradicted", "supported"]
    assert response.metadata["verification"].calls == 1
    assert str(response) == "Goose eggs take 28 to 32 days [1]. Paris is the French capital [2]."


def test_without_verify_nothing_more_is_called() -> None:
    llm = Script(script=[ANSWER])
    response = CiteSynthesizer(llm=llm).synthesize("Q?", nodes())
    assert len(llm._prompts) == 1 and "verification" not in response.metadata


def test_a_judge_of_ones_own_and_async() -> None:
    judge = Script(script=[VERDICTS])
    llm = Script(script=[ANSWER])
    response = asyncio.run(CiteSynthesizer(llm=llm, verify=judge).asynthesize("Q?", nodes()))
    assert len(llm._prompts) == 1 and len(judge._prompts) == 1
    assert levels(response.metadata["cited_answer"]) == ["contradicted", "supported"]


class Events(BaseEventHandler):
    seen: list[str] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "Events"

    def handle(self, event: Any, **kwargs: Any) -> None:
        self.seen.append(event.class_name())


def test_a_stream_is_verified_after_its_last_token_with_an_event() -> None:
    handler = Events()
    get_dispatcher().add_event_handler(handler)
    try:
        llm = Script(script=[ANSWER, VERDICTS])
        engine = CiteQueryEngine.from_args(ListRetriever(nodes()), llm=llm, streaming=True, verify=True)
        response = engine.query("Q?")
        tokens = list(response.response_gen)
        assert "".join(tokens) == ANSWER
        assert levels(response.answer) == ["contradicted", "supported"]
        assert response.metadata["verification"].claims == 2
        assert "VerificationEvent" in handler.seen
        assert handler.seen.index("VerificationEvent") > handler.seen.index("SynthesizeEndEvent")
    finally:
        get_dispatcher().event_handlers.remove(handler)


def test_the_engine_takes_a_judge_and_refuses_one_without_verify() -> None:
    judge = Script(script=[VERDICTS])
    engine = CiteQueryEngine.from_args(
        ListRetriever(nodes()), llm=Script(script=[ANSWER]), verify=True, judge=judge
    )
    assert levels(engine.query("Q?").metadata["cited_answer"]) == ["contradicted", "supported"]
    lone = CiteQueryEngine.from_args(ListRetriever(nodes()), llm=Script(script=[ANSWER]), judge=judge)
    with pytest.raises(ArgumentError, match="verify=True"):
        lone.query("Q?")


def test_a_calibration_sets_the_engines_flag_threshold() -> None:
    source = "The harbour opened in 1850. Ferries leave every hour for the island."
    examples = [("The harbour opened in 1850.", source, True)] * 10 + [
        ("The zoo has tigers.", source, False)
    ] * 10
    calibration = calibrate_flag(examples)
    engine = CiteQueryEngine.from_args(
        ListRetriever(nodes()), llm=Script(script=[ANSWER]), calibration=calibration
    )
    answer = engine.query("Q?").metadata["cited_answer"]
    assert answer.unsupported_threshold == calibration.threshold
