"""Verification of a cited LlamaIndex response (``CiteSynthesizer(verify=True)``): the judge (the
synthesizer's LLM or ``judge=``) checks every cited claim in one call (``cite_core.verify``); the
verified answer replaces ``metadata["cited_answer"]``, ``metadata["verification"]`` says how it went,
and a ``VerificationEvent`` goes to LlamaIndex's instrumentation once the answer has ended (after the
last streamed token when streaming)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events import BaseEvent

from cite_core import ArgumentError, CitedAnswer, Verification, averify, verify

__all__ = [
    "VerificationEvent",
    "averify_response",
    "judge_of",
    "verified",
    "verify_option",
    "verify_response",
]

F = TypeVar("F", bound=Callable[..., Any])

dispatcher = get_dispatcher(__name__)


class VerificationEvent(BaseEvent):
    """Fired when a cited answer has been verified: the judge's verdict on each cited claim."""

    verification: Verification

    @classmethod
    def class_name(cls) -> str:
        return "VerificationEvent"


def _store(response: Any, verified: CitedAnswer) -> None:
    response.metadata["cited_answer"] = verified
    response.metadata["verification"] = verified.verification
    if hasattr(response, "answer"):  # a streaming response keeps its answer too
        response.answer = verified
    assert verified.verification is not None
    dispatcher.event(VerificationEvent(verification=verified.verification))


def verify_response(response: Any, judge: Any) -> None:
    """Verify the cited answer of a finished response in place."""
    answer = response.metadata.get("cited_answer")
    if isinstance(answer, CitedAnswer):
        _store(response, verify(answer, judge))


async def averify_response(response: Any, judge: Any) -> None:
    """``verify_response`` with the judge's async API."""
    answer = response.metadata.get("cited_answer")
    if isinstance(answer, CitedAnswer):
        _store(response, await averify(answer, judge))


def judge_of(synthesizer: Any) -> Any:
    """The judge of a synthesizer's ``verify``: its LLM for True, else the judge given; None when off."""
    verify = getattr(synthesizer, "verify", False)
    if verify is None or verify is False:
        return None
    return synthesizer.llm if verify is True else verify


def verify_option(verify: bool, judge: Any) -> Any:
    """``CiteSynthesizer``'s ``verify`` from an engine's ``verify`` and ``judge`` (True: its LLM)."""
    if judge is not None and not verify:
        raise ArgumentError("judge= is the model of verify=True: pass verify=True with it")
    return (True if judge is None else judge) if verify else False


def verified(span: Callable[[F], F]) -> Callable[[F], F]:
    """``span`` (the dispatcher's) of ``synthesize`` / ``asynthesize`` verifying their response (a
    stream verifies itself after its last token)."""

    def decorate(method: F) -> F:
        if inspect.iscoroutinefunction(method):

            @functools.wraps(method)
            async def arun(self: Any, *args: Any, **kwargs: Any) -> Any:
                response = await method(self, *args, **kwargs)
                judge = judge_of(self)
                if judge is not None and not self._streaming:
                    await averify_response(response, judge)
                return response

            return span(cast(F, arun))

        @functools.wraps(method)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            response = method(self, *args, **kwargs)
            judge = judge_of(self)
            if judge is not None and not self._streaming:
                verify_response(response, judge)
            return response

        return span(cast(F, run))

    return decorate
