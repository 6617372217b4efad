"""Agents: a retriever tool whose sources keep their numbers across calls, and the session behind it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_messages
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

import cite_core

from ._answer import CitedRagAnswer, rag_answer
from ._compat import content_helpers
from ._documents import document_to_item, has_text
from ._messages import as_output, cut_off, message_parts

__all__ = ["SESSION_CONFIG_KEY", "CitationSession", "create_cited_retriever_tool"]

RECORD_KEY = cite_core.SOURCES_RECORD_KEY
"""``metadata`` key of a cited retriever tool's artifact documents: the number and key each was shown as."""

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
        return self._sources_of(self._number(documents))

    def _number(self, documents: Sequence[Document]) -> list[tuple[Document, int]]:
        """Each non-empty document with the number it got."""
        numbered = []
        for index, document in enumerate(documents):
            if not has_text(document, index):
                continue
            [source] = self.add([document_to_item(document, zero_based_pages=self.zero_based_pages)])
            self._keep(source.number, document)
            numbered.append((document, source.number))
        return numbered

    def _keep(self, number: int, document: Document) -> None:
        behind = self._documents.setdefault(number, [])
        if not any(d is document or d == document for d in behind):
            behind.append(document)

    def _sources_of(self, numbered: Sequence[tuple[Document, int]]) -> list[cite_core.Source]:
        by_number = {s.number: s for s in self.sources}
        return [by_number[n] for n in dict.fromkeys(n for _, n in numbered) if n in by_number]

    def tool_result(self, documents: Sequence[Document]) -> tuple[str, list[Document]]:
        """A cited retriever tool's output: the numbered sources as the model sees them, and the
        documents as the artifact, each with its record in ``metadata["citation_sources"]`` (its number
        and key), by which ``from_messages`` knows the tool result for the project's own and restores
        each document at the number the model saw, whatever order parallel calls finished in."""
        numbered = self._number(documents)
        sources = self._sources_of(numbered)
        keys = {s.number: self.key(s) for s in sources}
        artifact = [
            Document(
                page_content=d.page_content,
                metadata={**d.metadata, RECORD_KEY: {"number": n, "key": keys[n]}},
                id=d.id,
            )
            for d, n in numbered
        ]
        return self.format(sources), artifact

    @classmethod
    def from_messages(  # type: ignore[override]
        cls,
        messages: Sequence[Any],
        *,
        merge: bool = True,
        zero_based_pages: bool = True,
        tool_names: Sequence[str] = (),
    ) -> CitationSession:
        """The session of a saved conversation (a checkpointed ``MessagesState``, messages loaded from
        JSON, or only its last messages): the documents of its cited retriever tools' results at the
        numbers the model saw (their artifacts' records), and every number its cited answers carry
        (``response_metadata["numbering"]`` and ``["references"]``), so that a source seen before keeps
        its number when the conversation continues in a new process.

        Only the project's own tool results are read: those whose artifact carries the record, and the
        text of tools named in ``tool_names`` (when their artifacts were not kept). Another tool's text
        (a fetched page that writes ``<source number="2" ...>``) never becomes a source."""
        if isinstance(tool_names, str) or not all(isinstance(n, str) for n in tool_names):
            raise cite_core.ArgumentError(f"tool_names must be a list of tool names, got {tool_names!r:.60}")
        names = frozenset(tool_names)
        session = cls(merge=merge, zero_based_pages=zero_based_pages)
        for message in convert_to_messages(list(messages)):
            if isinstance(message, ToolMessage):
                recorded = _recorded(message.artifact)
                if recorded:
                    session._restore_documents(recorded)
                elif message.name in names and isinstance(message.content, str):
                    session.restore(message.content)
            for field in ("numbering", "references"):
                found = message.response_metadata.get(field)
                if isinstance(found, list):
                    session.remember(r for r in found if isinstance(r, Mapping))
        return session

    def check_tool_results(self, messages: Sequence[Any]) -> None:
        """Raise when a cited retriever tool's result among ``messages`` was numbered by another session:
        tools given different sessions (or one left to its own) each number from 1, so the agent's [1]
        would name two documents, and this session would read the other's numbers as its own."""
        for message in messages:
            if not isinstance(message, ToolMessage):
                continue
            for number, key, _ in _recorded(message.artifact):
                known = self._sources.get(number)
                if self._by_key.get(key) != number and (known is None or self.key(known) != key):
                    raise cite_core.ArgumentError(
                        f"the result of tool {message.name!r} was numbered by another CitationSession, so "
                        f"its [{number}] is not this session's: give every cited retriever tool of the "
                        "agent one session (create_cited_retriever_tool(..., session=session), or "
                        '{"configurable": {"citation_session": session}} in the run\'s config), and continue '
                        "a saved conversation with CitationSession.from_messages(messages)"
                    )

    def _restore_documents(self, recorded: Sequence[tuple[int, str, Document]]) -> None:
        """Documents of a tool result at the numbers (and keys) their records give."""
        items = [(n, document_to_item(d, zero_based_pages=self.zero_based_pages)) for n, _, d in recorded]
        restored = {s.number for s in self.restore_items(items, {n: key for n, key, _ in recorded})}
        for number, _, document in recorded:
            if number in restored:
                self._keep(number, document)

    def documents_for(self, number: int) -> list[Document]:
        """The ``Document``\\ s behind source ``number``, in arrival order."""
        return list(self._documents.get(number, ()))

    def parse(self, output: Any, **options: Any) -> CitedRagAnswer:  # type: ignore[override]
        """The final answer (text, ``AIMessage``, or an agent state ``{"messages": [...]}``) as a
        ``CitedRagAnswer`` over every source of the session; reasoning is kept out of the answer."""
        final = _final_message(output)
        if isinstance(output, (Mapping, list, tuple)):
            self.check_tool_results(output["messages"] if isinstance(output, Mapping) else output)
        text, reasoning = message_parts(final)
        stream = self.stream(**options)
        if reasoning:
            stream.feed_reasoning(reasoning)
        stream.feed(text)
        answer = stream.finish(truncated=cut_off(final))
        shown = final.response_metadata.get("invalid_markers") if isinstance(final, AIMessage) else None
        if shown and not answer.invalid_markers and isinstance(shown, list):
            # a message of cited_model: its text no longer shows the invalid markers its metadata names
            answer = answer.model_copy(update={"invalid_markers": [str(m) for m in shown]})
        return self.answer(answer)

    def answer(self, answer: cite_core.CitedAnswer) -> CitedRagAnswer:
        """A core answer over this session's sources as a ``CitedRagAnswer`` (documents, numbering)."""
        return rag_answer(answer, self.sources, self._documents, self.numbering())

    def cited_model(self, model: Any) -> BaseChatModel:
        """``model`` for an agent whose answers a chat UI streams: what it streams and returns is the
        final answer ``parse`` gives (this session's numbers, ``[1, 2]`` as ``[1][2]``, ``【1】`` as
        ``[1]``, invalid markers never shown), with its citations as annotations; tool calls are kept.
        ``create_agent(session.cited_model(llm), [create_cited_retriever_tool(..., session=session)])``.
        Needs langchain-core 1.x (annotations)."""
        from ._agent_model import CitedChatModel

        content_helpers("CitationSession.cited_model")
        return CitedChatModel(model=model, session=self)

    def parser(self, *, output: str = "answer") -> Runnable[Any, Any]:
        """``parse`` as a runnable (``agent | session.parser()``); ``output="message"``: an ``AIMessage``."""
        if output not in ("answer", "message", "text"):
            raise cite_core.PromptError(f'output must be "answer", "message" or "text", got {output!r}')

        def run(value: Any) -> Any:
            return as_output(self.parse(value), output)

        return RunnableLambda(run, name="CitationSession.parser")


def _recorded(artifact: Any) -> list[tuple[int, str, Document]]:
    """The documents of a cited retriever tool's artifact (also as dicts, after a JSON round trip) with
    the number and key their records give, the record taken out of their metadata; none when any
    document lacks a record (another tool's artifact)."""
    if not isinstance(artifact, list) or not artifact:
        return []
    found = []
    for item in artifact:
        if isinstance(item, Mapping) and isinstance(item.get("page_content"), str):
            item = Document(page_content=item["page_content"], metadata=dict(item.get("metadata") or {}))
        if not isinstance(item, Document):
            return []
        metadata = dict(item.metadata)
        record = metadata.pop(RECORD_KEY, None)
        number = record.get("number") if isinstance(record, Mapping) else None
        key = record.get("key") if isinstance(record, Mapping) else None
        if not isinstance(number, int) or isinstance(number, bool) or not isinstance(key, str):
            return []
        found.append((number, key, Document(page_content=item.page_content, metadata=metadata, id=item.id)))
    return found


def _final_message(output: Any) -> Any:
    """The last AI message of an agent state or message list, or ``output`` itself."""
    if isinstance(output, Mapping) and output.get("structured_response") is not None:
        # create_agent(response_format=...): the answer is the object; its last message is a tool call
        # (ToolStrategy) or the object's JSON (ProviderStrategy), neither an answer to parse as text
        raise cite_core.PromptError(
            "the agent answered with a structured response (create_agent(response_format=...)): cite "
            'the object with session.cite_structured(state["structured_response"]), not session.parse'
        )
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
    ``tool.metadata["citation_session"]``). The tool message's artifact is the retrieved documents
    (non-empty ones), each with its record (``metadata["citation_sources"]``: the number it was shown
    as), which ``CitationSession.from_messages`` reads back.
    Tell the agent to cite with ``cite_core.tool_citation_instructions()`` in its system prompt.
    """
    own = session if session is not None else CitationSession()

    def current(config: RunnableConfig | None) -> CitationSession:
        found = ((config or {}).get("configurable") or {}).get(SESSION_CONFIG_KEY)
        return found if isinstance(found, CitationSession) else own

    def result(documents: list[Document], config: RunnableConfig | None) -> tuple[str, list[Document]]:
        return current(config).tool_result(documents)

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
