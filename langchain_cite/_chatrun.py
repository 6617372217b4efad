"""The streamed message reported as a chat model run of its own, named ``cited_answer``.

LangGraph's ``stream_mode="messages"`` and chat UIs show the tokens of chat model runs. The model's own
run is tagged ``nostream`` (its markers are not yet renumbered) and the parser reports the renumbered
chunks, then the final message, as this run, whatever its ``output``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, LLMResult

from ._messages import message_text

__all__ = ["CHAT_RUN", "achat_run", "atoken", "chat_run", "result", "token"]

CHAT_RUN = "cited_answer"
"""Name of the chat model run that reports the streamed message chunks."""


def chat_run(run_manager: CallbackManagerForChainRun) -> Any:
    """Start the ``cited_answer`` chat model run under the parser's run."""
    [run] = run_manager.get_child().on_chat_model_start({"name": CHAT_RUN}, [[]], name=CHAT_RUN)
    return run


async def achat_run(run_manager: AsyncCallbackManagerForChainRun) -> Any:
    """Start the ``cited_answer`` chat model run under the parser's run (async)."""
    [run] = await run_manager.get_child().on_chat_model_start({"name": CHAT_RUN}, [[]], name=CHAT_RUN)
    return run


def token(run: Any, item: Any) -> None:
    """Report one streamed chunk (``run`` None: nothing to report)."""
    if run is not None:
        run.on_llm_new_token(message_text(item), chunk=ChatGenerationChunk(message=item))


async def atoken(run: Any, item: Any) -> None:
    """Report one streamed chunk (async)."""
    if run is not None:
        await run.on_llm_new_token(message_text(item), chunk=ChatGenerationChunk(message=item))


def result(message: AIMessage) -> LLMResult:
    """The run's result: the final message."""
    return LLMResult(generations=[[ChatGeneration(message=message)]])
