"""One recorded model answer, every entry point, one ``CitedAnswer``.

The matrix checks each entry point against invariants; this checks them against each other. The same
model reply (markers as models write them: ``[1, 2]``, ``【2】``, an invalid ``[9]``) over the same two
documents, shown under the same numbers, goes through the core (``parse_answer``, ``CitationStream``,
``CitationSession.parse``), LangChain (the chain invoked and streamed, ``add_citations``, the cited
retriever tool in an agent, ``session.parse``), LlamaIndex (``CiteQueryEngine``, ``CiteSynthesizer``,
``CitePostprocessor``, ``CiteChatEngine``, ``cited_query_engine_tool`` in an agent) and the CLI
(``cite ask --json``). Every one must give the same text, citations (cited text, document, offsets)
and references (number and source text), and report the same invalid markers: an entry point that
parses, renumbers or locates differently is a seam.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cite_core import CitationSession, CitationStream, CitedAnswer, number_sources, parse_answer

from .matrix import DOCUMENTS, Reply, ToolCall, openai_server

REPLIES = {
    "odd_markers": (
        "The Sun shines because hydrogen fuses into helium in its core [1, 2]. "
        "The Moon reflects the light of the Sun 【2】. It is very old [9]."
    ),
    "think_and_list": (
        "<think>Source [2] is the Moon; [7] does not exist.</think>The Moon reflects the light of the Sun "
        "[2]. In the Sun's core, hydrogen nuclei fuse into helium [1].\n\n"
        "References:\n[1] The Sun\n[2] The Moon"
    ),
    "forward_and_grouped": (
        "According to [2], the Moon has no light of its own. The Sun releases energy by nuclear fusion "
        "[1][2][1]. Its core fuses hydrogen [1-2]."
    ),
}
NAMES = ("sun", "moon")
QUESTION = "How does the Sun shine, and why does the Moon?"


def projection(answer: CitedAnswer) -> dict[str, Any]:
    """What must be equal across entry points (sources carry each framework's own metadata)."""
    return {
        "text": answer.text,
        "citations": [
            (c.cited_text, c.document_index, c.document_title, c.start_char_index, c.end_char_index)
            for c in answer.citations
        ],
        "references": [(r.number, r.source.text, r.source.title) for r in answer.references],
        "invalid_markers": list(answer.invalid_markers),
    }


def _items() -> list[dict[str, Any]]:
    return [
        {"text": DOCUMENTS[n]["text"], "title": DOCUMENTS[n]["title"], "document_id": DOCUMENTS[n]["id"]}
        for n in NAMES
    ]


def expected(reply: str, *, session: bool = False) -> dict[str, Any]:
    """The projection of the core's parse; ``session``: in a session's numbering (the numbers the model
    saw in tool results, kept rather than renumbered 1..k: ``CitationSession.parse``)."""
    sources = number_sources(_items())
    kept = {"display_numbers": {s.number: s.number for s in sources}} if session else {}
    return projection(parse_answer(reply, sources, **kept))


# -- the core ---------------------------------------------------------------------------------------


def core_stream(reply: str) -> CitedAnswer:
    stream = CitationStream(number_sources(_items()), display=True)
    for i in range(0, len(reply), 3):
        stream.feed(reply[i : i + 3])
    return stream.finish()


def core_session(reply: str) -> CitedAnswer:
    session = CitationSession()
    session.add(_items())
    return session.parse(reply)


# -- LangChain --------------------------------------------------------------------------------------


def _lc_answer(answer: Any) -> CitedAnswer:
    return CitedAnswer.model_validate_json(answer.model_dump_json())


def lc_chain(mode: str) -> Callable[[str], CitedAnswer]:
    def run(reply: str) -> CitedAnswer:
        from .matrix import chat_openai
        from .test_langchain_rows import make_chain

        with openai_server([Reply(reply)]) as server:
            chain = make_chain(mode, NAMES, chat_openai(server), "answer")
            if mode == "stream":
                *_, answer = list(chain.stream(QUESTION))
            else:
                answer = chain.invoke(QUESTION)
        return _lc_answer(answer)

    return run


def lc_agent(reply: str) -> CitedAnswer:
    from langchain_cite import CitationSession as LcSession

    from .test_langchain_rows import agent_turn

    session = LcSession()
    script = [Reply(tool_calls=(ToolCall("search", {"query": "all"}),)), Reply(reply)]
    _, messages = agent_turn("plain", session, [("user", QUESTION)], script)
    return _lc_answer(session.parse({"messages": messages}))


# -- LlamaIndex -------------------------------------------------------------------------------------


def li_question(ask_name: str) -> Callable[[str], CitedAnswer]:
    def run(reply: str) -> CitedAnswer:
        from . import test_llamaindex_rows as rows

        with openai_server(rows.model(NAMES, [Reply(reply)])) as server:
            _, answer = getattr(rows, ask_name)(rows.llm(server), NAMES, QUESTION)
        return answer

    return run


def li_chat(reply: str) -> CitedAnswer:
    from llamaindex_cite import CiteChatEngine

    from . import test_llamaindex_rows as rows

    with openai_server(rows.model(NAMES, [Reply(reply)])) as server:
        reply = CiteChatEngine.from_defaults(rows.Fixed(NAMES), llm=rows.llm(server)).chat(QUESTION)
    return rows.cited(reply)


def li_agent(reply: str) -> CitedAnswer:
    from llama_index.core.agent.workflow import FunctionAgent

    from llamaindex_cite import CitationSession as LiSession

    from . import test_llamaindex_rows as rows

    session = LiSession()
    script = [Reply(tool_calls=(ToolCall("search", {"input": QUESTION}),)), Reply(reply)]
    with openai_server(rows.model(NAMES, script)) as server:
        agent = FunctionAgent(tools=rows._tools(session, {"search"}, NAMES), llm=rows.llm(server))

        async def ask() -> Any:
            handler = agent.run(user_msg=QUESTION)
            async for _ in session.stream_events(handler):
                pass
            return await handler

        result = asyncio.run(ask())
    return rows.cited(session.parse(str(result)))


# -- the CLI ----------------------------------------------------------------------------------------


def cli_ask(tmp_path: Path, reply: str) -> dict[str, Any]:
    """``cite ask --json`` over the two documents as files (titled by a Markdown heading, which is part
    of the file's text: the CLI's sources are whole files, so its offsets are the file's)."""
    import contextlib
    import io
    import os

    from cite_cli.__main__ import main

    from . import test_llamaindex_rows as rows

    folder = tmp_path / "docs"
    folder.mkdir()
    for name in NAMES:
        (folder / f"{name}.md").write_text(DOCUMENTS[name]["text"], encoding="utf-8")
    index = str(tmp_path / "index")
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["ingest", str(folder), "--path", index, "--quiet"]) == 0
    shown = {f"{n}": i for i, n in enumerate(NAMES, 1)}  # the numbers the CLI's prompt showed

    def as_read(body: dict[str, Any]) -> Reply:
        prompt = rows._prompt(body)
        for n in NAMES:
            at = prompt.find(f'title="{n}"')
            shown[n] = int(prompt[:at].rsplit('number="', 1)[1].split('"')[0]) if at >= 0 else shown[n]
        return Reply(rows._as_seen(reply, NAMES, body, {DOCUMENTS[n]["title"]: shown[n] for n in NAMES}))

    out = io.StringIO()
    with (
        openai_server(as_read) as server,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        env = {"CITE_BASE_URL": server.base_url, "CITE_MODEL": "gpt-4o-mini", "CITE_API_KEY": "test"}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            code = main(["ask", QUESTION, "--path", index, "--json"])
        finally:
            for k, v in old.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    assert code == 0, out.getvalue()
    return _from_cli(json.loads(out.getvalue()))


def _from_cli(message: dict[str, Any]) -> dict[str, Any]:
    """The CLI's Anthropic-shaped message as the projection's text, citations and invalid markers."""
    text = "".join(block["text"] for block in message["content"])
    citations = [
        (c["cited_text"], c["document_index"], c["start_char_index"], c["end_char_index"])
        for block in message["content"]
        for c in block.get("citations") or []
    ]
    return {"text": text, "citations": citations}


ENTRY_POINTS: dict[str, Callable[[str], CitedAnswer]] = {
    "cite_core.CitationStream": core_stream,
    "cite_core.CitationSession.parse": core_session,
    "langchain_cite.create_cited_rag_chain.invoke": lc_chain("invoke"),
    "langchain_cite.create_cited_rag_chain.stream": lc_chain("stream"),
    "langchain_cite.add_citations": lc_chain("add_citations"),
    "langchain_cite.agent+session.parse": lc_agent,
    "llamaindex_cite.CiteQueryEngine.query": li_question("engine_query"),
    "llamaindex_cite.CiteQueryEngine.stream": li_question("engine_stream"),
    "llamaindex_cite.CiteSynthesizer": li_question("synthesizer_query"),
    "llamaindex_cite.CitePostprocessor": li_question("postprocessor_query"),
    "llamaindex_cite.CitePostprocessor.stream": li_question("postprocessor_stream"),
    "llamaindex_cite.CiteChatEngine": li_chat,
    "llamaindex_cite.agent+session.parse": li_agent,
}

_NEEDS = {"langchain_cite": ("langchain_openai",), "llamaindex_cite": ("llama_index.llms.openai_like",)}


@pytest.mark.parametrize("reply", list(REPLIES))
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_entry_point_gives_the_same_answer(entry: str, reply: str) -> None:
    for module in _NEEDS.get(entry.split(".")[0], ()):
        pytest.importorskip(module)
    session = entry.lower().endswith("session.parse")
    assert projection(ENTRY_POINTS[entry](REPLIES[reply])) == expected(REPLIES[reply], session=session)


@pytest.mark.parametrize("reply", list(REPLIES))
def test_the_cli_gives_the_same_answer(tmp_path: Path, reply: str) -> None:
    pytest.importorskip("qdrant_client")
    got = cli_ask(tmp_path, REPLIES[reply])
    want = expected(REPLIES[reply])
    # the JSON is the Citations API's shape: the text without markers, the citations on its blocks
    assert got["text"] == parse_answer(REPLIES[reply], number_sources(_items())).plain_text
    assert [(c[0], c[2], c[3]) for c in got["citations"]] == [(c[0], c[3], c[4]) for c in want["citations"]]
