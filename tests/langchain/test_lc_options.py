"""Unknown options are errors naming the valid ones; on_overflow works on the chain (issue 23 item 11)."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

from cite_core import ArgumentError, TokenBudgetError
from langchain_cite import CitationOutputParser, CitationSources, add_citations, create_cited_rag_chain

LONG = Document(
    page_content=" ".join(f"Sentence {i} is about hydrogen fusion in the Sun." for i in range(80))
)
SHORT = Document(page_content="The Moon reflects sunlight.")
RETRIEVER = RunnableLambda(lambda q: [LONG, SHORT])


def chain(**options):  # type: ignore[no-untyped-def]
    return create_cited_rag_chain(RETRIEVER, FakeListChatModel(responses=["Hydrogen fuses [1]."]), **options)


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda: chain(max_token=2000, stlye="x"), ["'max_token' (did you mean 'max_tokens'?)", "'stlye'"]),
        (lambda: CitationSources(max_token=2000), ["'max_token' (did you mean 'max_tokens'?)"]),
        (lambda: CitationOutputParser(outptu="message"), ["'outptu' (did you mean 'output'?)"]),
        (
            lambda: add_citations(
                ChatPromptTemplate.from_messages([("user", "{question}")]), None, mege=False
            ),
            ["'mege' (did you mean 'merge'?)"],
        ),
    ],
)
def test_unknown_options_raise_naming_the_valid_ones(make, named) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ArgumentError) as caught:
        make()
    assert isinstance(caught.value, TypeError)
    message = str(caught.value)
    assert all(name in message for name in named) and "valid options:" in message
    assert "max_tokens" in message or "output" in message


def test_on_overflow_truncate_works_on_the_chain_and_on_citation_sources() -> None:
    with pytest.raises(TokenBudgetError):
        chain(max_tokens=300).invoke("How does the Sun shine?")
    answer = chain(max_tokens=300, on_overflow="truncate").invoke("How does the Sun shine?")
    assert answer.text == "Hydrogen fuses [1]." and answer.citations[0].cited_text in LONG.page_content
    prepared = CitationSources(max_tokens=300, on_overflow="truncate").invoke(
        {"question": "How?", "documents": [LONG, SHORT]}
    )
    assert len(prepared["sources"][0].text) < len(LONG.page_content) and prepared["dropped"]
    with pytest.raises(Exception, match="on_overflow"):
        CitationSources(on_overflow="shrink")
