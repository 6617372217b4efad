"""Agents: a retriever tool whose sources keep their numbers across calls, and the session behind it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_messages
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

import cite_core

from ._answer import CitedRagAnswer, rag_answer
from ._documents import document_to_item, has_text
from ._messages import as_output, message_parts

__all__ = ["SESSION_CONFIG_KEY", "CitationSession", "create_cited_retriever_tool"]

SESSION_CONFIG_KEY = "citation_session"
"""``config["configurable"]`` key of the ``CitationSession`` a cited retriever tool numbers into."""


class CitationSession(cite_core.CitationSession):
    """cite_core's ``CitationSession`` for LangChain: numbers ``Document``\\ s, parses messages and states.

    Share one session between every retrieval of a conversation (the calls of
    ``create_cited_retriever_tool``): a document keeps its number across calls and turns, and ``parse``
    turns the final answer into a ``CitedRagAnswer`` that keeps those numbers (the ones the agent wrote
    and a chat UI streamed), whose references cover every call and reach the original ``Document``\\ s.
    """

    def __init__(self, *, merge: bool = True, zero_based_pages: bool = True) -> None:
        super().__init__(merge=merge)
        self.zero_based_pages = zero_based_pages
        """Whether ``metadata["page"]`` is 0-based, as LangChain's PDF loaders write it."""
        self._documents: dict[int, list[Document]] = {}

    def add_documents(self, documents: Sequence[Document]) -> list[cite_core.Source]:
        """Number retrieved ``Document``\\ s (empty ones are skipped); their sources, in first appearance."""
        numbers: list[int] = []
        for index, document in enumerate(documents):
            if not has_text(document, index):
                continue
            [source] = self.add([document_to_item(document, zero_based_pages=self.zero_based_pages)])
            behind = self._documents.setdefault(source.number, [])
            if not any(d is document or d == document for d in behind):
                behind.append(document)
            if source.number not in numbers:
                numbers.append(source.number)
        by_number = {s.number: s for s in self.sources}
        return [by_number[n] for n in numbers]

    @classmethod
    def from_messages(  # type: ignore[override]
        cls, messages: Sequence[Any], *, merge: bool = True, zero_based_pages: bool = True
    ) -> CitationSession:
        """The session of a saved conversation (a checkpointed ``MessagesState``, messages loaded from
        JSON): its tool results numbered again in order (from their ``Document`` artifacts, else from
        the sources they showed) and the numbers its cited answers showed, so that a source seen
        before keeps its number when the conversation continues in a new process."""
        session = cls(merge=merge, zero_based_pages=zero_based_pages)
        for message in convert_to_messages(list(messages)):
            if isinstance(message, ToolMessage):
                documents = _documents(message.artifact)
                if documents:
                    session.add_documents(documents)
                elif isinstance(message.content, str):
                    session.restore(message.content)
            references = message.response_metadata.get("references")
            if isinstance(references, list):
                session.remember(r for r in references if isinstance(r, Mapping))
        return session

    def documents_for(self, number: int) -> list[Document]:
        """The ``Document``\\ s behind source ``number``, in arrival order."""
        return list(self._documents.get(number, ()))

    def parse(self, output: Any, **options: Any) -> CitedRagAnswer:  # type: ignore[override]
        """The final answer (text, ``AIMessage``, or an agent state ``{"messages": [...]}``) as a
        ``CitedRagAnswer`` over every source of the session; reasoning is kept out of the answer."""
        text, reasoning = message_parts(_final_message(output))
        stream = self.stream(**options)
        if reasoning:
            stream.feed_reasoning(reasoning)
        stream.feed(text)
        return rag_answer(stream.finish(), self.sources, self._documents)

    def parser(self, *, output: str = "answer") -> Runnable[Any, Any]:
        """``parse`` as a runnable (``agent | session.parser()``); ``output="message"``: an ``AIMessage``."""
        if output not in ("answer", "message", "text"):
            raise cite_core.PromptError(f'output must be "answer", "message" or "text", got {output!r}')

        def run(value: Any) -> Any:
            return as_output(self.parse(value), output)

        return RunnableLambda(run, name="CitationSession.parser")


def _documents(artifact: Any) -> list[Document]:
    """A tool message's artifact as ``Document`` objects (also as dicts, after a JSON round trip)."""
    if not isinstance(artifact, list):
        return []
    documents = []
    for item in artifact:
        if isinstance(item, Mapping) and isinstance(item.get("page_content"), str):
            item = Document(page_content=item["page_content"], metadata=dict(item.get("metadata") or {}))
        if isinstance(item, Document):
            documents.append(item)
    return documents


def _final_message(output: Any) -> Any:
    """The last AI message of an agent state or message list, or ``output`` itself."""
    if isinstance(output, Mapping) and "messages" in output:
        output = output["messages"]
    if isinstance(output, (list, tuple)):
        messages = [m for m in output if isinstance(m, AIMessage)]
        if not messages:
            raise cite_core.PromptError("no AI message to parse in the agent's messages")
        return messages[-1]
    if isinstance(output, (str, BaseMessage)):
        return output
    raise cite_core.PromptError(f"expected a message, a str or an agent state, got {type(output).__name__}")


class _Query(BaseModel):
    query: str = Field(description="what to search for")


def create_cited_retriever_tool(
    retriever: BaseRetriever | Runnable[str, list[Document]],
    *,
    name: str,
    description: str,
    session: CitationSession | None = None,
) -> BaseTool:
    """A LangChain tool that retrieves and shows the documents as numbered sources to cite with ``[n]``.

    Every call numbers into one ``CitationSession``: the one in ``config["configurable"]
    ["citation_session"]`` when the run gives one, else ``session``, else one the tool creates (as
    ``tool.metadata["citation_session"]``). The tool message's artifact is the retrieved documents.
    Tell the agent to cite with ``cite_core.tool_citation_instructions()`` in its system prompt.
    """
    own = session if session is not None else CitationSession()

    def current(config: RunnableConfig | None) -> CitationSession:
        found = ((config or {}).get("configurable") or {}).get(SESSION_CONFIG_KEY)
        return found if isinstance(found, CitationSession) else own

    def result(documents: list[Document], config: RunnableConfig | None) -> tuple[str, list[Document]]:
        chosen = current(config)
        return chosen.format(chosen.add_documents(documents)), documents

    def search(query: str, config: RunnableConfig) -> tuple[str, list[Document]]:
        return result(retriever.invoke(query, config), config)

    async def asearch(query: str, config: RunnableConfig) -> tuple[str, list[Document]]:
        return result(await retriever.ainvoke(query, config), config)

    return StructuredTool.from_function(
        func=search,
        coroutine=asearch,
        name=name,
        description=description,
        args_schema=_Query,
        response_format="content_and_artifact",
        metadata={SESSION_CONFIG_KEY: own},
    )
