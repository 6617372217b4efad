"""``create_cited_rag_chain``: a retriever and a chat model in, a streaming cited-answer chain out."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from operator import itemgetter
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.language_models import BaseLanguageModel
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import (
    Runnable,
    RunnableConfig,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
    RunnableSerializable,
)
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import AddableDict
from pydantic import ConfigDict

from ._parser import CitationOutputParser
from ._sources import CitationSources

__all__ = ["create_cited_rag_chain", "is_chat_anthropic"]


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
            prompt = prompt + AddableDict(chunk)
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
            prompt = prompt + AddableDict(chunk)
        yield prompt
        child = patch_config(config, callbacks=run_manager.get_child())
        async for message in self.llm.astream(await self.prompt.ainvoke(prompt, child), child):
            yield AddableDict(message=message)


def create_cited_rag_chain(
    retriever: Runnable[str, Any] | BaseRetriever,
    llm: Runnable[Any, Any] | BaseLanguageModel[Any],
    *,
    prompt: Runnable[dict[str, Any], Any] | None = None,
    native: bool | None = None,
    **options: Any,
) -> Runnable[str, Any]:
    """Retrieve, prompt any chat model to cite its sources, and parse the cited answer.

    ``chain.invoke(question)`` returns a ``CitedRagAnswer`` (a cite_core ``CitedAnswer``);
    ``chain.stream(question)`` yields ``TextDelta`` / ``CitationsDelta`` events as the model writes,
    then the answer. ``prompt`` replaces the built-in messages: any runnable (a ``ChatPromptTemplate``)
    over ``context``, ``instructions``, ``question`` or ``messages``. ``native`` (default: whether
    ``llm`` is ``ChatAnthropic`` and no ``prompt`` is given) uses Claude's own citations.
    ``options`` go to ``CitationSources`` (``max_tokens``, ``style``, ``merge``, ...).

    Equivalent LCEL::

        {"documents": retriever, "question": RunnablePassthrough()}
        | CitationSources()
        | RunnablePassthrough.assign(message=itemgetter("messages") | llm)
        | CitationOutputParser()
    """
    if native is None:
        native = prompt is None and is_chat_anthropic(llm)
    model_input = prompt if prompt is not None else RunnableLambda(itemgetter("messages"), name="messages")
    retrieve = RunnableParallel(documents=retriever, question=RunnablePassthrough())
    chain = (
        retrieve.with_config(run_name="retrieve")
        | CitationSources(native=native, **options)
        | _Generate(prompt=model_input, llm=llm)
        | CitationOutputParser()
    )
    return chain.with_config(run_name="cited_rag_chain")
