"""CiteSynthesizer(output_cls=...) and CiteQueryEngine.from_args(..., output_cls=...): structured answers
through LlamaIndex's structured LLM (function calling or JSON text), their string fields cited."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from llama_index.core.base.llms import types as llm_types

if not hasattr(llm_types, "ToolCallBlock"):  # the function-calling blocks these tests script
    pytest.skip("llama-index-core < 0.14 has no ToolCallBlock", allow_module_level=True)
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.base.response.schema import PydanticResponse
from llama_index.core.llms import MockFunctionCallingLLM
from llama_index.core.schema import NodeWithScore, TextNode
from pydantic import BaseModel, ValidationError

from cite_core import ArgumentError, CitedStructure, InvalidMarker, cite_structured, number_sources
from llamaindex_cite import CiteQueryEngine, CiteSynthesizer
from tests.llamaindex.conftest import ListRetriever, ReplayLLM

QUESTION = "How does the Sun produce energy?"
TEXTS = [
    "The Sun is a star. In its core, hydrogen nuclei fuse into helium, which releases energy.",
    "The Moon has no light of its own. It reflects the light of the Sun.",
    "Energy from the core takes thousands of years to reach the surface of the Sun.",
]


class Step(BaseModel):
    title: str
    detail: str | None = None
    minutes: int = 0


class Report(BaseModel):
    summary: str
    steps: list[Step]
    caveat: str | None = None


REPLY = {
    "summary": "The Moon only reflects sunlight [2], while the Sun fuses hydrogen [1].",
    "steps": [
        {
            "title": "Fusion in the core [1, 3]",
            "detail": "Hydrogen nuclei fuse into helium [1].",
            "minutes": 3,
        },
        {"title": "A bad citation [7]", "detail": "Energy reaches the surface slowly [3]. See `cfg[2]`."},
    ],
    "caveat": None,
}


def nodes() -> list[NodeWithScore]:
    return [
        NodeWithScore(
            node=TextNode(text=text, id_=f"n{i}", metadata={"title": f"Doc {i}"}), score=1.0 - i / 10
        )
        for i, text in enumerate(TEXTS, start=1)
    ]


def sources() -> list[Any]:
    return number_sources([{"text": t, "title": f"Doc {i}"} for i, t in enumerate(TEXTS, start=1)])


def json_llm(reply: str | None = None) -> ReplayLLM:
    """A completion LLM: LlamaIndex reads the JSON in its text (LLMTextCompletionProgram)."""
    return ReplayLLM(answers={QUESTION: reply or json.dumps(REPLY)})


class ToolLLM(MockFunctionCallingLLM):
    """A function-calling LLM that calls the schema's tool with ``REPLY``; records the messages."""

    def __init__(self, reply: dict[str, Any] = REPLY) -> None:
        seen: list[Sequence[ChatMessage]] = []

        def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
            seen.append(list(messages))
            name = kwargs["tools"][0].metadata.name
            return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_name=name, tool_kwargs=reply)])

        super().__init__(response_generator=respond)
        self._seen = seen


def check_report(response: Any) -> CitedStructure:
    assert isinstance(response, PydanticResponse)
    report = response.response
    assert isinstance(report, Report)
    assert report.summary == "The Moon only reflects sunlight [1], while the Sun fuses hydrogen [2]."
    assert report.steps[0].title == "Fusion in the core [2][3]"
    assert report.steps[1].title == "A bad citation"
    assert report.steps[1].detail == "Energy reaches the surface slowly [3]. See `cfg[2]`."
    assert report.steps[0].minutes == 3 and report.caveat is None
    # the cited nodes only, in reference order, with their numbers
    assert [n.node.node_id for n in response.source_nodes] == ["n2", "n1", "n3"]
    assert [n.node.metadata["reference_number"] for n in response.source_nodes] == [1, 2, 3]
    structure = response.metadata["cited_structure"]
    assert isinstance(structure, CitedStructure)
    assert structure.invalid_markers == [InvalidMarker(path="steps[1].title", marker="[7]")]
    assert response.metadata["invalid_markers"] == [{"path": "steps[1].title", "marker": "[7]"}]
    expected = cite_structured(Report.model_validate(REPLY), sources())
    assert structure.value == expected.value and structure.to_anthropic() == expected.to_anthropic()
    return structure


def test_synthesizer_with_a_json_text_llm() -> None:
    llm = json_llm()
    response = CiteSynthesizer(llm=llm, output_cls=Report).synthesize(QUESTION, nodes())
    check_report(response)
    assert "JSON object of the schema Report" in llm.prompts[0]


def test_synthesizer_with_a_function_calling_llm() -> None:
    llm = ToolLLM()
    assert llm.metadata.is_function_calling_model
    response = CiteSynthesizer(llm=llm, output_cls=Report).synthesize(QUESTION, nodes())
    check_report(response)
    assert "JSON object of the schema Report" in str(llm._seen[0][0].content)


def test_async_synthesis_is_the_same() -> None:
    sync = CiteSynthesizer(llm=json_llm(), output_cls=Report).synthesize(QUESTION, nodes())
    response = asyncio.run(CiteSynthesizer(llm=json_llm(), output_cls=Report).asynthesize(QUESTION, nodes()))
    assert response.response == sync.response
    assert response.metadata["cited_structure"] == sync.metadata["cited_structure"]


def test_query_engine_from_args_with_output_cls() -> None:
    engine = CiteQueryEngine.from_args(ListRetriever(nodes()), llm=json_llm(), output_cls=Report)
    structure = check_report(engine.query(QUESTION))
    assert structure.to_markdown().count('<a id="ref-') == 3
    assert asyncio.run(engine.aquery(QUESTION)).response == engine.query(QUESTION).response


def test_a_reply_that_does_not_validate_raises_as_llamaindex_raises() -> None:
    bad = json.dumps({"summary": "The Sun fuses hydrogen [1].", "steps": "not a list"})
    with pytest.raises(ValidationError):
        CiteSynthesizer(llm=json_llm(bad), output_cls=Report).synthesize(QUESTION, nodes())
    with pytest.raises(ValueError):  # LlamaIndex's output parser finds no JSON
        CiteSynthesizer(llm=json_llm("I cannot answer that."), output_cls=Report).synthesize(
            QUESTION, nodes()
        )
    with pytest.raises(ValueError, match="could not be parsed into Report"):
        CiteSynthesizer(llm=ToolLLM({"summary": 3}), output_cls=Report).synthesize(QUESTION, nodes())


def test_unsupported_combinations_are_argument_errors() -> None:
    with pytest.raises(ArgumentError, match="streaming"):
        CiteSynthesizer(llm=json_llm(), output_cls=Report, streaming=True)
    with pytest.raises(ArgumentError, match="native"):
        CiteSynthesizer(llm=json_llm(), output_cls=Report, native=True)
    with pytest.raises(ArgumentError, match="pydantic model class"):
        CiteSynthesizer(llm=json_llm(), output_cls=dict)  # type: ignore[arg-type]


def test_the_prompt_budget_holds_the_schema_rule() -> None:
    llm = json_llm()
    synthesizer = CiteSynthesizer(llm=llm, output_cls=Report, max_prompt_tokens=260)
    response = synthesizer.synthesize(QUESTION, nodes())
    shown = response.metadata["sources"]
    assert len(shown) < 3  # the schema rule took room a source had
    assert response.metadata["dropped_nodes"]
