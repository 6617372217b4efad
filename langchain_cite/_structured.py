"""Structured answers cited: ``llm.with_structured_output(Model)``'s reply with its string fields cited.

``with_structured_output`` returns the model bound to the schema (tool calling, JSON mode, or a
provider's native structured output) followed by LangChain's output parser. The chain streams the
bound model (so the JSON arrives as the model writes it), reads each partial object as LangChain's
JSON parsers do, and applies LangChain's own parser to the whole reply at the end: a reply that does
not validate raises what that parser raises, and nothing is cited.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.runnables import (
    RunnableConfig,
    RunnableSerializable,
)
from langchain_core.runnables.config import patch_config
from pydantic import Field

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    Source,
    StructuredCitationStream,
    TruncatedOutputError,
    cite_structured,
)

from ._compat import PublicSerializable
from ._documents import number_documents
from ._messages import cut_off, message_text
from ._options import check_options, field_names
from ._structured_message import partial_object, to_structured_message

__all__ = ["StructuredCitationParser", "StructuredOutput"]

StructuredOutput = Literal["answer", "message"]
"""``answer``: a ``CitedStructure`` (streams partial objects first); ``message``: an ``AIMessage``."""


class StructuredCitationParser(PublicSerializable, RunnableSerializable[Any, Any]):
    """The model's structured reply in, a ``CitedStructure`` (or an ``AIMessage``) out; streams.

    The input is the dict ``CitationSources() | RunnablePassthrough.assign(message=prompt | model)``
    makes, whose ``message`` is the reply of the model bound by ``with_structured_output`` (an
    ``AIMessage``, or its chunks while streaming). ``parser`` is the output parser that
    ``with_structured_output`` put after the model (None: ``message`` is already the parsed object).
    ``stream`` yields each partial object (dicts, as LangChain's JSON parsers stream them) with its
    string fields already renumbered, then the ``CitedStructure``, equal to ``invoke``'s.
    """

    parser: Any = Field(default=None, exclude=True)
    """LangChain's parser of the structured reply (from ``with_structured_output``)."""
    sources_key: str = "sources"
    message_key: str = "message"
    output: StructuredOutput = "answer"
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD
    embeddings: Any = Field(default=None, exclude=True)
    """An embedding model (LangChain ``Embeddings``) mixed into localisation and support; lexical if None."""
    name: str | None = "StructuredCitationParser"

    def __init__(self, **kwargs: Any) -> None:
        check_options("StructuredCitationParser", kwargs, field_names(type(self)))  # pydantic ignored them
        super().__init__(**kwargs)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._parse, input, config, run_type="parser")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._aparse, input, config, run_type="parser")

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self._transform_stream_with_config(input, self._transform, config, run_type="parser")

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for item in self._atransform_stream_with_config(
            input, self._atransform, config, run_type="parser"
        ):
            yield item

    # -- implementation ------------------------------------------------------------------------

    def _parse(self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> Any:
        run = _Run(self)
        run.add(input)
        return run.finish(patch_config(config, callbacks=run_manager.get_child()))

    async def _aparse(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        run = _Run(self)
        run.add(input)
        return await run.afinish(patch_config(config, callbacks=run_manager.get_child()))

    def _transform(
        self, input: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[Any]:
        run = _Run(self)
        for chunk in input:
            partial = run.add(chunk)
            if partial is not None and self.output == "answer":
                yield partial
        yield run.finish(patch_config(config, callbacks=run_manager.get_child()))

    async def _atransform(
        self, input: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> AsyncIterator[Any]:
        run = _Run(self)
        async for chunk in input:
            partial = run.add(chunk)
            if partial is not None and self.output == "answer":
                yield partial
        yield await run.afinish(patch_config(config, callbacks=run_manager.get_child()))


class _Run:
    """One parse: the sources, the reply so far, the partial objects shown."""

    def __init__(self, owner: StructuredCitationParser) -> None:
        self.owner = owner
        self.sources: list[Source] | None = None
        self.reply: Any = None
        self.stream: StructuredCitationStream | None = None
        self.shown: Any = None
        self.style = "markers"
        self.numbering: dict[str, Any] = {}  # a conversation's numbers (CitationSources, with chat_history)
        self.known: list[Any] = []  # every number the conversation gave before this turn

    def add(self, chunk: Any) -> Any:
        """Take one input chunk; the renumbered partial object when it changed what is shown, else None."""
        if not isinstance(chunk, Mapping):
            raise OutputParserException(
                f"{self.owner.name} expects a dict with {self.owner.sources_key!r} and "
                f"{self.owner.message_key!r}, got {type(chunk).__name__}"
            )
        if self.owner.sources_key in chunk:
            given = chunk[self.owner.sources_key] or []
            self.sources = given if all(isinstance(s, Source) for s in given) else number_documents(given)[0]
        self.style = chunk.get("citation_style", self.style)
        for key in ("display_numbers", "first_new"):  # the text parser reads the same keys (_run.py)
            if chunk.get(key) is not None:
                self.numbering[key] = chunk[key]
        if isinstance(chunk.get("conversation_numbering"), list):
            self.known = chunk["conversation_numbering"]
        if self.owner.message_key not in chunk:
            return None
        message = chunk[self.owner.message_key]
        self.reply = (
            message if self.reply is None or not isinstance(message, AIMessageChunk) else self.reply + message
        )
        if self.stream is None:
            self.stream = StructuredCitationStream(self._sources(), **self._options())
        partial = self.stream.update(
            partial_object(self.reply) if self.owner.parser is not None else self.reply
        )
        if partial is None or partial == self.shown:
            return None
        self.shown = partial
        return partial

    def _sources(self) -> list[Source]:
        if self.sources is None:
            raise OutputParserException(
                f"{self.owner.name} got no {self.owner.sources_key!r} before the reply"
            )
        return self.sources

    def _options(self) -> dict[str, Any]:
        return {
            "unsupported_threshold": self.owner.unsupported_threshold,
            "embeddings": self.owner.embeddings,
            "style": self.style,
            **self.numbering,
        }

    def _final_message(self) -> Any:
        if self.reply is None:
            raise OutputParserException(
                f"{self.owner.name} got no {self.owner.message_key!r}: no reply to parse"
            )
        reply = message_chunk_to_message(self.reply) if isinstance(self.reply, AIMessageChunk) else self.reply
        if cut_off(reply):  # a partial object would parse (streaming) or not at all (invoke): say why
            metadata = reply.response_metadata
            reason = metadata.get("finish_reason") or metadata.get("stop_reason")
            raise TruncatedOutputError.at_token_limit(reason)
        return reply

    def finish(self, config: RunnableConfig | None) -> Any:
        reply = self._final_message()
        parsed = self.owner.parser.invoke(reply, config) if self.owner.parser is not None else reply
        return self._result(parsed, reply)

    async def afinish(self, config: RunnableConfig | None) -> Any:
        reply = self._final_message()
        parsed = await self.owner.parser.ainvoke(reply, config) if self.owner.parser is not None else reply
        return self._result(parsed, reply)

    def _result(self, parsed: Any, reply: Any) -> Any:
        if parsed is None or isinstance(parsed, (str, BaseMessage)):
            raise OutputParserException(
                "the model gave no structured output (no tool call or JSON object for the schema)",
                llm_output=message_text(reply) if isinstance(reply, BaseMessage) else str(reply),
            )
        if self.stream is not None:
            structure = self.stream.finish(parsed)
        else:
            structure = cite_structured(parsed, self._sources(), **self._options())
        if self.owner.output == "message":
            return to_structured_message(
                structure, reply if isinstance(reply, AIMessage) else None, numbering=self.known
            )
        return structure
