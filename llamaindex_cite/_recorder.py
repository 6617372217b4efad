"""The last LLM answers, from LlamaIndex's instrumentation: the text of a stream someone else consumed."""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMCompletionEndEvent

__all__ = ["recorded_answer", "start_recording"]

_LOCK = threading.Lock()
_ANSWERS: deque[tuple[str, str]] = deque(maxlen=64)
"""(prompt, answer) of the most recent LLM calls, oldest first."""


class _AnswerRecorder(BaseEventHandler):
    """Keeps the prompt and full text of each finished LLM call (streamed ones included)."""

    @classmethod
    def class_name(cls) -> str:
        return "CiteAnswerRecorder"

    def handle(self, event: Any, **kwargs: Any) -> None:
        if isinstance(event, LLMCompletionEndEvent):
            prompt, text = event.prompt, event.response.text
        elif isinstance(event, LLMChatEndEvent) and event.response is not None:
            prompt = "\n".join(str(m.content or "") for m in event.messages)
            text = event.response.message.content or ""
        else:
            return
        with _LOCK:
            _ANSWERS.append((prompt, text))


def start_recording() -> None:
    """Attach the recorder to the root dispatcher (once)."""
    root = get_dispatcher()
    if not any(isinstance(h, _AnswerRecorder) for h in root.event_handlers):
        root.add_event_handler(_AnswerRecorder())


def recorded_answer(shown: list[str]) -> str | None:
    """The latest recorded answer to a prompt that showed one of the ``shown`` texts (the last call of
    a refine loop shows only some of them)."""
    with _LOCK:
        for prompt, text in reversed(_ANSWERS):
            if any(part in prompt for part in shown):
                return text
    return None
