"""The LlamaIndex converters of native citations in the conformance matrix: ``from_chat_response`` reads
a ``ChatResponse`` as llama-index-llms-anthropic returns it (``CitationBlock``\\ s after each text block)
with the nodes sent; ``to_chat_message`` writes the cited answer back as blocks, which read the same."""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, CitationBlock, MessageRole, TextBlock
from llama_index.core.schema import NodeWithScore, TextNode

from llamaindex_cite import from_chat_response, to_chat_message

from .matrix import DOCUMENTS, SCENARIOS, Row, check_scenario, run_cell, seen
from .native_plan import CONVERTED, NATIVE_PLANS, not_converted


def _response(scenario: str) -> ChatResponse:
    blocks: list[TextBlock | CitationBlock] = []
    for text, cites in NATIVE_PLANS[scenario]:
        blocks.append(TextBlock(text=text))
        for index, quote in cites:
            blocks.append(
                CitationBlock(
                    cited_content=TextBlock(text=quote),
                    source=f"doc-{index}",
                    title=f"Document {index + 1}",
                    additional_location_info={"search_result_index": index},
                )
            )
    return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks))


def _cell(scenario: str) -> Callable[[], None]:
    def cell() -> None:
        names = SCENARIOS[scenario].documents
        nodes = [
            NodeWithScore(node=TextNode(text=DOCUMENTS[n]["text"], id_=DOCUMENTS[n]["id"]), score=1.0)
            for n in names
        ]
        answer = from_chat_response(_response(scenario), nodes)
        check_scenario(scenario, None, answer, seen(names))
        if scenario == "invalid_and_odd_markers":
            assert answer.invalid_markers == ["[9]"], answer.invalid_markers
        # written back as blocks for a LlamaIndex UI, it reads as the same answer
        again = from_chat_response(to_chat_message(answer), nodes)
        check_scenario("plain", None, again, seen(names))
        assert again.text == answer.text
        assert [r.source.text for r in again.references] == [r.source.text for r in answer.references]

    return cell


_ENTRY = "from_chat_response / to_chat_message"

ROWS = [
    Row(
        "llamaindex_cite.from_chat_response",
        ("from_chat_response", "to_chat_message"),
        {**not_converted(_ENTRY), **{name: _cell(name) for name in CONVERTED}},
    )
]


@pytest.mark.parametrize(("row", "scenario"), [p for row in ROWS for p in row.params()])
def test_cell(row: Row, scenario: str) -> None:
    run_cell(row, scenario)
