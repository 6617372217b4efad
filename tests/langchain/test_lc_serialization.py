"""Issue 11 item 7: serialised ids use the public path ``langchain_cite``, and dumps/loads round-trip."""

from __future__ import annotations

import json

from langchain_core.load import dumpd, dumps, loads
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from langchain_cite import CitationOutputParser, CitationSources

from .conftest import ANSWER, corpus


def _loads(text: str):  # type: ignore[no-untyped-def]
    options = {"valid_namespaces": ["langchain_cite"]}
    try:  # langchain-core 1.x asks which classes may be loaded; 0.3 has no such argument
        return loads(text, allowed_objects=[CitationOutputParser, CitationSources], **options)
    except TypeError:
        return loads(text, **options)


def test_lc_ids_are_the_public_path() -> None:
    assert CitationOutputParser.get_lc_namespace() == ["langchain_cite"]
    assert CitationSources.get_lc_namespace() == ["langchain_cite"]
    assert dumpd(CitationOutputParser())["id"] == ["langchain_cite", "CitationOutputParser"]


def test_output_parser_round_trips() -> None:
    parser = CitationOutputParser(output="text", sources_key="numbered", unsupported_threshold=0.25)
    loaded = _loads(dumps(parser))
    assert isinstance(loaded, CitationOutputParser)
    assert (loaded.output, loaded.sources_key, loaded.unsupported_threshold) == ("text", "numbered", 0.25)
    inputs = {"numbered": corpus(), "message": ANSWER}
    assert loaded.invoke(inputs) == parser.invoke(inputs)


def test_sources_step_round_trips() -> None:
    step = CitationSources(max_tokens=2000, style="sentences")
    loaded = _loads(dumps(step))
    assert (loaded.max_tokens, loaded.style) == (2000, "sentences")


def test_a_chain_of_the_halves_serialises_without_not_implemented_parts() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "{instructions}"), ("human", "{context}\n{question}")]
    )
    chain = CitationSources() | RunnablePassthrough.assign(message=prompt) | CitationOutputParser()
    text = json.dumps(dumpd(chain))
    assert "not_implemented" not in text and "_parser" not in text and "_sources" not in text
