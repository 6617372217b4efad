"""create_cited_rag_chain(schema=...): with_structured_output's answer with its string fields cited."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel, ValidationError

from cite_core import ArgumentError, CitedStructure, InvalidMarker, cite_structured
from langchain_cite import StructuredCitationParser, create_cited_rag_chain
from tests.langchain.conftest import QUESTION, ListRetriever
from tests.langchain.structured_fakes import StructuredScriptedModel


class Step(BaseModel):
    title: str
    detail: str | None = None
    minutes: int = 0


class Report(BaseModel):
    summary: str
    steps: list[Step]
    caveat: str | None = None


REPLY = {
    # the model saw sources 1 (The Sun, two chunks merged) and 2 (The Moon); [2] first becomes [1]
    "summary": "The Moon only reflects sunlight [2], while the Sun fuses hydrogen [1].",
    "steps": [
        {
            "title": "Fusion in the core [1, 2]",
            "detail": "Hydrogen nuclei fuse into helium [1].",
            "minutes": 3,
        },
        {"title": "A bad citation [5]", "detail": "Energy reaches the surface slowly [1]. See `cfg[2]`."},
    ],
    "caveat": None,
}


def model(**kwargs: Any) -> StructuredScriptedModel:
    return StructuredScriptedModel(replies=[json.dumps(REPLY)], **kwargs)


def sources_of(chain_input: Any, retriever: ListRetriever) -> Any:
    from langchain_cite import CitationSources

    return CitationSources().invoke({"question": QUESTION, "documents": retriever.invoke(QUESTION)})[
        "sources"
    ]


def test_invoke_returns_the_cited_structure(retriever: ListRetriever) -> None:
    llm = model()
    result = create_cited_rag_chain(retriever, llm, schema=Report).invoke(QUESTION)
    assert isinstance(result, CitedStructure)
    report = result.value
    assert isinstance(report, Report)
    assert report.summary == "The Moon only reflects sunlight [1], while the Sun fuses hydrogen [2]."
    assert report.steps[0].title == "Fusion in the core [2][1]"
    assert report.steps[0].minutes == 3 and report.caveat is None
    assert report.steps[1].title == "A bad citation"
    assert report.steps[1].detail == "Energy reaches the surface slowly [2]. See `cfg[2]`."
    assert result.invalid_markers == [InvalidMarker(path="steps[1].title", marker="[5]")]
    assert [ref.source.title for ref in result.references] == ["The Moon", "The Sun"]
    detail = result.citations_by_path["steps[0].detail"][0].citations or []
    assert "hydrogen nuclei fuse into helium" in detail[0].cited_text
    # the prompt asked for citations inside the string fields of the schema
    system = llm.prompts[0][0].content
    assert "JSON object of the schema Report" in system and "<schema>" not in system
    # the same as citing the validated object with the core
    assert result == cite_structured(Report.model_validate(REPLY), sources_of(QUESTION, retriever))


@pytest.mark.parametrize("fenced", [False, True])
def test_json_mode_is_cited_the_same_and_shows_the_schema(retriever: ListRetriever, fenced: bool) -> None:
    llm = model(fenced=fenced)
    chain = create_cited_rag_chain(retriever, llm, schema=Report, structured_output={"method": "json_mode"})
    tools = create_cited_rag_chain(retriever, model(), schema=Report).invoke(QUESTION)
    assert chain.invoke(QUESTION) == tools
    assert '"title":"Report"' in llm.prompts[0][0].content  # JSON mode does not send the schema otherwise


@pytest.mark.parametrize("method", ["function_calling", "json_mode"])
def test_stream_yields_renumbered_partials_then_what_invoke_returns(
    retriever: ListRetriever, method: str
) -> None:
    options = {"structured_output": {"method": method}}
    expected = create_cited_rag_chain(retriever, model(), schema=Report, **options).invoke(QUESTION)
    items = list(create_cited_rag_chain(retriever, model(), schema=Report, **options).stream(QUESTION))
    *partials, final = items
    assert final == expected
    assert len(partials) > 50  # one character at a time: many partial objects
    assert all(isinstance(p, dict) for p in partials)
    summaries = [p["summary"] for p in partials if p.get("summary")]
    assert any(s.startswith("The Moon only reflects sunlight [1]") for s in summaries)
    assert not any("[2]" in s.split(",")[0] for s in summaries)  # the model's [2] is never shown
    for partial in partials:
        for step in partial.get("steps") or []:
            assert "[5]" not in (step.get("title") or "")
            assert not (step.get("title") or "").endswith("[")
    last_steps = [p["steps"] for p in partials if p.get("steps")][-1]
    assert last_steps[1]["detail"] == expected.value.steps[1].detail


def test_astream_and_ainvoke_agree(retriever: ListRetriever) -> None:
    async def run() -> tuple[Any, list[Any]]:
        chain = create_cited_rag_chain(retriever, model(), schema=Report)
        value = await chain.ainvoke(QUESTION)
        items = [
            item async for item in create_cited_rag_chain(retriever, model(), schema=Report).astream(QUESTION)
        ]
        return value, items

    value, items = asyncio.run(run())
    assert items[-1] == value and len(items) > 2


def test_output_message_is_an_ai_message_with_the_cited_object(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, model(), schema=Report, output="message")
    message = chain.invoke(QUESTION)
    assert isinstance(message, AIMessage)
    expected = create_cited_rag_chain(retriever, model(), schema=Report).invoke(QUESTION)
    assert json.loads(message.content)["summary"] == expected.value.summary  # type: ignore[arg-type]
    assert message.additional_kwargs["parsed"] == expected.value
    assert list(message.additional_kwargs["citations_by_path"]) == list(expected.citations_by_path)
    assert [r["title"] for r in message.additional_kwargs["references"]] == ["The Moon", "The Sun"]
    assert message.additional_kwargs["invalid_markers"] == [{"path": "steps[1].title", "marker": "[5]"}]
    assert message.usage_metadata is not None and message.usage_metadata["total_tokens"] == 30
    assert not message.tool_calls
    streamed = list(
        create_cited_rag_chain(retriever, model(), schema=Report, output="message").stream(QUESTION)
    )
    assert len(streamed) == 1 and streamed[0].content == message.content


def test_a_reply_that_does_not_validate_raises_what_langchain_raises(retriever: ListRetriever) -> None:
    bad = json.dumps({"summary": "The Sun fuses hydrogen [1].", "steps": "not a list"})
    with pytest.raises(ValidationError):
        StructuredScriptedModel(replies=[bad]).with_structured_output(Report).invoke("q")
    for stream in (False, True):
        chain = create_cited_rag_chain(retriever, StructuredScriptedModel(replies=[bad]), schema=Report)
        with pytest.raises(ValidationError):
            list(chain.stream(QUESTION)) if stream else chain.invoke(QUESTION)
    json_chain = create_cited_rag_chain(
        retriever,
        StructuredScriptedModel(replies=["no JSON here"]),
        schema=Report,
        structured_output={"method": "json_mode"},
    )
    from langchain_core.exceptions import OutputParserException

    with pytest.raises(OutputParserException):
        json_chain.invoke(QUESTION)


def test_no_tool_call_is_a_clear_error_not_an_empty_answer(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, StructuredScriptedModel(replies=["{not json"]), schema=Report)
    from langchain_core.exceptions import OutputParserException

    with pytest.raises(OutputParserException, match="no structured output"):
        chain.invoke(QUESTION)


def test_bad_options_are_argument_errors(retriever: ListRetriever) -> None:
    with pytest.raises(ArgumentError, match="native"):
        create_cited_rag_chain(retriever, model(), schema=Report, native=True)
    with pytest.raises(ArgumentError, match="output"):
        create_cited_rag_chain(retriever, model(), schema=Report, output="text")
    with pytest.raises(ArgumentError, match="include_raw"):
        create_cited_rag_chain(retriever, model(), schema=Report, structured_output={"include_raw": True})


def test_the_parser_alone_over_a_parsed_object(retriever: ListRetriever) -> None:
    sources = sources_of(QUESTION, retriever)
    parser = StructuredCitationParser()
    result = parser.invoke({"sources": sources, "message": Report.model_validate(REPLY)})
    assert result == cite_structured(Report.model_validate(REPLY), sources)


def test_a_json_schema_dict_gives_a_cited_dict(retriever: ListRetriever) -> None:
    schema = Report.model_json_schema()
    result = create_cited_rag_chain(retriever, model(), schema=schema).invoke(QUESTION)
    expected = create_cited_rag_chain(retriever, model(), schema=Report).invoke(QUESTION)
    assert isinstance(result.value, dict)
    assert result.value["summary"] == expected.value.summary
    assert result.value["steps"][1]["detail"] == expected.value.steps[1].detail
    assert result.citations_by_path == expected.citations_by_path
    *_, streamed = create_cited_rag_chain(retriever, model(), schema=schema).stream(QUESTION)
    assert streamed == result


def test_a_model_without_structured_output_is_a_clear_error(retriever: ListRetriever) -> None:
    from langchain_core.language_models import FakeListChatModel

    with pytest.raises(ArgumentError, match="with_structured_output is not implemented"):
        create_cited_rag_chain(retriever, FakeListChatModel(responses=["{}"]), schema=Report)
