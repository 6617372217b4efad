"""``style="statements"`` through the LangChain chain: numbered sentences in, exact spans out, streaming."""

from __future__ import annotations

from langchain_core.language_models import FakeListChatModel

from langchain_cite import CitedAnswer, create_cited_rag_chain

from .conftest import MOON, QUESTION, SUN, ListRetriever, corpus

REPLY = (
    "<statement>The Sun fuses hydrogen into helium in its core.<cite>[1-2]</cite></statement>\n"
    "<statement>The Moon only reflects sunlight.<cite>[6-6]</cite></statement>"
)


def test_statements_style_is_prompted_and_parsed_by_the_chain() -> None:
    model = FakeListChatModel(responses=[REPLY, REPLY])  # streams one character per chunk
    chain = create_cited_rag_chain(ListRetriever(documents=corpus()), model, style="statements")
    answer = chain.invoke(QUESTION)
    streamed = [item for item in chain.stream(QUESTION) if isinstance(item, CitedAnswer)][-1]
    assert isinstance(answer, CitedAnswer) and streamed == answer
    assert (
        answer.text
        == "The Sun fuses hydrogen into helium in its core.[1]\nThe Moon only reflects sunlight.[2]"
    )
    assert [c.cited_text for c in answer.citations] == [
        SUN.split(". ", 1)[1],  # sentences 1-2 of the merged sun.txt source
        MOON.split(". ", 1)[1],
    ]
