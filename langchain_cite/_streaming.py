"""A cited chain that streams when it is invoked under a streaming consumer, as chat models do.

LangGraph's ``stream_mode="messages"`` and ``astream_events`` attach a streaming callback handler; a
chat model invoked under one streams its tokens to it. A graph node calling ``chain.invoke(...)`` gets
the same from a cited chain: its ``invoke`` then runs ``stream`` and returns what ``invoke`` returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessageChunk, message_chunk_to_message
from langchain_core.runnables import RunnableBinding, RunnableConfig, ensure_config

from cite_core import CitedAnswer, PromptError

from ._messages import without_reset
from ._run import AnswerResetText

__all__ = ["CitedChain", "refuse_history_of_answers"]


def _streamed_to(config: RunnableConfig | None) -> bool:
    """Whether a streaming consumer (LangGraph's messages mode, ``astream_events``) is listening."""
    callbacks = ensure_config(config).get("callbacks")
    handlers = callbacks.handlers if isinstance(callbacks, BaseCallbackManager) else callbacks or []
    return any(hasattr(h, "tap_output_iter") for h in handlers)  # langchain-core's streaming handlers


def _collect(items: Iterable[Any]) -> Any:
    """What ``invoke`` returns, from what ``stream`` yielded: the answer, the text, or the message."""
    last: Any = None
    for item in items:
        if isinstance(item, AnswerResetText):  # what was streamed before was reasoning
            last = ""
        elif isinstance(item, str):
            last = item if not isinstance(last, str) else last + item
        elif isinstance(item, AIMessageChunk):
            last = item if last is None else last + item
        elif isinstance(item, CitedAnswer):
            last = item
    if isinstance(last, AIMessageChunk):
        message = message_chunk_to_message(last)
        for block in message.content:
            if isinstance(block, dict):
                block.pop("index", None)  # the chunks' merge key, not part of an invoked message
        return without_reset(message)
    return last


class CitedChain(RunnableBinding[Any, Any]):  # type: ignore[no-redef]  # its field "kwargs" (mypy plugin)
    """A cited chain (``create_cited_rag_chain``, ``add_citations``): ``invoke`` streams to a streaming
    consumer when one listens, so its tokens show as they are written, with their final numbers."""

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if _streamed_to(config):
            return _collect(self.stream(input, config, **kwargs))
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if _streamed_to(config):
            return _collect([item async for item in self.astream(input, config, **kwargs)])
        return await super().ainvoke(input, config, **kwargs)


def refuse_history_of_answers(output: str, config: RunnableConfig | None) -> None:
    """A clear error when ``RunnableWithMessageHistory`` wraps a chain whose output it cannot store.

    It stores messages or strings; a ``CitedAnswer`` would be logged as an error by a tracer and the
    history left empty, which the user would not see until the model forgot the conversation."""
    configurable = ensure_config(config).get("configurable") or {}
    if output == "answer" and isinstance(configurable.get("message_history"), BaseChatMessageHistory):
        raise PromptError(
            'RunnableWithMessageHistory stores the chain\'s output in the history, and output="answer" '
            'gives a CitedAnswer it cannot store: use output="message" (an AIMessage keeping the citations '
            'and their numbers for later turns) or output="text". LangGraph persistence (a checkpointer with '
            "MessagesState) is the documented way to keep chat history: see docs/langchain.md"
        )
