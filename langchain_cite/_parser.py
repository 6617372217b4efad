"""``CitationOutputParser``: model output in, citation events and the final ``CitedAnswer`` out, streaming."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    AnswerReset,
    CitationsDelta,
    DisplayDelta,
    FlagCalibration,
    TextDelta,
)

from ._answer import CitedRagAnswer
from ._chatrun import achat_run, atoken, chat_run, result, token
from ._compat import PublicSerializable, content_helpers
from ._messages import as_output, to_ai_message
from ._options import check_options, field_names
from ._run import ParseRun

__all__ = ["CitationOutputParser", "Output", "StreamItem"]

StreamItem = TextDelta | DisplayDelta | CitationsDelta | AnswerReset | CitedRagAnswer
"""What ``CitationOutputParser`` streams by default: text, display and citation events, then the finished
answer (an ``AnswerReset`` when a lone ``</think>`` shows that the text so far was reasoning)."""

Output = Literal["answer", "message", "text"]
"""``answer``: a ``CitedRagAnswer`` (streams events); ``message``: an ``AIMessage`` with annotations (streams
``AIMessageChunk``\\ s); ``text``: the answer text with renumbered markers (streams ``str``)."""


class CitationOutputParser(PublicSerializable, RunnableSerializable[Any, StreamItem]):
    """Parse model output into citation events and a ``CitedRagAnswer``; it streams as the model writes.

    The input is a dict holding the sources of this run and the model's output, the shape that
    ``CitationSources() | RunnablePassthrough.assign(message=prompt | llm)`` produces::

        {"sources": [...], "message": AIMessage | AIMessageChunk | str, "native": False, ...}

    ``sources`` may be the ``Source``s from ``CitationSources`` (the numbering the model saw) or the
    retrieved ``Document``s (numbered here the same way). ``native=True`` reads Claude's own
    ``citations`` (ChatAnthropic given document blocks) instead of ``[n]`` markers.

    ``invoke`` returns the answer; ``stream`` yields ``TextDelta``, ``DisplayDelta`` (the text as shown,
    markers renumbered: they join to ``answer.text``) and ``CitationsDelta`` events as the model writes,
    then the answer, equal to ``invoke``'s (``cite_core.to_ai_sdk_stream`` takes them as they are).
    With ``output="message"``, ``invoke`` returns an ``AIMessage`` (renumbered markers, LangChain
    ``Citation`` annotations) and ``stream`` yields ``AIMessageChunk``\\ s of the renumbered text, the
    annotations on the last one; with ``output="text"`` both give the renumbered text.
    """

    sources_key: str = "sources"
    """Input key holding the sources of this run."""
    message_key: str = "message"
    """Input key holding the model's output (a message, message chunks or a string)."""
    native_key: str = "native"
    """Input key that, when true, reads Claude's native ``citations`` instead of markers."""
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD
    """Citations with a lower support score are listed in ``answer.unsupported_citations``."""
    output: Output = "answer"
    """What ``invoke`` returns and ``stream`` yields (see the class docstring)."""
    calibration: FlagCalibration | None = None
    """A flag threshold from ``calibrate_flag``, instead of ``unsupported_threshold``."""
    embeddings: Any = Field(default=None, exclude=True)
    """An embedding model (LangChain ``Embeddings``) mixed into localisation and support; lexical if None."""
    name: str | None = "CitationOutputParser"

    def __init__(self, **kwargs: Any) -> None:
        check_options("CitationOutputParser", kwargs, field_names(type(self)))
        super().__init__(**kwargs)
        if self.output == "message":
            content_helpers('CitationOutputParser(output="message")')

    @property
    def OutputType(self) -> Any:
        return {"answer": StreamItem, "message": AIMessage, "text": str}[self.output]

    # the result depends on ``output``: a CitedRagAnswer, an AIMessage or the text (see the class docstring)
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._parse, input, config, run_type="parser")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._aparse, input, config, run_type="parser")

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[StreamItem]:
        yield from self._transform_stream_with_config(input, self._transform, config, run_type="parser")

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[StreamItem]:
        async for item in self._atransform_stream_with_config(
            input, self._atransform, config, run_type="parser"
        ):
            yield item

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[StreamItem]:
        yield from self.transform(iter([input]), config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[StreamItem]:
        async def once() -> AsyncIterator[Any]:
            yield input

        async for item in self.atransform(once(), config, **kwargs):
            yield item

    # -- implementation ------------------------------------------------------------------------

    def _parse(self, input: Any) -> Any:
        run = ParseRun(self)
        run.feed(input)
        run.finish()
        return as_output(_answer(run), self.output, run.model)

    async def _aparse(self, input: Any) -> Any:
        return self._parse(input)

    def _transform(
        self, input: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[Any]:
        run = ParseRun(self)
        chat = chat_run(run_manager)
        for chunk in input:
            items = run.feed(chunk)
            for item in run.tokens:
                token(chat, item)
            yield from items
        items = run.finish()
        for item in run.tokens:
            token(chat, item)
        yield from items
        chat.on_llm_end(result(self._message(run)))

    async def _atransform(
        self, input: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> AsyncIterator[Any]:
        run = ParseRun(self)
        chat = await achat_run(run_manager)
        async for chunk in input:
            items = run.feed(chunk)
            for item in run.tokens:
                await atoken(chat, item)
            for item in items:
                yield item
        items = run.finish()
        for item in run.tokens:
            await atoken(chat, item)
        for item in items:
            yield item
        await chat.on_llm_end(result(self._message(run)))

    def _message(self, run: ParseRun) -> AIMessage:
        """The final message of the ``cited_answer`` run: annotated with ``output="message"``
        (langchain-core 1.x), else the answer text."""
        if self.output == "message":
            return to_ai_message(_answer(run), markers=True, model=run.model, id=run.message_id)
        return AIMessage(content=_answer(run).text, id=run.message_id)


def _answer(run: ParseRun) -> CitedRagAnswer:
    """The run's answer, which ``finish`` sets."""
    assert run.answer is not None, "ParseRun.finish() sets the answer"
    return run.answer
