"""A LangGraph ReAct agent that searches twice and answers with citations covering both searches.

Offline: a scripted tool-calling chat model stands in for a real one (set CITE_EXAMPLE_OPENAI_MODEL to
use an OpenAI model instead). The retriever tool numbers what it finds in one CitationSession, so a
document keeps its number across calls; the session parses the agent's final answer, keeping the
numbers the agent saw and wrote (so a chat UI streaming the agent shows the same ones).

    python examples/langgraph_agent.py ["question"]

Needs the ``langgraph`` extra, which ``[all]`` does not include (in a clone: ``pip install -e
'.[langgraph]'``); without it the example says so in one line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableLambda

from langchain_cite import CitationSession, create_cited_retriever_tool, tool_citation_instructions

NOTES = {
    "sun": [
        Document(
            page_content="The Sun fuses hydrogen into helium in its core.",
            metadata={"source": "notes/sun.md"},
        ),
        Document(
            page_content="The Moon reflects the light of the Sun.", metadata={"source": "notes/moon.md"}
        ),
    ],
    "moon": [
        Document(
            page_content="The Moon reflects the light of the Sun.", metadata={"source": "notes/moon.md"}
        ),
        Document(
            page_content="Mars has two small moons, Phobos and Deimos.", metadata={"source": "notes/mars.md"}
        ),
    ],
}


class ScriptedToolCaller(BaseChatModel):
    """Replies from a script: first two searches, then an answer citing what they returned."""

    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-caller"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedToolCaller:
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        return self.script[sum(isinstance(m, AIMessage) for m in messages)]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        for char in reply.content:
            yield ChatGenerationChunk(message=AIMessageChunk(content=char))
        calls = [{**c, "args": json.dumps(c["args"]), "index": i} for i, c in enumerate(reply.tool_calls)]
        if calls:
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=calls))


def chat_model() -> BaseChatModel:
    if os.environ.get("CITE_EXAMPLE_OPENAI_MODEL"):
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model=os.environ["CITE_EXAMPLE_OPENAI_MODEL"])
    search = [("sun", "c1"), ("moon", "c2")]
    return ScriptedToolCaller(
        script=[
            *(
                AIMessage(content="", tool_calls=[{"name": "search", "args": {"query": q}, "id": i}])
                for q, i in search
            ),
            AIMessage(content="The Sun fuses hydrogen into helium [1], and Mars has two small moons [3]."),
        ]
    )


def build_agent(model: BaseChatModel, tools: list[Any], system_prompt: str) -> Any:
    """LangChain 1.x's ``create_agent`` when installed, else LangGraph's prebuilt ReAct agent."""
    try:
        from langchain.agents import create_agent
    except ImportError:
        with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0
            warnings.simplefilter("ignore")
            from langgraph.prebuilt import create_react_agent

            return create_react_agent(model, tools, prompt=system_prompt)
    return create_agent(model, tools, system_prompt=system_prompt)


def main(question: str) -> None:
    session = CitationSession()
    search = create_cited_retriever_tool(
        RunnableLambda(lambda query: NOTES.get(query, NOTES["sun"])),
        name="search",
        description="Search the astronomy notes (queries: sun, moon).",
        session=session,
    )
    agent = build_agent(chat_model(), [search], tool_citation_instructions())
    state = agent.invoke({"messages": [("user", question)]})
    answer = session.parse(state)
    print(answer.to_markdown())
    for ref in answer.references:
        print(f"[{ref.number}] {ref.title}: {len(ref.documents)} document(s)")  # the numbers the agent wrote


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("question", nargs="*", help="default: What do the Sun and Mars have?")
    question = " ".join(parser.parse_args().question) or "What do the Sun and Mars have?"
    try:
        main(question)
    except ImportError as exc:  # langgraph (or langchain.agents) is not installed
        sys.exit(f"{exc}: this example needs the langgraph extra (in a clone: pip install -e '.[langgraph]')")
