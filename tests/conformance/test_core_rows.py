"""The core's rows of the conformance matrix: ``parse_answer``, ``CitationStream`` and ``CitationSession``.

The core reads model text, not a model: each cell feeds the scenario's scripted reply as the framework
rows' models send it (the stream in the reply's chunks), so the framework rows differ from these only
by what the adapter adds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cite_core import (
    ArgumentError,
    CitationStream,
    CitedAnswer,
    StructuredCitationStream,
    cite_structured,
    number_sources,
    parse_answer,
    verify,
)

from .matrix import DOCUMENTS, SCENARIOS, Reply, Row, calibration, check_scenario, judge_reply, run_cell, seen

ROOT = Path(__file__).resolve().parents[2]


def items(names: tuple[str, ...]) -> list[dict[str, Any]]:
    """The scenario's documents as core items (with their document ids)."""
    return [
        {"text": DOCUMENTS[n]["text"], "title": DOCUMENTS[n]["title"], "document_id": DOCUMENTS[n]["id"]}
        for n in names
    ]


def reply(name: str) -> Reply:
    return SCENARIOS[name].replies[-1]


def streamed(stream: CitationStream, r: Reply, *, truncated: bool = False) -> tuple[str, CitedAnswer]:
    """The display text a reader saw stream (``display=True``), and the finished answer."""
    events = []
    if r.reasoning:
        events += stream.feed_reasoning(r.reasoning)
    for i in range(0, len(r.content), r.chunk):
        events += stream.feed(r.content[i : i + r.chunk])
    answer = stream.finish(truncated=truncated)
    events += stream.pending_events()
    shown = ""
    for event in events:  # an answer_reset (a lone </think>): what streamed so far was reasoning
        shown = (
            ""
            if event.type == "answer_reset"
            else shown + (event.text if event.type == "display_delta" else "")
        )
    return shown, answer


def _truncated(r: Reply) -> bool:
    return r.finish_reason in ("length", "max_tokens")


# -- parse_answer and CitationStream: one answer over one numbering -----------------------------------


def answer_cell(name: str, *, stream: bool) -> Callable[[], None]:
    def cell() -> None:
        scenario, r = SCENARIOS[name], reply(name)
        sources = number_sources(items(scenario.documents))
        whole = parse_answer(r.content, sources, reasoning=r.reasoning, truncated=_truncated(r))
        if stream:
            text, answer = streamed(CitationStream(sources, display=True), r, truncated=_truncated(r))
            assert answer == whole
            check_scenario(name, text, answer, seen(scenario.documents))
        else:
            check_scenario(name, None, whole, seen(scenario.documents))
        if r.reasoning or "think>" in r.content:
            assert "[9]" not in whole.text and not whole.invalid_markers and "Source [2]" in whole.reasoning

    return cell


def structured_cell(*, stream: bool) -> None:
    scenario = SCENARIOS["structured"]
    sources = number_sources(items(scenario.documents))
    value = json.loads(reply("structured").content)
    whole = cite_structured(value, sources)
    if stream:
        parser = StructuredCitationStream(sources)
        partial: dict[str, str] = {}
        for key, text in value.items():  # partial objects as a JSON stream parser gives them
            for i in range(0, len(text) + 1, 3):
                partial[key] = text[:i]
                parser.update(dict(partial))
        assert parser.finish(value) == whole
    check_scenario("structured", None, whole.as_answer(), seen(scenario.documents))


def verify_cell() -> None:
    scenario = SCENARIOS["verify_calibration"]
    sources = number_sources(items(scenario.documents))
    calibrated = calibration()
    answer = parse_answer(reply("verify_calibration").content, sources, calibration=calibrated)
    assert answer.unsupported_threshold == calibrated.threshold
    checked = verify(answer, lambda prompt: judge_reply(2))
    check_scenario("verify_calibration", None, checked, seen(scenario.documents))
    assert [v.level for v in checked.verdicts if v is not None] == ["supported", "supported"]
    with pytest.raises(ArgumentError):
        parse_answer("x [1].", sources, calibration="0.5")  # type: ignore[arg-type]


_ONE_ANSWER = "one answer over one numbering; a conversation's numbers are CitationSession's row"

ROWS = [
    Row(
        "cite_core.parse_answer",
        ("parse_answer", "cite_structured", "verify", "calibrate_flag"),
        {
            **{n: answer_cell(n, stream=False) for n in SCENARIOS},
            "history": _ONE_ANSWER,
            "reload": _ONE_ANSWER,
            "parallel_tools": _ONE_ANSWER,
            "follow_up_number": _ONE_ANSWER,
            "structured": lambda: structured_cell(stream=False),
            "verify_calibration": verify_cell,
        },
    ),
    Row(
        "cite_core.CitationStream",
        ("CitationStream", "StructuredCitationStream"),
        {
            **{n: answer_cell(n, stream=True) for n in SCENARIOS},
            "history": _ONE_ANSWER,
            "reload": _ONE_ANSWER,
            "parallel_tools": _ONE_ANSWER,
            "follow_up_number": _ONE_ANSWER,
            "structured": lambda: structured_cell(stream=True),
            "verify_calibration": "verify and calibration are parse_answer's cells (the same answer)",
        },
    ),
]


@pytest.mark.parametrize(("row", "scenario"), [p for row in ROWS for p in row.params()])
def test_cell(row: Row, scenario: str) -> None:
    run_cell(row, scenario)
