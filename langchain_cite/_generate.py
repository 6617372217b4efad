"""The generation step of the chains: the prompt, then the model, streamed without a thread per chunk."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.messages import BaseMessage, SystemMessage, convert_to_messages
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda, RunnableSerializable
from langchain_core.runnables.config import patch_config
from langchain_core.runnables.utils import AddableDict
from pydantic import ConfigDict

from cite_core import TruncatedOutputError

__all__ = ["NOSTREAM", "Generate", "hidden", "with_instructions"]

NOSTREAM = "nostream"
"""The tag LangGraph's ``stream_mode="messages"`` skips: runs whose tokens are not the answer shown."""


class Generate(RunnableSerializable[dict[str, Any], dict[str, Any]]):
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
        with _cut_off():
            return {**input, "message": self.llm.invoke(self.prompt.invoke(input, child), child)}

    async def _ainvoke(
        self, input: dict[str, Any], run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        child = patch_config(config, callbacks=run_manager.get_child())
        with _cut_off():
            return {
                **input,
                "message": await self.llm.ainvoke(await self.prompt.ainvoke(input, child), child),
            }

    def _transform(
        self, input: Iterator[dict[str, Any]], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[dict[str, Any]]:
        prompt = AddableDict()
        for chunk in input:
            prompt = prompt + AddableDict(chunk)
        yield prompt
        child = patch_config(config, callbacks=run_manager.get_child())
        with _cut_off():
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
        with _cut_off():
            async for message in self.llm.astream(await self.prompt.ainvoke(prompt, child), child):
                yield AddableDict(message=message)


@contextmanager
def _cut_off() -> Iterator[None]:
    """OpenAI's client refuses to parse a structured reply cut off at the token limit
    (``LengthFinishReasonError``, found by name: the client is an optional dependency): the same
    ``TruncatedOutputError`` as every other cut-off structured reply, invoked or streamed."""
    try:
        yield
    except Exception as error:
        if type(error).__name__ != "LengthFinishReasonError":
            raise
        raise TruncatedOutputError.at_token_limit("length") from error


def with_instructions(prompt: Runnable[dict[str, Any], Any]) -> Runnable[dict[str, Any], Any]:
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


def hidden(llm: Runnable[Any, Any], output: str) -> Runnable[Any, Any]:
    """The model's own run, tagged ``nostream``: its markers are not the ones shown. The parser reports
    the text as shown (final numbers) as a chat model run of its own (``cited_answer``), whatever the
    ``output``, so LangGraph's ``stream_mode="messages"`` and ``astream_events`` consumers that skip
    ``nostream`` runs (LangGraph's rule) see each answer token once, with the final numbers."""
    return llm.with_config(tags=[NOSTREAM])
