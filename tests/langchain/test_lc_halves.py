"""The two halves inside a user's own LCEL chain: CitationSources and CitationOutputParser."""

from __future__ import annotations

from operator import itemgetter

import pytest
from langchain_core.documents import Document
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, SystemMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from cite_core import build_prompt, citation_instructions, format_sources
from langchain_cite import CitationOutputParser, CitationSources, CitedRagAnswer, TextDelta

from .conftest import ANSWER, QUESTION, ListRetriever


def test_sources_step_adds_prompt_variables(documents: list[Document]) -> None:
    out = CitationSources().invoke({"question": QUESTION, "documents": documents, "history": "kept"})
    assert out["history"] == "kept" and out["question"] == QUESTION
    assert [s.number for s in out["sources"]] == [1, 2]
    assert out["context"] == format_sources(out["sources"])
    assert out["instructions"] == citation_instructions(2)
    assert isinstance(out["messages"][0], SystemMessage) and out["messages"][0].content == out["instructions"]
    assert out["native"] is False and out["dropped"] == []


def test_token_budget_drops_lowest_ranked_sources(documents: list[Document]) -> None:
    full = CitationSources().invoke({"question": QUESTION, "documents": documents})
    one = build_prompt(QUESTION, full["sources"][:1], max_tokens=100_000).token_count
    tight = CitationSources(max_tokens=one + 5).invoke({"question": QUESTION, "documents": documents})
    assert len(full["sources"]) == 2
    assert [s.number for s in tight["sources"]] == [1] and [s.number for s in tight["dropped"]] == [2]


def test_users_own_prompt_template(retriever: ListRetriever) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{instructions}\nBe brief."), ("human", "Sources:\n{context}\n\nQuestion: {question}")]
    )
    seen = []
    model = FakeListChatModel(responses=[ANSWER])
    chain = (
        {"documents": retriever, "question": RunnablePassthrough()}
        | CitationSources()
        | RunnablePassthrough.assign(message=prompt | RunnableLambda(lambda p: seen.append(p) or p) | model)
        | CitationOutputParser()
    )
    answer = chain.invoke(QUESTION)
    assert isinstance(answer, CitedRagAnswer) and answer.text == ANSWER
    assert '<source number="1" title="The Sun">' in seen[0].messages[1].content
    streamed = list(chain.stream(QUESTION.replace("?", "!")))
    assert len(streamed) > 10


def test_parser_takes_documents_and_a_string() -> None:
    docs = [Document(page_content="Cats purr when content. Dogs bark.", metadata={"title": "Pets"})]
    answer = CitationOutputParser().invoke({"sources": docs, "message": "Cats purr [1]."})
    assert answer.citations[0].cited_text == "Cats purr when content."


def test_parser_streams_message_chunks_and_custom_keys() -> None:
    parser = CitationOutputParser(sources_key="src", message_key="out")
    chunks = [{"src": ["Cats purr when content."]}] + [
        {"out": AIMessageChunk(content=c)} for c in "Cats purr [1]."
    ]
    items = list(parser.transform(iter(chunks)))
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == "Cats purr."
    assert items[-1] == parser.invoke(
        {"src": ["Cats purr when content."], "out": AIMessage(content="Cats purr [1].")}
    )


def test_parser_without_sources_says_what_to_do() -> None:
    with pytest.raises(OutputParserException, match="needs the sources of this run"):
        CitationOutputParser().invoke(AIMessage(content="x [1]"))
    with pytest.raises(OutputParserException, match="no 'sources'"):
        CitationOutputParser().invoke({"message": "x [1]"})


def test_parser_refuses_native_citations_in_marker_mode() -> None:
    message = AIMessage(content=[{"type": "text", "text": "x", "citations": [{"type": "char_location"}]}])
    with pytest.raises(OutputParserException, match="native=True"):
        CitationOutputParser().invoke({"sources": ["x"], "message": message})


def test_reasoning_blocks_are_skipped() -> None:
    message = AIMessage(
        content=[{"type": "reasoning", "reasoning": "hmm [2]"}, {"type": "text", "text": "Cats purr [1]."}]
    )
    answer = CitationOutputParser().invoke({"sources": ["Cats purr."], "message": message})
    assert answer.text == "Cats purr [1]." and answer.invalid_markers == []


def test_sources_step_input_errors() -> None:
    with pytest.raises(KeyError, match="documents"):
        CitationSources().invoke({"question": QUESTION})
    with pytest.raises(TypeError, match="expects a dict"):
        CitationSources().invoke(QUESTION)  # type: ignore[arg-type]


def test_empty_sources_prompt_and_flag() -> None:
    out = CitationSources().invoke({"question": QUESTION, "documents": []})
    assert out["sources"] == [] and out["context"] == "(no sources were found for this question)"
    answer = CitationOutputParser().invoke({**out, "message": "I cannot tell."})
    assert answer.no_sources and answer.references == []


def test_empty_sources_prompt_tells_the_model() -> None:
    out = CitationSources().invoke({"question": QUESTION, "documents": []})
    text = "\n".join(m.content for m in out["messages"])
    assert "1 to 0" not in text
    assert "No sources were found" in text and "(no sources were found for this question)" in text


def test_itemgetter_messages_work_with_any_model(documents: list[Document]) -> None:
    model = FakeListChatModel(responses=[ANSWER])
    chain = (
        CitationSources()
        | RunnablePassthrough.assign(message=itemgetter("messages") | model)
        | CitationOutputParser()
    )
    assert chain.invoke({"question": QUESTION, "documents": documents}).text == ANSWER
