"""create_cited_rag_chain with fake chat models: invoke, stream, batch, async, events, callbacks."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage

from cite_core import DisplayDelta
from langchain_cite import CitationsDelta, CitedAnswer, CitedRagAnswer, TextDelta, create_cited_rag_chain
from langchain_cite._messages import message_text

from .conftest import ANSWER, QUESTION, ListRetriever


def fake_list(answer: str = ANSWER) -> FakeListChatModel:
    return FakeListChatModel(responses=[answer])  # streams one character per chunk: "[1]" arrives split


def generic(answer: str = ANSWER) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=itertools.cycle([AIMessage(content=answer)]))


MODELS = [pytest.param(fake_list, id="FakeListChatModel"), pytest.param(generic, id="GenericFakeChatModel")]


def check_stream(items: list[Any], expected: CitedAnswer) -> None:
    assert len(items) > 10, "the stream collapsed"
    *events, final = items
    assert isinstance(final, CitedRagAnswer)
    assert all(isinstance(e, (TextDelta, DisplayDelta, CitationsDelta)) for e in events)
    assert final == expected
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == final.plain_text
    assert "".join(e.text for e in events if isinstance(e, DisplayDelta)) == final.text  # as shown
    assert [e.citation for e in events if isinstance(e, CitationsDelta)] == final.citations


def check_answer(answer: CitedAnswer) -> None:
    assert isinstance(answer, CitedRagAnswer)
    assert answer.text == ANSWER
    assert [ref.source.title for ref in answer.references] == [
        "The Sun",
        "The Moon",
    ]  # two chunks of sun.txt: one source
    sun = answer.references[0].source
    for citation in answer.citations:
        source = sun if citation.document_index == 0 else answer.references[1].source
        assert source.text[citation.source_start : citation.source_end] == citation.cited_text
    assert "hydrogen nuclei fuse into helium" in answer.citations[0].cited_text
    assert not answer.no_sources


@pytest.mark.parametrize("make_model", MODELS)
def test_invoke_and_stream_agree(make_model: Any, retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, make_model())
    answer = chain.invoke(QUESTION)
    check_answer(answer)
    check_stream(list(chain.stream(QUESTION)), answer)


@pytest.mark.parametrize("make_model", MODELS)
async def test_async_invoke_and_stream_agree(make_model: Any, retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, make_model())
    answer = await chain.ainvoke(QUESTION)
    check_answer(answer)
    check_stream([item async for item in chain.astream(QUESTION)], answer)


def test_stream_marker_split_across_chunks_is_held(retriever: ListRetriever) -> None:
    items = list(
        create_cited_rag_chain(retriever, fake_list("Hydrogen fuses into helium [1].")).stream(QUESTION)
    )
    texts = [i.text for i in items if isinstance(i, TextDelta)]
    assert "[" not in "".join(texts) and "".join(texts) == "Hydrogen fuses into helium."
    kinds = [type(i).__name__ for i in items]
    assert kinds.index("CitationsDelta") < kinds.index("CitedRagAnswer")


def test_batch_and_abatch(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[ANSWER, ANSWER]))
    answers = chain.batch([QUESTION, QUESTION])
    assert [a.text for a in answers] == [ANSWER, ANSWER]


async def test_abatch(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, FakeListChatModel(responses=[ANSWER, ANSWER]))
    answers = await chain.abatch([QUESTION, QUESTION])
    assert [a.text for a in answers] == [ANSWER, ANSWER]


async def test_astream_events_show_run_names_and_tags(retriever: ListRetriever) -> None:
    chain = create_cited_rag_chain(retriever, fake_list())
    events = [e async for e in chain.astream_events(QUESTION, version="v2", config={"tags": ["mine"]})]
    names = {e["name"] for e in events}
    assert {"cited_rag_chain", "retrieve", "CitationSources", "generate", "CitationOutputParser"} <= names
    assert {"ListRetriever", "FakeListChatModel"} <= names
    parser_chunks = [
        e["data"]["chunk"]
        for e in events
        if e["name"] == "CitationOutputParser" and e["event"] == "on_parser_stream"
    ]
    assert len(parser_chunks) > 10
    model_chunks = [e for e in events if e["event"] == "on_chat_model_stream" and "nostream" in e["tags"]]
    assert len(model_chunks) == len(ANSWER)  # the model's own run, hidden from chat UIs
    shown = [e for e in events if e["event"] == "on_chat_model_stream" and "nostream" not in e["tags"]]
    assert {e["name"] for e in shown} == {"cited_answer"}
    end = next(e for e in events if e["name"] == "cited_rag_chain" and e["event"] == "on_chain_end")
    assert isinstance(end["data"]["output"], CitedRagAnswer)
    assert "".join(message_text(e["data"]["chunk"]) for e in shown) == end["data"]["output"].text
    assert all("mine" in e["tags"] for e in events)


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []
        self.tokens = 0
        self.shown: list[str] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name") or "")

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        if "nostream" in (kwargs.get("tags") or []):
            self.tokens += 1
        else:
            self.shown.append(token)


def test_callbacks_propagate_to_every_step(retriever: ListRetriever) -> None:
    recorder = Recorder()
    chain = create_cited_rag_chain(retriever, fake_list())
    *_, answer = chain.stream(QUESTION, config={"callbacks": [recorder]})
    assert {"cited_rag_chain", "CitationSources", "CitationOutputParser"} <= set(recorder.names)
    # the model's own tokens (hidden), and the tokens shown (the cited_answer run, final numbers)
    assert recorder.tokens == len(ANSWER)
    assert "".join(recorder.shown) == answer.text


def test_empty_retriever_answers_without_references() -> None:
    model = FakeListChatModel(responses=["The sources do not say [1]."])
    chain = create_cited_rag_chain(ListRetriever(documents=[]), model)
    answer = chain.invoke(QUESTION)
    assert answer.no_sources
    assert answer.references == [] and answer.citations == []
    assert answer.invalid_markers == ["[1]"]
    assert list(chain.stream(QUESTION))[-1].no_sources
