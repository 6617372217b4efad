"""create_cited_rag_chain(..., verify=True): the chain's model (or judge=) checks every cited claim in
one call after the answer ends; the stream yields a VerificationDelta before the verified answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda

from cite_core import ArgumentError, CitedAnswer, VerificationDelta, calibrate_flag
from langchain_cite import CitationOutputParser, CitedRagAnswer, create_cited_rag_chain

DOCS = [
    Document(page_content="Most goose eggs take from 28 to 35 days to hatch."),
    Document(page_content="Paris is the capital of France."),
]
ANSWER = "Goose eggs take 28 to 32 days [1]. Paris is the French capital [2]."
VERDICTS = json.dumps(
    {
        "claims": [
            {"id": 1, "verdict": "contradicted", "reason": "35 days"},
            {"id": 2, "verdict": "supported", "reason": "stated"},
        ]
    }
)
retriever = RunnableLambda(lambda query: DOCS)


def levels(answer: CitedAnswer) -> list[str]:
    return [v.level for v in answer.verdicts if v is not None]


def test_invoke_verifies_with_the_chains_model() -> None:
    llm = FakeListChatModel(responses=[ANSWER, VERDICTS])
    answer = create_cited_rag_chain(retriever, llm, verify=True).invoke("How long?")
    assert isinstance(answer, CitedRagAnswer) and answer.documents  # still the chain's answer type
    assert levels(answer) == ["contradicted", "supported"]
    assert answer.verification is not None and answer.verification.calls == 1
    assert answer.verification.judge == "langchain:FakeListChatModel"


def test_the_stream_ends_with_the_verification_then_the_verified_answer() -> None:
    llm = FakeListChatModel(responses=[ANSWER, VERDICTS])
    items = list(create_cited_rag_chain(retriever, llm, verify=True).stream("How long?"))
    kinds = [type(i).__name__ for i in items]
    assert kinds[-2:] == ["VerificationDelta", "CitedRagAnswer"]
    assert kinds.count("VerificationDelta") == 1 and kinds.index("VerificationDelta") > kinds.index(
        "TextDelta"
    )
    delta, answer = items[-2], items[-1]
    assert isinstance(delta, VerificationDelta) and delta.verification == answer.verification
    assert "".join(i.text for i in items if type(i).__name__ == "TextDelta") == answer.plain_text


def test_async_stream_and_a_judge_of_ones_own() -> None:
    judge = FakeListChatModel(responses=[VERDICTS])
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[ANSWER]), verify=True, judge=judge)

    async def run() -> list[Any]:
        return [item async for item in chain.astream("How long?")]

    items = asyncio.run(run())
    assert levels(items[-1]) == ["contradicted", "supported"]
    assert isinstance(items[-2], VerificationDelta)


def test_verify_needs_the_answer_output_and_judge_needs_verify() -> None:
    llm = FakeListChatModel(responses=[ANSWER])
    with pytest.raises(ArgumentError, match='output="answer"'):
        create_cited_rag_chain(retriever, llm, verify=True, output="text")
    with pytest.raises(ArgumentError, match="verify=True"):
        create_cited_rag_chain(retriever, llm, judge=llm)


def test_a_calibration_sets_the_flag_threshold() -> None:
    source = "The harbour opened in 1850. Ferries leave every hour for the island."
    examples = [("The harbour opened in 1850.", source, True)] * 10
    examples += [("The zoo has tigers.", source, False)] * 10
    calibration = calibrate_flag(examples)
    llm = FakeListChatModel(responses=[ANSWER])
    answer = create_cited_rag_chain(retriever, llm, calibration=calibration).invoke("How long?")
    assert answer.unsupported_threshold == calibration.threshold
    parser = CitationOutputParser(calibration=calibration, unsupported_threshold=0.9)
    with pytest.raises(ArgumentError, match="not both"):
        parser.invoke({"sources": DOCS, "message": ANSWER})
