"""The LangChain converter of native citations (``from_message``) in the conformance matrix: an
``AIMessage`` as langchain-anthropic returns it (text blocks carrying Claude's citations), read with the
documents the model was sent, holds the same invariants as every other cell."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.messages import AIMessage

from langchain_cite import from_message

from .matrix import DOCUMENTS, SCENARIOS, Row, check_scenario, run_cell, seen
from .native_plan import CONVERTED, NATIVE_PLANS, not_converted

pytestmark = pytest.mark.skipif(
    not hasattr(AIMessage, "content_blocks"), reason="citation annotations need langchain-core 1.x"
)


def _message(scenario: str) -> AIMessage:
    """The recorded langchain-anthropic message: Claude's char_location citations on each text block."""
    content: list[str | dict[Any, Any]] = []
    names = SCENARIOS[scenario].documents
    for text, cites in NATIVE_PLANS[scenario]:
        citations = []
        for index, quote in cites:
            doc = DOCUMENTS[names[index]] if index < len(names) else {"text": quote, "title": "Elsewhere"}
            start = doc["text"].index(quote)
            citations.append(
                {
                    "type": "char_location",
                    "cited_text": quote,
                    "document_index": index,
                    "document_title": doc["title"],
                    "start_char_index": start,
                    "end_char_index": start + len(quote),
                }
            )
        content.append({"type": "text", "text": text, "citations": citations})
    return AIMessage(content=content, response_metadata={"model_provider": "anthropic"})


def _cell(scenario: str) -> Callable[[], None]:
    def cell() -> None:
        names = SCENARIOS[scenario].documents
        documents = [
            Document(page_content=DOCUMENTS[n]["text"], metadata={"title": DOCUMENTS[n]["title"]})
            for n in names
        ]
        answer = from_message(_message(scenario), documents)
        check_scenario(scenario, None, answer, seen(names))
        if scenario == "invalid_and_odd_markers":
            assert answer.invalid_markers == ["[9]"], answer.invalid_markers

    return cell


ROWS = [
    Row(
        "langchain_cite.from_message",
        ("from_message",),
        {**not_converted("from_message"), **{name: _cell(name) for name in CONVERTED}},
    )
]


@pytest.mark.parametrize(("row", "scenario"), [p for row in ROWS for p in row.params()])
def test_cell(row: Row, scenario: str) -> None:
    run_cell(row, scenario)
