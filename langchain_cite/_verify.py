"""``VerifyAnswer``: the grounding check of ``create_cited_rag_chain(..., verify=True)`` as a chain step.

It passes the parser's stream through and, when the finished answer arrives, asks the judge (the
chain's model or ``judge=``) about every cited claim in one call (``cite_core.verify``), then streams a
``VerificationDelta`` and the verified answer (``invoke`` returns the verified answer).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
from pydantic import ConfigDict

from cite_core import CitedAnswer, VerificationDelta, averify, verify

from ._generate import NOSTREAM

__all__ = ["VerifyAnswer", "quiet_judge"]


def quiet_judge(judge: Any) -> Any:
    """A LangChain judge whose tokens stay out of the streamed answer (tagged like the other hidden
    model calls); any other judge as it is."""
    if isinstance(judge, Runnable):
        return judge.with_config(tags=[NOSTREAM], run_name="verify")
    return judge


class VerifyAnswer(RunnableSerializable[Any, Any]):
    """Verify the cited answer of the stream it is given; everything else passes through."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    judge: Any
    """A LangChain chat model, a LlamaIndex LLM, a CrossEncoder or a function (``cite_core.verify``)."""
    name: str | None = "verify_answer"

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._verify, input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._averify, input, config)

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self._transform_stream_with_config(input, self._transform, config)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async for item in self._atransform_stream_with_config(input, self._atransform, config):
            yield item

    def _verify(self, input: Any) -> Any:
        return verify(input, self.judge) if isinstance(input, CitedAnswer) else input

    async def _averify(self, input: Any) -> Any:
        return await averify(input, self.judge) if isinstance(input, CitedAnswer) else input

    def _transform(
        self, input: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[Any]:
        for item in input:
            if isinstance(item, CitedAnswer):
                item = verify(item, self.judge)
                yield VerificationDelta(verification=item.verification)
            yield item

    async def _atransform(
        self, input: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> AsyncIterator[Any]:
        async for item in input:
            if isinstance(item, CitedAnswer):
                item = await averify(item, self.judge)
                yield VerificationDelta(verification=item.verification)
            yield item
