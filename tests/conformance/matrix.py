"""The conformance matrix: one table of scenarios, crossed with every entry point, one set of invariants.

Every entry point of the core and of both adapters answers the same scenarios (``SCENARIOS``) with a
model behind the framework's real client (``ChatOpenAI``, ``OpenAILike``) talking to a scripted
OpenAI-compatible server on 127.0.0.1 (``openai_server``), and every cell asserts the same invariants
(``check_invariants``): the streamed text equals the final text; each cited number is the source the model
saw under that number; the reference list holds only what was cited, in first-appearance order. Options an
entry point accepts are honoured or rejected (cells check it with ``pytest.raises(ArgumentError)``).

The API the row modules rely on (keep it stable; the LlamaIndex rows live in test_llamaindex_rows.py):

- ``SCENARIOS``: scenario name -> ``Scenario`` (its documents, the scripted model replies, what the
  model saw under each number). Iterating it gives the names.
- ``check_invariants(streamed_text, answer, seen_numbers)``: ``streamed_text`` is what a reader saw
  stream (None for an entry point that does not stream), ``answer`` a ``CitedAnswer`` (LlamaIndex:
  ``response.metadata["cited_answer"]``), ``seen_numbers`` the number -> text the model was shown under it.
- ``openai_server(script)``: a context manager starting a scripted chat-completions server; ``script`` is
  a sequence of ``Reply`` (one per request, in order; the last one answers every later request) or a
  callable ``(request body) -> Reply``. It yields a ``ScriptedServer`` (``.base_url`` ends in ``/v1``,
  ``.requests`` holds the JSON bodies received).
- ``Row(entry, covers, cells)``: one entry point; ``covers`` the public names (``__all__``) it exercises,
  ``cells`` scenario name -> a callable running the cell, or a str saying why the scenario does not
  apply. Every row module defines ``ROWS`` (and may define ``NOT_ENTRY_POINTS``: public name -> why it
  is not an entry point, e.g. a data class); ``ROW_MODULES`` lists them, and test_coverage.py fails for a
  row that leaves a scenario out or a public name that no row covers.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cite_core import CitedAnswer
from tests.fakes import LocalServer, delta_size, sse

__all__ = [
    "ROW_MODULES",
    "SCENARIOS",
    "Reply",
    "Row",
    "Scenario",
    "ScriptedServer",
    "ToolCall",
    "calibration",
    "check_invariants",
    "check_scenario",
    "judge_reply",
    "openai_server",
    "run_cell",
    "seen",
]

ROW_MODULES = (
    "tests.conformance.test_core_rows",
    "tests.conformance.test_langchain_rows",
    "tests.conformance.test_llamaindex_rows",
    "tests.conformance.test_langchain_native_rows",
    "tests.conformance.test_llamaindex_native_rows",
    "tests.conformance.test_structured_rows",
)
"""The modules holding rows (``ROWS``); one per package, so helpers working in parallel never share one."""

# -- the documents every scenario draws from ------------------------------------------------------

SUN = (
    "The Sun is a star at the centre of the Solar System. In its core, hydrogen nuclei fuse into helium. "
    "This nuclear fusion releases the energy that makes the Sun shine."
)
MOON = "The Moon has no light of its own. It reflects the light of the Sun back to the Earth."
LIGHT = "Light from the Sun takes about eight minutes to reach the Earth. It travels at about 300,000 km/s."

DOCUMENTS = {
    "sun": {"text": SUN, "title": "The Sun", "id": "sun.txt"},
    "moon": {"text": MOON, "title": "The Moon", "id": "moon.txt"},
    "light": {"text": LIGHT, "title": "Light travel", "id": "light.txt"},
}
"""name -> text, title and document id (``Document.metadata["source"]`` / a node's ``ref_doc_id``)."""


# -- the scripted model ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """A tool call the scripted model makes: the tool's name and its JSON arguments."""

    name: str
    args: Mapping[str, Any]
    id: str = ""


@dataclass(frozen=True)
class Reply:
    """One scripted chat completion: streamed as deltas of ``chunk`` characters, or whole as JSON.

    ``finish_reason=None`` drops the connection: the stream ends with no finish reason and no ``[DONE]``."""

    content: str = ""
    reasoning: str = ""
    """Sent as ``reasoning_content`` (DeepSeek-R1 style), before the content."""
    tool_calls: Sequence[ToolCall] = ()
    finish_reason: str | None = "stop"
    chunk: int = delta_size(3)
    """Characters per delta (``tests.fakes.delta_size``)."""


Script = Sequence[Reply] | Callable[[dict[str, Any]], Reply]


class ScriptedServer:
    """A running scripted server: ``base_url`` for the client, ``requests`` the bodies it received."""

    def __init__(self, server: LocalServer) -> None:
        self._server = server
        self.base_url = server.url + "/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [body for _, body in self._server.requests]


def _message(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(dict(call.args))},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    return message


def _deltas(reply: Reply) -> Iterator[dict[str, Any]]:
    yield {"role": "assistant", "content": ""}
    for i in range(0, len(reply.reasoning), reply.chunk):
        yield {"reasoning_content": reply.reasoning[i : i + reply.chunk]}
    for i in range(0, len(reply.content), reply.chunk):
        yield {"content": reply.content[i : i + reply.chunk]}
    for index, call in enumerate(reply.tool_calls):
        arguments = json.dumps(dict(call.args))
        head = {"index": index, "id": call.id or f"call_{index}", "type": "function"}
        yield {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}
        for i in range(0, len(arguments), reply.chunk):
            yield {
                "tool_calls": [{"index": index, "function": {"arguments": arguments[i : i + reply.chunk]}}]
            }


def _answer(reply: Reply, body: dict[str, Any]) -> tuple[int, str, Any]:
    base = {"id": "chatcmpl-matrix", "created": int(time.time()), "model": body.get("model", "m")}
    usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
    if not body.get("stream"):
        choice = {"index": 0, "message": _message(reply), "finish_reason": reply.finish_reason or "stop"}
        return (
            200,
            "application/json",
            {**base, "object": "chat.completion", "choices": [choice], "usage": usage},
        )
    chunk = {**base, "object": "chat.completion.chunk"}
    events = [
        sse({**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        for delta in _deltas(reply)
    ]
    if reply.finish_reason is not None:
        events.append(
            sse({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]})
        )
        events.append(sse("[DONE]"))
    return 200, "text/event-stream", events


@contextmanager
def openai_server(script: Script) -> Iterator[ScriptedServer]:
    """A scripted OpenAI chat-completions server on 127.0.0.1 (see the module docstring)."""
    replies = None if callable(script) else list(script)
    if replies is not None and not replies:
        raise ValueError("openai_server needs at least one Reply")
    served = [0]

    def route(path: str, body: dict[str, Any]) -> tuple[int, str, Any]:
        assert path.endswith("/chat/completions"), path
        if replies is None:
            reply = script(body)  # type: ignore[operator]
        else:
            reply = replies[min(served[0], len(replies) - 1)]
        served[0] += 1
        return _answer(reply, body)

    server = LocalServer(route)
    # a short poll interval: shutting down waits for the next poll (0.5 s by default, per server)
    server.thread = threading.Thread(
        target=server.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    with server:
        yield ScriptedServer(server)


def chat_openai(server: ScriptedServer, **options: Any) -> Any:
    """LangChain's real ``ChatOpenAI`` client pointed at ``server``."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key="test", max_retries=0, **options)


# -- the scenarios --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One row of the scenario table: the documents retrieved (in order, numbered 1..N for the model),
    the model's replies, and what a correct answer looks like."""

    description: str
    documents: tuple[str, ...] = ("sun", "moon")
    replies: tuple[Reply, ...] = ()
    question: str = "How does the Sun shine, and why does the Moon?"
    cited: tuple[str, ...] = ()
    """The documents the final answer cites, in first-appearance order (its reference list)."""
    notes: tuple[str, ...] = ()
    """Note kinds the answer must carry (``answer_notes``)."""
    extra: Mapping[str, Any] = field(default_factory=dict)


_PLAIN = (
    "The Sun shines because hydrogen fuses into helium in its core [1]. "
    "The Moon reflects the light of the Sun [2]."
)

SCENARIOS: dict[str, Scenario] = {
    "plain": Scenario(
        "a plain question, two sources, both cited", replies=(Reply(_PLAIN),), cited=("sun", "moon")
    ),
    "history": Scenario(
        "a second turn with the first cited answer in the history: an earlier source keeps its number",
        replies=(
            Reply("The Moon reflects the light of the Sun [2]. Its core fuses hydrogen into helium [1]."),
        ),
        cited=("moon", "sun"),
        extra={"first": _PLAIN},
    ),
    "reload": Scenario(
        "the conversation saved, restored in a new process (a subprocess), continued: same numbers",
        replies=(Reply("The Moon reflects the light of the Sun [2]."),),
        cited=("moon",),
    ),
    "parallel_tools": Scenario(
        "an agent calls two retriever tools in parallel (light, then sun); sun's finishes first and is"
        " numbered 1, so the tool messages (in call order) show 2 before 1",
        documents=("sun", "light"),
        replies=(
            Reply(
                tool_calls=(
                    ToolCall("search_light", {"query": "light"}),
                    ToolCall("search_sun", {"query": "sun"}),
                )
            ),
            Reply(
                "Sunlight takes about eight minutes to reach the Earth [2]. "
                "Hydrogen fuses into helium in its core [1]."
            ),
        ),
        cited=("light", "sun"),
    ),
    "follow_up_number": Scenario(
        'a follow-up naming a number ("What else does [2] say?") means the source the reader saw as [2]',
        replies=(Reply("It says that the Moon reflects the light of the Sun back to the Earth [2]."),),
        question="What else does [2] say?",
        cited=("moon",),
        extra={"first": _PLAIN},
    ),
    "think": Scenario(
        "a reasoning model writes <think>...</think> first: its [n] are neither citations nor shown",
        replies=(Reply("<think>Source [2] is about the Moon, [9] does not exist.</think>" + _PLAIN),),
        cited=("sun", "moon"),
    ),
    "lone_think_close": Scenario(
        "an R1-style answer: reasoning, a lone </think>, then the answer",
        replies=(Reply("Source [2] is about the Moon, [9] does not exist.</think>\n\n" + _PLAIN),),
        cited=("sun", "moon"),
    ),
    "reasoning_content": Scenario(
        "reasoning arrives apart (reasoning_content deltas) and never reaches the answer",
        replies=(Reply(_PLAIN, reasoning="Source [2] is about the Moon. [9] does not exist."),),
        cited=("sun", "moon"),
    ),
    "truncated": Scenario(
        'the answer is cut off at the token limit (finish_reason "length") in the middle of a marker',
        replies=(
            Reply(
                "The Sun shines because hydrogen fuses into helium in its core [1]. The Moon reflects [2",
                finish_reason="length",
            ),
        ),
        cited=("sun",),
        notes=("truncated",),
    ),
    "invalid_and_odd_markers": Scenario(
        "markers as models write them: [1, 2], 【2】, and [9] that names no source",
        replies=(
            Reply(
                "The Sun fuses hydrogen into helium [1, 2]. "
                "The Moon reflects the light of the Sun 【2】. It is old [9]."
            ),
        ),
        cited=("sun", "moon"),
        notes=("invalid_markers",),
    ),
    "structured": Scenario(
        "structured output: each string field parsed with one numbering",
        replies=(
            Reply(
                json.dumps(
                    {"summary": "Hydrogen fuses into helium [1].", "moon": "The Moon reflects sunlight [2]."}
                )
            ),
        ),
        cited=("sun", "moon"),
    ),
    "verify_calibration": Scenario(
        "verify=True with a judge and a calibration: honoured, or rejected with ArgumentError",
        replies=(Reply(_PLAIN),),
        cited=("sun", "moon"),
    ),
}
"""The scenario table: name -> ``Scenario``."""


def seen(documents: Sequence[str]) -> dict[int, str]:
    """What the model saw under each number when ``documents`` were numbered 1..N in this order."""
    return {i: DOCUMENTS[name]["text"] for i, name in enumerate(documents, 1)}


def calibration() -> Any:
    """A flag calibration on a few labelled examples (a cell checks that it is honoured)."""
    from cite_core import calibrate_flag

    supported = [(DOCUMENTS["sun"]["text"], DOCUMENTS["sun"]["text"], True)] * 10
    unsupported = [("Cheese is made of milk in Normandy.", DOCUMENTS["moon"]["text"], False)] * 10
    return calibrate_flag(supported + unsupported, folds=2)


def judge_reply(count: int) -> str:
    """A judge's reply rating ``count`` claims supported (``verify``)."""
    return json.dumps(
        {"claims": [{"id": i, "verdict": "supported", "reason": "stated"} for i in range(1, count + 1)]}
    )


# -- the invariants -------------------------------------------------------------------------------

_DISPLAY_MARKER = re.compile(r"\[(\d+)\]")


def check_invariants(streamed_text: str | None, answer: CitedAnswer, seen_numbers: Mapping[int, str]) -> None:
    """The invariants every cell holds (an ``AssertionError`` naming the broken one).

    1. What streamed is the final text (``streamed_text is None``: the entry point does not stream).
    2. Each citation's source is the one the model saw under its number: its ``cited_text`` is in the
       text ``seen_numbers`` gives that number (``document_index + 1``).
    3. The references are exactly the cited sources, deduplicated, in order of first appearance, and
       the display markers of ``answer.text`` name only references; no dangling marker text.
    """
    assert isinstance(answer, CitedAnswer), f"expected a CitedAnswer, got {type(answer).__name__}"
    if streamed_text is not None:
        assert streamed_text == answer.text, f"streamed {streamed_text!r} but the answer says {answer.text!r}"
    for citation in answer.citations:
        number = citation.document_index + 1
        assert number in seen_numbers, f"[{number}] cited, but the model saw no source {number}"
        assert citation.cited_text in seen_numbers[number], (
            f"[{number}] cites {citation.cited_text!r}, not in what the model saw as {number}: "
            f"{seen_numbers[number]!r}"
        )
    cited = list(dict.fromkeys(c.document_index + 1 for c in answer.citations))
    referenced = [ref.source.number for ref in answer.references]
    assert referenced == cited, f"references {referenced} are not the cited sources in order {cited}"
    display = [ref.number for ref in answer.references]
    shown = list(
        dict.fromkeys(n for g in (b.marker_groups for b in answer.content) for m in g for n in m.numbers)
    )
    assert shown == display, f"markers show {shown}, references are {display}"
    in_text = list(dict.fromkeys(int(n) for n in _DISPLAY_MARKER.findall(answer.text)))
    assert in_text == display, f"answer.text shows {in_text}, references are {display}"
    assert not re.search(r"[\[【［〔]\s*\d*\s*$", answer.text), f"dangling marker text: {answer.text[-20:]!r}"


def check_scenario(
    name: str, streamed_text: str | None, answer: CitedAnswer, seen_numbers: Mapping[int, str]
) -> None:
    """``check_invariants``, then what scenario ``name`` expects: the documents its references name, in
    order (by text), and the notes the answer carries."""
    from cite_core import answer_notes

    scenario = SCENARIOS[name]
    check_invariants(streamed_text, answer, seen_numbers)
    named = [_document_of(ref.source.text) for ref in answer.references]
    assert named == list(scenario.cited), f"{name}: references name {named}, expected {list(scenario.cited)}"
    kinds = {note.kind for note in answer_notes(answer)}
    missing = set(scenario.notes) - kinds
    assert not missing, f"{name}: the answer has no {sorted(missing)} note (it has {sorted(kinds)})"


def _document_of(text: str) -> str:
    found = [name for name, doc in DOCUMENTS.items() if doc["text"] in text or text in doc["text"]]
    assert len(found) == 1, f"a reference whose text is no one document: {text[:60]!r}"
    return found[0]


@dataclass(frozen=True)
class Row:
    """One entry point of the matrix: scenario name -> the cell (a callable) or why it does not apply."""

    entry: str
    covers: tuple[str, ...]
    cells: Mapping[str, Callable[[], None] | str]

    def params(self) -> list[Any]:
        """``pytest.param`` per scenario, ids ``entry-scenario`` (for ``@pytest.mark.parametrize``)."""
        import pytest

        return [pytest.param(self, name, id=f"{self.entry}-{name}") for name in SCENARIOS]


def run_cell(row: Row, scenario: str) -> None:
    """Run one cell, or skip it with the reason the table gives (never silently)."""
    import pytest

    cell = row.cells.get(scenario)
    if cell is None:
        pytest.fail(f"{row.entry} has no cell for scenario {scenario!r} (give a callable or a reason)")
    if isinstance(cell, str):
        pytest.skip(f"{row.entry} / {scenario}: {cell}")
    cell()
