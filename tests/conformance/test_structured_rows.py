"""Structured answers' rows of the conformance matrix: ``cite_structured`` in a conversation (the core) and
``create_cited_rag_chain(schema=...)`` (LangChain, invoke and stream) crossed with the scenario table.

A structured answer is one more entry point beside the text ones, so it answers the same scenarios: the
scenario's reply becomes the JSON object ``{"answer": <the reply's text>}`` the model fills, and the
cited object's answer (``CitedStructure.as_answer()``) must hold the invariants a text answer holds,
the conversation's numbers included (a structured turn shows the numbers the reader saw before).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from cite_core import (
    ArgumentError,
    CitationSession,
    CitedAnswer,
    CitedStructure,
    StructuredCitationStream,
    TruncatedOutputError,
    cite_structured,
    number_sources,
)

from .matrix import DOCUMENTS, SCENARIOS, Reply, Row, calibration, check_scenario, run_cell, seen

ROOT = Path(__file__).resolve().parents[2]


class Answer(BaseModel):
    answer: str


def as_json(reply: Reply) -> Reply:
    """The scenario's reply as the structured reply the model sends: its text in the object's field."""
    return Reply(
        json.dumps({"answer": reply.content}),
        reasoning=reply.reasoning,
        finish_reason=reply.finish_reason,
        chunk=reply.chunk,
    )


def _items(names: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        {"text": DOCUMENTS[n]["text"], "title": DOCUMENTS[n]["title"], "document_id": DOCUMENTS[n]["id"]}
        for n in names
    ]


# -- the core: cite_structured and StructuredCitationStream with a conversation's numbers ------------


def _streamed(sources: Any, text: str, **numbering: Any) -> CitedStructure:
    parser = StructuredCitationStream(sources, **numbering)
    for i in range(0, len(text) + 1, 3):
        parser.update({"answer": text[:i]})
    return parser.finish({"answer": text})


def core_cell(name: str) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS[name]
        content = scenario.replies[-1].content
        sources = number_sources(_items(scenario.documents))
        whole = cite_structured({"answer": content}, sources)
        assert _streamed(sources, content) == whole
        check_scenario(name, None, whole.as_answer(), seen(scenario.documents))

    return cell


def core_history_cell() -> None:
    """Turn 1 cited the Sun as [1] and the Moon as [2]; turn 2 shows the Moon as 1 and the Sun as 2."""
    session = CitationSession()
    first = (
        session.parse(SCENARIOS["history"].extra["first"]) if session.add(_items(("sun", "moon"))) else None
    )
    assert first is not None and [r.number for r in first.references] == [1, 2]
    sources = number_sources(_items(("moon", "sun")))  # this call's own numbering
    numbering = {"display_numbers": session.display_numbers(sources), "first_new": session.next_number}
    text = "The Moon reflects the light of the Sun [1]. Its core fuses hydrogen into helium [2]."
    whole = cite_structured({"answer": text}, sources, **numbering)
    assert _streamed(sources, text, **numbering) == whole
    assert (
        whole.value["answer"]
        == "The Moon reflects the light of the Sun [2]. Its core fuses hydrogen into helium [1]."
    )
    assert [(r.number, r.source.title) for r in whole.references] == [(2, "The Moon"), (1, "The Sun")]
    check_scenario(
        "history", None, whole.as_answer(), {1: DOCUMENTS["moon"]["text"], 2: DOCUMENTS["sun"]["text"]}
    )
    with pytest.raises(ArgumentError, match="display_numbers"):
        cite_structured({"answer": text}, sources, display_numbers={1: 1, 2: 1})


# -- LangChain: create_cited_rag_chain(schema=...) --------------------------------------------------


def _chain(names: tuple[str, ...], server: Any, output: str = "answer", **options: Any) -> Any:
    from langchain_cite import create_cited_rag_chain

    from .matrix import chat_openai
    from .test_langchain_rows import retriever

    return create_cited_rag_chain(
        retriever(names), chat_openai(server), schema=Answer, output=output, **options
    )


def _run(names: tuple[str, ...], script: list[Reply], question: Any) -> CitedStructure:
    """The structure ``invoke`` gives, checked equal to the last item ``stream`` gives."""
    from .matrix import openai_server

    with openai_server(script) as server:
        structure = _chain(names, server).invoke(question)
    with openai_server(script) as server:
        *_, streamed = list(_chain(names, server).stream(question))
    assert isinstance(structure, CitedStructure) and streamed == structure
    return structure


def chain_cell(name: str) -> Callable[[], None]:
    def cell() -> None:
        scenario = SCENARIOS[name]
        structure = _run(scenario.documents, [as_json(r) for r in scenario.replies], scenario.question)
        check_scenario(name, None, structure.as_answer(), seen(scenario.documents))

    return cell


def _first_turn(structured: bool) -> list[Any]:
    """Turn 1 (the Sun as [1], the Moon as [2]) as the chain returned it (``output="message"``)."""
    from langchain_core.messages import HumanMessage

    from langchain_cite import create_cited_rag_chain

    from .matrix import chat_openai, openai_server
    from .test_langchain_rows import retriever

    first = Reply(SCENARIOS["history"].extra["first"])
    with openai_server([as_json(first) if structured else first]) as server:
        if structured:
            message = _chain(("sun", "moon"), server, "message").invoke("How does the Sun shine?")
        else:
            chain = create_cited_rag_chain(retriever(("sun", "moon")), chat_openai(server), output="message")
            message = chain.invoke("How does the Sun shine?")
    return [HumanMessage("How does the Sun shine?"), message]


def _structure_turn() -> CitedStructure:
    """Turn 1 as the structured chain returned it (``output="answer"``: the ``CitedStructure``)."""
    from .matrix import openai_server

    with openai_server([as_json(Reply(SCENARIOS["history"].extra["first"]))]) as server:
        return _chain(("sun", "moon"), server).invoke("How does the Sun shine?")


def chain_history_cell() -> None:
    """A structured turn after a text turn shows the reader's numbers (this call shows the Moon as 1), and
    a text turn after a structured one too."""
    from langchain_cite import create_cited_rag_chain

    from .matrix import chat_openai, openai_server
    from .test_langchain_rows import retriever

    saw = {1: DOCUMENTS["moon"]["text"], 2: DOCUMENTS["sun"]["text"]}
    text = "The Moon reflects the light of the Sun [1]. Its core fuses hydrogen into helium [2]."
    question = {"question": SCENARIOS["history"].question, "chat_history": _first_turn(False)}
    structure = _run(("moon", "sun"), [as_json(Reply(text))], question)
    assert [r.number for r in structure.references] == [2, 1]  # the numbers the reader saw in turn 1
    check_scenario("history", None, structure.as_answer(), saw)
    question = {"question": SCENARIOS["history"].question, "chat_history": _first_turn(True)}
    for history in (_first_turn(True), [_first_turn(False)[0], _structure_turn()]):
        with openai_server([Reply(text)]) as server:  # the message, or the CitedStructure itself
            answer = create_cited_rag_chain(retriever(("moon", "sun")), chat_openai(server)).invoke(
                {"question": SCENARIOS["history"].question, "chat_history": history}
            )
        assert answer.text == text.replace("[1]", "[x]").replace("[2]", "[1]").replace("[x]", "[2]")
    with openai_server([Reply(text)]) as server:
        answer = create_cited_rag_chain(retriever(("moon", "sun")), chat_openai(server)).invoke(question)
    assert (
        answer.text == "The Moon reflects the light of the Sun [2]. Its core fuses hydrogen into helium [1]."
    )
    check_scenario("history", None, answer, saw)


def chain_follow_up_cell() -> None:
    """ "What else does [2] say?" after a structured turn: the reader's [2] is the Moon, this call's 1."""
    from .matrix import openai_server

    reply = as_json(Reply("It says that the Moon reflects the light of the Sun back to the Earth [1]."))
    question = {"question": SCENARIOS["follow_up_number"].question, "chat_history": _first_turn(True)}
    with openai_server([reply]) as server:
        structure = _chain(("moon", "sun"), server).invoke(question)
        asked = server.requests[-1]["messages"][-1]["content"]
    assert "What else does [1] say?" in asked, asked
    assert [(r.number, r.source.title) for r in structure.references] == [(2, "The Moon")]
    check_scenario(
        "follow_up_number",
        None,
        structure.as_answer(),
        {1: DOCUMENTS["moon"]["text"], 2: DOCUMENTS["sun"]["text"]},
    )


def chain_reload_cell() -> None:
    """A structured turn saved as JSON and continued (a text turn) in a new process keeps its numbers."""
    from langchain_core.messages import messages_to_dict

    from .matrix import openai_server
    from .test_langchain_rows import _RELOAD

    saved = json.dumps(messages_to_dict(_first_turn(True)))
    with openai_server([Reply("The Moon reflects the light of the Sun [1].")]) as server:
        done = subprocess.run(
            [sys.executable, "-c", _RELOAD, server.base_url, saved],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    answer = CitedAnswer.model_validate_json(done.stdout.strip().splitlines()[-1])
    assert answer.text == "The Moon reflects the light of the Sun [2]."  # the Moon was [2] in turn 1
    check_scenario("reload", None, answer, {1: DOCUMENTS["moon"]["text"], 2: DOCUMENTS["sun"]["text"]})


def chain_truncated_cell() -> None:
    """A structured answer cut off is an error that says so (a partial object is never cited)."""
    from .matrix import openai_server

    scenario = SCENARIOS["truncated"]
    with openai_server([as_json(scenario.replies[0])]) as server:
        with pytest.raises(TruncatedOutputError, match="cut off"):
            _chain(scenario.documents, server).invoke(scenario.question)
        with pytest.raises(TruncatedOutputError, match="cut off"):
            list(_chain(scenario.documents, server).stream(scenario.question))


def chain_verify_cell() -> None:
    from .matrix import openai_server

    with openai_server([Reply("{}")]) as server:
        for option in ({"verify": True}, {"calibration": calibration()}):
            with pytest.raises(ArgumentError, match=rf"does not apply {next(iter(option))}="):
                _chain(SCENARIOS["verify_calibration"].documents, server, **option)


_ONE_CALL = "one structured answer over one numbering; a conversation's numbers are the history cell"
_NO_TOOLS = "a chain calls no tools (the agent row has this scenario)"
_JSON = "a structured reply is a JSON object: thinking text before it is not JSON (reasoning_content is)"


def _core_row() -> Row:
    cells: dict[str, Callable[[], None] | str] = {n: core_cell(n) for n in SCENARIOS}
    cells.update(
        history=core_history_cell,
        reload="the core restores numbers through CitationSession (its rows); this cell's history uses them",
        follow_up_number="a follow-up question is rewritten by the adapters (the chain row)",
        parallel_tools=_NO_TOOLS,
        verify_calibration="verify checks a text answer (parse_answer's row)",
        reasoning_content="the core is given the object, not the reply: reasoning is the adapter's",
        truncated="cite_structured reads a whole object: a cut-off reply is the adapter's error (chain row)",
        structured="the parse_answer and CitationStream rows' structured cells (several fields)",
    )
    return Row("cite_core.cite_structured.conversation", ("cite_structured",), cells)


def _chain_row() -> Row:
    cells: dict[str, Callable[[], None] | str] = {n: chain_cell(n) for n in SCENARIOS}
    cells.update(
        history=chain_history_cell,
        follow_up_number=chain_follow_up_cell,
        reload=chain_reload_cell,
        truncated=chain_truncated_cell,
        verify_calibration=chain_verify_cell,
        parallel_tools=_NO_TOOLS,
        think=_JSON,
        lone_think_close=_JSON,
        structured="the create_cited_rag_chain invoke and stream rows' structured cells (several fields)",
    )
    return Row("langchain_cite.create_cited_rag_chain.schema", ("create_cited_rag_chain",), cells)


ROWS = [_core_row()]
try:
    import langchain_openai  # noqa: F401

    ROWS.append(_chain_row())
except ImportError:  # the core row runs without LangChain
    pass


@pytest.mark.parametrize(("row", "scenario"), [p for row in ROWS for p in row.params()])
def test_cell(row: Row, scenario: str) -> None:
    run_cell(row, scenario)
