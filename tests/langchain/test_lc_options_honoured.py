"""Every LangChain entry point honours each option it is given or refuses it naming where it goes."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from langchain_cite import (
    CitationOutputParser,
    CitationSources,
    StructuredCitationParser,
    add_citations,
    create_cited_rag_chain,
    create_cited_retriever_tool,
)
from langchain_cite._options import ELSEWHERE
from tests.options_walk import check_entry, option_values

LLM = FakeListChatModel(responses=["The harbour opened in 1850 [1]."])
RETRIEVER = RunnableLambda(lambda q: [Document(page_content="The harbour opened in 1850.")])


class Harbour(BaseModel):
    opened: str


ENTRIES = {
    "create_cited_rag_chain": (
        lambda **o: create_cited_rag_chain(RETRIEVER, LLM, **o),
        {"calibration", "verify", "judge"},
    ),
    "create_cited_rag_chain(schema=...)": (
        lambda **o: create_cited_rag_chain(RETRIEVER, LLM, schema=Harbour, **o),
        set(),
    ),
    "add_citations": (lambda **o: add_citations(RunnableLambda(lambda x: x), LLM, **o), set()),
    "CitationSources": (CitationSources, set()),
    "CitationOutputParser": (CitationOutputParser, {"calibration"}),
    "StructuredCitationParser": (StructuredCitationParser, set()),
    "create_cited_retriever_tool": (
        lambda **o: create_cited_retriever_tool(RETRIEVER, name="harbour", description="Harbour", **o),
        set(),
    ),
}
"""Entry point -> (its call with required arguments, the options it honours)."""


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_option_is_honoured_or_refused_naming_where_it_goes(entry: str) -> None:
    make, honoured = ENTRIES[entry]
    outcomes = check_entry(entry, make, honoured, ELSEWHERE, option_values(LLM))
    assert {name for name, outcome in outcomes.items() if outcome == "honoured"} == honoured


def test_every_refusal_names_an_entry_point_that_is_walked() -> None:
    assert set(ELSEWHERE) <= set(ENTRIES)


def test_a_structured_chain_refuses_calibration_verify_and_judge() -> None:
    """schema= built a chain that quietly ignored calibration=, verify=True and judge=."""
    from cite_core import ArgumentError

    with pytest.raises(ArgumentError, match=r"does not apply verify=.*without schema="):
        create_cited_rag_chain(RETRIEVER, LLM, schema=Harbour, verify=True)
    with pytest.raises(ArgumentError, match=r"does not apply calibration=, judge="):
        create_cited_rag_chain(
            RETRIEVER, LLM, schema=Harbour, calibration=option_values(LLM)["calibration"], judge=LLM
        )
