"""``create_cited_rag_chain``: a retriever and a chat model in, a streaming cited-answer chain out."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from operator import itemgetter
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, convert_to_messages
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import (
    Runnable,
    RunnableBranch,
    RunnableConfig,
    RunnableLambda,
    RunnablePassthrough,
    RunnablePick,
    RunnableSerializable,
)
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import AddableDict
from pydantic import ConfigDict

from cite_core import PromptError, condense_question_messages

from ._messages import message_text
from ._parser import CitationOutputParser, Output
from ._sources import CitationSources

__all__ = ["create_cited_rag_chain", "is_chat_anthropic"]

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
_ROLE_NAMES = {"human": "user", "ai": "assistant"}
_NOSTREAM = "nostream"
"""The tag LangGraph's ``stream_mode="messages"`` skips: runs whose tokens are not the answer shown."""


def is_chat_anthropic(llm: Any) -> bool:
    """Whether ``llm`` is langchain-anthropic's ``ChatAnthropic`` (also when bound or configured)."""
    module = sys.modules.get("langchain_anthropic")
    chat_anthropic = getattr(module, "ChatAnthropic", None)
    while chat_anthropic is not None:
        if isinstance(llm, chat_anthropic):
            return True
        inner = getattr(llm, "bound", None) or getattr(llm, "default", None)
        if inner is None or inner is llm:
            return False
        llm = inner
    return False


class _Generate(RunnableSerializable[dict[str, Any], dict[str, Any]]):
    """``RunnablePassthrough.assign(message=prompt | llm)``, streamed without a thread per chunk.

    Yields the input dict (sources, prompt variables) first, then ``{"message": chunk}`` per model chunk.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    prompt: Runnable[Any, Any]
    llm: Runnable[Any, Any]
    name: str | None = "generate"

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._invoke, input, config)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self._acall_with_config(self._ainvoke, input, config)

    def transform(
        self, input: Iterator[dict[str, Any]], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        yield from self._transform_stream_with_config(input, self._transform, config)

    async def atransform(
        self, input: AsyncIterator[dict[str, Any]], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        async for chunk in self._atransform_stream_with_config(input, self._atransform, config):
            yield chunk

    def _invoke(
        self, input: dict[str, Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        child = patch_config(config, callbacks=run_manager.get_child())
        return {**input, "message": self.llm.invoke(self.prompt.invoke(input, child), child)}

    async def _ainvoke(
        self, input: dict[str, Any], run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        child = patch_config(config, callbacks=run_manager.get_child())
        return {**input, "message": await self.llm.ainvoke(await self.prompt.ainvoke(input, child), child)}

    def _transform(
        self, input: Iterator[dict[str, Any]], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[dict[str, Any]]:
        prompt = AddableDict()
        for chunk in input:
            prompt = prompt + chunk
        yield prompt
        child = patch_config(config, callbacks=run_manager.get_child())
        for chunk in self.llm.stream(self.prompt.invoke(prompt, child), child):
            yield AddableDict(message=chunk)

    async def _atransform(
        self,
        input: AsyncIterator[dict[str, Any]],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[dict[str, Any]]:
        prompt = AddableDict()
        async for chunk in input:
            prompt = prompt + chunk
        yield prompt
        child = patch_config(config, callbacks=run_manager.get_child())
        async for message in self.llm.astream(await self.prompt.ainvoke(prompt, child), child):
            yield AddableDict(message=message)


def _as_input(input: Any) -> dict[str, Any]:
    """A question string or a ``{"question": ..., "chat_history": [...]}`` dict as the chain's dict."""
    if isinstance(input, str):
        return {"question": input, "chat_history": []}
    if isinstance(input, Mapping) and isinstance(input.get("question"), str):
        return {**input, "chat_history": list(input.get("chat_history") or [])}
    got = f"a dict with keys {sorted(input)}" if isinstance(input, Mapping) else type(input).__name__
    raise PromptError(
        f'the chain takes a question (str) or a dict with "question" and "chat_history", got {got}'
    )


def _condense(llm: Runnable[Any, Any]) -> Runnable[dict[str, Any], str]:
    """The standalone retrieval query of a follow-up question (the question itself without history)."""

    def messages(input: dict[str, Any]) -> list[BaseMessage]:
        history = [
            {"role": _ROLE_NAMES.get(m.type, m.type), "content": message_text(m)}
            for m in convert_to_messages(input["chat_history"])
        ]
        prompt = condense_question_messages(input["question"], history)
        return [_ROLES[m["role"]](content=m["content"]) for m in prompt]

    rewrite = RunnableLambda(messages) | llm.with_config(tags=[_NOSTREAM]) | RunnableLambda(message_text)
    return RunnableBranch(
        (lambda input: not input["chat_history"], itemgetter("question")),
        rewrite | RunnableLambda(lambda text: text.strip()),
    ).with_config(run_name="condense_question")


def create_cited_rag_chain(
    retriever: Runnable[str, Any] | BaseRetriever,
    llm: Runnable[Any, Any] | BaseLanguageModel[Any],
    *,
    prompt: Runnable[dict[str, Any], Any] | None = None,
    native: bool | None = None,
    output: Output = "answer",
    condense_question: bool = False,
    **options: Any,
) -> Runnable[Any, Any]:
    """Retrieve, prompt any chat model to cite its sources, and parse the cited answer.

    The input is a question, or a dict with ``"question"`` and optional ``"chat_history"`` (messages,
    put between the instructions and the question; ``RunnableWithMessageHistory`` fills it). With
    ``condense_question``, a follow-up is first rewritten by ``llm`` into a standalone retrieval query.

    ``output="answer"``: ``invoke`` returns a ``CitedRagAnswer`` (a cite_core ``CitedAnswer``) and
    ``stream`` yields ``TextDelta`` / ``CitationsDelta`` events as the model writes, then the answer.
    ``output="message"``: an ``AIMessage`` whose text has the renumbered markers and LangChain
    ``Citation`` annotations; ``stream`` yields renumbered ``AIMessageChunk``\\ s (annotations on the last).
    ``output="text"``: the renumbered text. ``prompt`` replaces the built-in messages: any runnable (a
    ``ChatPromptTemplate``) over ``context``, ``instructions``, ``question``, ``chat_history`` or
    ``messages``. ``native`` (default: whether ``llm`` is ``ChatAnthropic`` and no ``prompt`` is given)
    uses Claude's own citations. ``options`` go to ``CitationSources`` (``max_tokens``, ``style``,
    ``merge``, ...).

    Equivalent LCEL (without history)::

        {"documents": retriever, "question": RunnablePassthrough()}
        | CitationSources()
        | RunnablePassthrough.assign(message=itemgetter("messages") | llm)
        | CitationOutputParser()
    """
    if native is None:
        native = prompt is None and is_chat_anthropic(llm)
    model_input = prompt if prompt is not None else RunnablePick("messages")
    query = _condense(llm) if condense_question else itemgetter("question")
    retrieve = RunnablePassthrough.assign(query=query) | RunnablePassthrough.assign(
        documents=itemgetter("query") | retriever
    )
    chain = (
        RunnableLambda(_as_input, name="input")
        | retrieve.with_config(run_name="retrieve")
        | CitationSources(native=native, **options)
        | _Generate(prompt=model_input, llm=_hidden(llm, output))
        | CitationOutputParser(output=output)
    )
    return chain.with_config(run_name="cited_rag_chain")


def _hidden(llm: Runnable[Any, Any], output: Output) -> Runnable[Any, Any]:
    """With ``output="message"`` the parser streams the renumbered message: LangGraph hides the raw one."""
    return llm.with_config(tags=[_NOSTREAM]) if output == "message" else llm


def _with_instructions(prompt: Runnable[dict[str, Any], Any]) -> Runnable[dict[str, Any], Any]:
    """``prompt``, with cite_core's citation instructions added to (or before) its system message."""
    if "instructions" in (getattr(prompt, "input_variables", None) or ()):
        return prompt  # the prompt places {instructions} itself

    def messages(value: Any, inputs: dict[str, Any]) -> list[BaseMessage]:
        found = value.to_messages() if hasattr(value, "to_messages") else convert_to_messages(value)
        if found and isinstance(found[0], SystemMessage) and isinstance(found[0].content, str):
            first = found[0].model_copy(update={"content": f"{inputs['instructions']}\n\n{found[0].content}"})
            return [first, *found[1:]]
        return [SystemMessage(inputs["instructions"]), *found]

    def run(inputs: dict[str, Any], config: RunnableConfig) -> list[BaseMessage]:
        return messages(prompt.invoke(inputs, config), inputs)

    async def arun(inputs: dict[str, Any], config: RunnableConfig) -> list[BaseMessage]:
        return messages(await prompt.ainvoke(inputs, config), inputs)

    return RunnableLambda(run, afunc=arun, name="prompt_with_citation_instructions")


def add_citations(
    prompt: Runnable[dict[str, Any], Any],
    llm: Runnable[Any, Any] | BaseLanguageModel[Any],
    *,
    output: Output = "text",
    **options: Any,
) -> Runnable[dict[str, Any], Any]:
    """Your prompt and model, citing: ``{"documents": retriever, ...} | add_citations(prompt, llm)``.

    Replaces ``prompt | llm | StrOutputParser()`` in an existing chain. ``{context}`` in your prompt
    becomes the numbered sources, the citation instructions go into its system message (or where it
    writes ``{instructions}``), and the output is still a string, the answer with renumbered markers
    (``output="message"`` or ``"answer"`` for the other forms). ``options`` go to ``CitationSources``.
    """
    return (
        CitationSources(**options)
        | _Generate(prompt=_with_instructions(prompt), llm=_hidden(llm, output))
        | CitationOutputParser(output=output)
    ).with_config(run_name="add_citations")
