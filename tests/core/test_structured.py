"""cite_structured, StructuredCitationStream: string fields of a structured answer cited, one numbering."""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from cite_core import (
    ArgumentError,
    CitedStructure,
    InvalidMarker,
    PromptError,
    StreamClosedError,
    StructuredCitationStream,
    TokenBudgetError,
    build_messages,
    build_prompt,
    cite_structured,
    number_sources,
    parse_answer,
)

SOURCES = [
    {"text": "The grass is green in spring. Rain falls often in April.", "title": "Garden"},
    {
        "text": "The sky is blue because of Rayleigh scattering.",
        "title": "Sky",
        "url": "https://example.org/s",
    },
    {"text": "Water boils at 100 degrees Celsius at sea level.", "title": "Water"},
]


class Kind(str, Enum):
    fact = "fact [1]"  # an enum member is a choice, never cited even when it looks like a marker


class Step(BaseModel):
    title: str
    detail: str | None = None
    minutes: int = 0
    kind: Kind = Kind.fact


class Plan(BaseModel):
    summary: str
    steps: list[Step]
    note: str | None = None
    done: bool = False


def plan() -> Plan:
    return Plan(
        summary="The sky is blue [2] and the grass is green [1].",
        steps=[
            Step(
                title="Boil the water [3]",
                detail="Water boils at 100 degrees [1, 3]. Run `echo [2]` then.",
                minutes=5,
            ),
            Step(title="Look up [9]"),
            Step(title="No citation here", detail="Plain words."),
        ],
        note=None,
    )


def test_fields_are_cited_with_one_numbering_in_field_order() -> None:
    result = cite_structured(plan(), SOURCES)
    assert isinstance(result, CitedStructure)
    value = result.value
    assert isinstance(value, Plan)
    # the first source cited anywhere is [1]: source 2 (sky), then 1 (grass), then 3 (water)
    assert value.summary == "The sky is blue [1] and the grass is green [2]."
    assert value.steps[0].title == "Boil the water [3]"
    assert value.steps[0].detail == "Water boils at 100 degrees [2][3]. Run `echo [2]` then."
    assert [(r.number, r.source.number) for r in result.references] == [(1, 2), (2, 1), (3, 3)]
    # non-string fields as they were; an enum member is not prose
    assert value.steps[0].minutes == 5 and value.done is False and value.note is None
    assert value.steps[0].kind is Kind.fact
    # the marker in a code span is code, not a citation; the out-of-range one is reported with its path
    assert result.invalid_markers == [InvalidMarker(path="steps[1].title", marker="[9]")]
    assert value.steps[1].title == "Look up"


def test_citations_by_path_holds_cited_fields_only_with_cited_text() -> None:
    result = cite_structured(plan(), SOURCES)
    assert list(result.citations_by_path) == ["summary", "steps[0].title", "steps[0].detail"]
    sources = number_sources(SOURCES)
    for blocks in result.citations_by_path.values():
        for block in blocks:
            for c in block.citations or []:
                assert c.cited_text == sources[c.document_index].text[c.start_char_index : c.end_char_index]
    detail = [c for b in result.citations_by_path["steps[0].detail"] for c in b.citations or []]
    assert [c.document_index for c in detail] == [0, 2]
    # a string without markers is uncited, never guessed
    assert not result.fields["steps[2].detail"].citations
    assert result.fields["steps[2].detail"].text == "Plain words."
    assert result.plain_value.summary == "The sky is blue and the grass is green."


def test_a_field_is_parsed_as_parse_answer_parses_it() -> None:
    result = cite_structured({"a": "The sky is blue [2]. Rain falls often [1]."}, SOURCES)
    alone = parse_answer("The sky is blue [2]. Rain falls often [1].", SOURCES)
    assert result.fields["a"] == alone
    assert result.value == {"a": alone.text}


def test_each_field_lists_the_references_it_cites() -> None:
    result = cite_structured({"a": "Grass is green [1].", "b": "Water boils [3]. Grass [1]."}, SOURCES)
    assert [r.number for r in result.fields["a"].references] == [1]
    assert [r.number for r in result.fields["b"].references] == [1, 2]
    assert result.value == {"a": "Grass is green [1].", "b": "Water boils [2]. Grass [1]."}


def test_dicts_lists_and_odd_keys_have_json_paths() -> None:
    obj = [{"odd key": "Grass is green [1].", "items": ["Sky is blue [2]", 3, None]}, "Water boils [3]."]
    result = cite_structured(obj, SOURCES)
    assert list(result.fields) == ['[0]["odd key"]', "[0].items[0]", "[1]"]
    assert result.value == [
        {"odd key": "Grass is green [1].", "items": ["Sky is blue [2]", 3, None]},
        "Water boils [3].",
    ]
    tuple_result = cite_structured({"t": ("Sky [2]", 1)}, SOURCES)
    assert tuple_result.value == {"t": ("Sky [1]", 1)}


def test_extra_fields_of_a_model_are_cited_after_its_declared_ones() -> None:
    class Loose(BaseModel):
        model_config = ConfigDict(extra="allow")
        title: str

    loose = Loose(title="Sky [2]", extra_text="Grass [1]")  # type: ignore[call-arg]
    result = cite_structured(loose, SOURCES)
    assert list(result.fields) == ["title", "extra_text"]
    assert result.value.extra_text == "Grass [2]"


def test_frozen_models_are_copied_not_mutated() -> None:
    class Frozen(BaseModel):
        model_config = ConfigDict(frozen=True)
        text: str

    original = Frozen(text="Sky [2]")
    result = cite_structured(original, SOURCES)
    assert result.value == Frozen(text="Sky [1]") and original.text == "Sky [2]"


def test_views_render_every_field_and_one_reference_list() -> None:
    result = cite_structured(plan(), SOURCES)
    markdown = result.to_markdown()
    assert "`summary`: The sky is blue [\\[1\\]](#ref-1)" in markdown
    assert markdown.count('<a id="ref-') == 3
    html = result.to_html()
    assert "steps[0].detail: " in html and html.count("cite-ref-entry") >= 0
    anthropic = result.to_anthropic()
    assert anthropic["steps"][0]["minutes"] == 5
    assert anthropic["summary"][0]["citations"][0]["document_index"] == 1
    assert anthropic["steps"][2]["title"] == [{"type": "text", "text": "No citation here"}]
    json.dumps(anthropic)  # JSON-ready
    answer = result.as_answer()
    assert "".join(b.text + b.marker_text for b in answer.content) == answer.text
    assert answer.invalid_markers == ["[9]"]


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ArgumentError, match="parse_answer"):
        cite_structured("The sky [1].", SOURCES)
    with pytest.raises(ArgumentError, match="pydantic model, a dict or a list"):
        cite_structured(42, SOURCES)
    looped: dict[str, Any] = {"a": "x"}
    looped["self"] = looped
    with pytest.raises(ArgumentError, match="contains itself"):
        cite_structured(looped, SOURCES)
    with pytest.raises(ArgumentError, match="two fields have the path"):
        cite_structured({1: "Sky [2].", "1": "Grass [1]."}, SOURCES)


def test_deep_nesting_is_walked() -> None:
    obj: Any = "Sky is blue [2]."
    for _ in range(300):
        obj = {"x": [obj]}
    result = cite_structured(obj, SOURCES)
    assert len(result.references) == 1 and result.references[0].source.number == 2


# -- streaming: partial JSON, one character at a time --------------------------------------------


def close_partial(text: str) -> Any:
    """The JSON value of a prefix of a JSON text, with what is open closed (as LangChain's partial JSON
    parser does); None when no value can be read yet."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            stack.pop()
    body = text[:-1] if escaped else text
    closing = ('"' if in_string else "") + "".join(reversed(stack))
    for candidate in (body + closing, body.rstrip(", :") + closing, body + "null" + closing):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    return None


def stream_partials(obj: Any, sources: Any = SOURCES) -> tuple[list[Any], CitedStructure]:
    """Feed ``obj``'s JSON one character at a time; the distinct partial objects and the result."""
    data = obj.model_dump(mode="json") if isinstance(obj, BaseModel) else obj
    text = json.dumps(data)
    stream = StructuredCitationStream(sources)
    shown: list[Any] = []
    for end in range(1, len(text) + 1):
        partial = close_partial(text[:end])
        if partial is None or isinstance(partial, str):
            continue
        out = stream.update(partial)
        if not shown or out != shown[-1]:
            shown.append(out)
    return shown, stream.finish(obj)


def test_streamed_partials_are_renumbered_and_the_end_equals_the_whole_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = cite_structured(plan(), SOURCES)

    def parsed_again(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a stream in field order finishes its own parses, it does not parse again")

    monkeypatch.setattr("cite_core._answer.structured_stream.cite_structured", parsed_again)
    shown, final = stream_partials(plan())
    assert final == expected
    summaries = [p["summary"] for p in shown if p.get("summary")]
    # the model's [2] is shown as [1] from the start, and an unfinished "[" is never shown
    assert any(s.startswith("The sky is blue [1]") for s in summaries)
    assert all("[2]" not in s.split(" and ")[0] for s in summaries)
    assert all(not s.rstrip().endswith("[") for s in summaries)
    details = [p["steps"][0].get("detail") for p in shown if p.get("steps") and p["steps"][0].get("detail")]
    assert details[-1] == "Water boils at 100 degrees [2][3]. Run `echo [2]` then."
    for partial in shown:
        for step in partial.get("steps") or []:
            assert "[9]" not in (step.get("title") or "")


def test_streamed_dict_in_key_order_other_than_the_model_equals_the_whole_parse() -> None:
    reordered = {"steps": [{"title": "Grass [1]"}], "summary": "Sky [2] and grass [1]."}
    _, final = stream_partials(reordered)
    assert final == cite_structured(reordered, SOURCES)

    # the model's field order differs from the validated model's: the final object is parsed afresh
    class Swapped(BaseModel):
        summary: str
        steps: list[dict[str, str]]

    model = Swapped.model_validate(reordered)
    stream = StructuredCitationStream(SOURCES)
    for end in range(1, len(json.dumps(reordered)) + 1):
        partial = close_partial(json.dumps(reordered)[:end])
        if isinstance(partial, dict):
            stream.update(partial)
    assert stream.finish(model) == cite_structured(model, SOURCES)
    assert cite_structured(model, SOURCES).value.summary == "Sky [1] and grass [2]."


def test_a_partial_that_changes_a_field_falls_back_to_the_whole_parse() -> None:
    stream = StructuredCitationStream(SOURCES)
    assert stream.update({"a": "Sky is blue [2"}) == {"a": "Sky is blue"}
    assert stream.update({"a": "Sky is blue [2]. Grass"}) == {"a": "Sky is blue [1]. Grass"}
    stream.update({"a": "Something else [1]."})  # not a continuation
    final = {"a": "Something else [1]."}
    assert stream.finish(final) == cite_structured(final, SOURCES)
    with pytest.raises(StreamClosedError):
        stream.update(final)
    with pytest.raises(ArgumentError):
        StructuredCitationStream(SOURCES).update("text")


# -- the prompt --------------------------------------------------------------------------------


def test_build_messages_with_a_schema_asks_for_citations_inside_string_fields() -> None:
    plain = build_messages("Plan?", SOURCES)
    messages = build_messages("Plan?", SOURCES, schema=Plan)
    system = messages[0]["content"]
    assert "JSON object of the schema Plan" in system and "inside the string value" in system
    assert "<schema>" not in system and "<schema>" not in plain[0]["content"]
    shown = build_messages("Plan?", SOURCES, schema=Plan, show_schema=True)[0]["content"]
    assert '"title":"Plan"' in shown
    assert "JSON object of the schema X" in build_messages("q", SOURCES, schema={"title": "X"})[0]["content"]
    none = build_messages("Plan?", [], schema=Plan)[0]["content"]
    assert "JSON object of the schema Plan" in none and "inside the string value" not in none
    with pytest.raises(PromptError, match="schema"):
        build_messages("Plan?", SOURCES, schema=42)


def test_the_schema_rule_counts_in_the_token_budget() -> None:
    plain = build_prompt("Plan?", SOURCES, max_tokens=2000)
    structured = build_prompt("Plan?", SOURCES, max_tokens=2000, schema=Plan, show_schema=True)
    assert structured.token_count is not None and plain.token_count is not None
    assert structured.token_count > plain.token_count + 50
    # a budget that holds the plain prompt but not the schema as well drops a source for it
    budget = structured.token_count - 5
    assert len(build_prompt("Plan?", SOURCES, max_tokens=budget).sources) == 3
    tight = build_prompt("Plan?", SOURCES, max_tokens=budget, schema=Plan, show_schema=True)
    assert len(tight.sources) == 2 and tight.token_count is not None and tight.token_count <= budget
    with pytest.raises(TokenBudgetError):
        build_prompt("Plan?", SOURCES, max_tokens=plain.token_count, schema=Plan, show_schema=True)


def test_a_streamed_string_that_ends_as_an_enum_takes_no_display_number() -> None:
    class Choice(str, Enum):
        water = "water [3]"

    class Tagged(BaseModel):
        choice: Choice
        text: str

    final = Tagged(choice=Choice.water, text="The sky is blue [2].")
    _, streamed = stream_partials(final)
    assert streamed == cite_structured(final, SOURCES)
    assert streamed.value.text == "The sky is blue [1]." and streamed.value.choice is Choice.water
