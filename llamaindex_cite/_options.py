"""Settings LlamaIndex users pass as they would to LlamaIndex's own components: each one either works
or raises an error that names the fix, never silently does nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llama_index.core.base.response.schema import Response

from cite_core import ArgumentError, CitedAnswer, StreamClosedError, refuse_options

if TYPE_CHECKING:
    from ._calls import ResponseMode

__all__ = [
    "ELSEWHERE",
    "RESPONSE_MODES",
    "CitedResponse",
    "check_engine_options",
    "check_response_mode",
    "refuse",
    "stream_answer",
]

RESPONSE_MODES = ("compact", "refine", "single")
"""The ``response_mode`` values of ``CiteSynthesizer`` and ``CiteQueryEngine``."""

_ENGINE_OPTIONS = {
    "citation_chunk_size": "CiteQueryEngine cites the retrieved nodes whole, sentence by sentence, so "
    "there are no citation chunks to size: choose the chunk size when you index (a node parser such as "
    "SentenceSplitter(chunk_size=...))",
    "citation_chunk_overlap": "CiteQueryEngine does not re-split nodes into citation chunks: choose the "
    "overlap when you index (SentenceSplitter(chunk_overlap=...))",
    "citation_qa_template": "the first call's prompt is cite_core's: pass system_template= and/or "
    "user_template= ({sources} and {question})",
    "citation_refine_template": "later calls use LlamaIndex's refine prompt: pass "
    "CiteSynthesizer(refine_template=...) in an engine of your own",
    "text_qa_template": "the first call's prompt is cite_core's: pass system_template= and/or "
    "user_template= ({sources} and {question})",
    "refine_template": "pass CiteSynthesizer(refine_template=...) in an engine of your own",
    "response_synthesizer": "CiteQueryEngine always answers with its own CiteSynthesizer: use "
    "RetrieverQueryEngine(retriever, response_synthesizer=...) for another one",
    "text_splitter": "CiteQueryEngine does not re-split nodes: split documents when you index",
    "use_async": "call aquery() for async",
}
"""Options of ``CitationQueryEngine`` and ``RetrieverQueryEngine.from_args`` that ``CiteQueryEngine``
does not take (they would otherwise reach ``index.as_retriever`` and vanish there), with the fix."""


_ENGINE = "CiteQueryEngine.from_args(index, ...)"
ELSEWHERE: dict[str, dict[str, str]] = {
    "CitePostprocessor": {
        "calibration": f"it goes to the engine that parses the answer: {_ENGINE} or CiteChatEngine",
        "verify": f"{_ENGINE} or CiteSynthesizer(verify=True); the postprocessor only numbers the nodes",
        "judge": f"{_ENGINE.removesuffix(')')}, verify=True, judge=...) or CiteSynthesizer(verify=judge)",
        "streaming": "the engine streams (as_query_engine(streaming=True, node_postprocessors=[...])); "
        "cite() takes a streaming response as it is",
    },
    "CiteChatEngine.from_defaults": {
        "calibration": "calibration= is CiteQueryEngine's: pass unsupported_threshold="
        "calibration.threshold_for(...) to CiteChatEngine.from_defaults",
        "verify": "a chat engine does not verify its answers, verify= is CiteQueryEngine's: cite_core."
        'verify(response.metadata["cited_answer"], judge) checks one, or use CiteQueryEngine(verify=True)',
        "judge": "judge= is the model of verify, which a chat engine does not run (it is CiteQueryEngine's): "
        'cite_core.verify(response.metadata["cited_answer"], judge)',
        "streaming": "a chat engine streams per call: chat_engine.stream_chat(message)",
        # CondensePlusContextChatEngine's own prompts, which from_defaults' **kwargs would drop
        "context_prompt": "the answer's prompt is cite_core's: pass system_template= and/or user_template=",
        "context_refine_prompt": "later calls use LlamaIndex's refine prompt: pass refine_template=",
    },
    "CiteSynthesizer(output_cls=...)": {
        "verify": "a structured answer is not verified: verify=True checks a text answer (no output_cls=)",
        "judge": "judge= is the model of verify, which checks a text answer (no output_cls=)",
    },
    "CiteSynthesizer": {
        "calibration": f"{_ENGINE.removesuffix(')')}, calibration=...), or make CiteSynthesizer("
        "unsupported_threshold=calibration.threshold_for(...))",
        "judge": "verify= takes the judge itself: CiteSynthesizer(verify=judge)",
    },
}
"""The options each entry point is given by LlamaIndex users but does not apply, and where each goes
(checked by ``cite_core.refuse_options``: an option is honoured or refused, never ignored)."""


def refuse(entry: str, options: dict[str, Any]) -> None:
    """``options`` given to ``entry`` that it does not apply: an ``ArgumentError`` naming where each
    goes (``ELSEWHERE``), or, for a name it does not know at all, the ``TypeError`` Python would raise."""
    refuse_options(entry, options, ELSEWHERE.get(entry, {}))
    unknown = [name for name in options if name not in ELSEWHERE.get(entry, {})]
    if unknown:
        raise ArgumentError(f"{entry}() got unexpected keyword argument(s) {', '.join(map(repr, unknown))}")


def check_response_mode(mode: Any) -> ResponseMode:
    """``mode`` as one of ``RESPONSE_MODES`` (LlamaIndex's ``ResponseMode`` enum values included), else
    an ``ArgumentError`` naming the valid ones."""
    value = getattr(mode, "value", mode)
    if isinstance(value, str) and value in RESPONSE_MODES:
        return value  # type: ignore[return-value]  # one of RESPONSE_MODES
    raise ArgumentError(
        f"response_mode must be one of {', '.join(map(repr, RESPONSE_MODES))}, got {value!r} (LlamaIndex's "
        "tree_summarize, simple_summarize, accumulate and generation modes are not citation modes: "
        "'compact' packs the sources into as few calls as fit)"
    )


def check_engine_options(kwargs: dict[str, Any]) -> None:
    """Raise a ``TypeError`` (``ArgumentError``) for options ``CiteQueryEngine.from_args`` would
    otherwise hand to ``as_retriever``, where LlamaIndex ignores them."""
    known = [name for name in kwargs if name in _ENGINE_OPTIONS]
    if known:
        fixes = "; ".join(f"{name}: {_ENGINE_OPTIONS[name]}" for name in known)
        raise ArgumentError(f"CiteQueryEngine.from_args does not take {', '.join(known)} ({fixes})")


def stream_answer(answer: CitedAnswer | None, error: BaseException | None) -> CitedAnswer:
    """The answer of a consumed stream; a ``StreamClosedError`` naming the cause when the stream failed
    before its answer (``str(response)`` then raised a bare ``AssertionError``)."""
    if answer is None:
        what = f"{type(error).__name__}: {error}" if error is not None else "it ended without an answer"
        raise StreamClosedError(f"the cited stream failed, so it has no answer ({what})") from error
    return answer


_STREAM_ATTRIBUTES = frozenset(("response_gen", "async_response_gen", "print_response_stream"))


@dataclass
class CitedResponse(Response):
    """A cited ``Response`` (not streamed). Reading a stream from it says how to get one: LlamaIndex's
    ``as_query_engine(streaming=True, response_synthesizer=...)`` does not pass ``streaming`` on to a
    synthesizer given to it. An empty answer reads ``""`` (LlamaIndex's reads ``"None"``): a model that
    stopped while reasoning gave no answer, and ``metadata["cited_answer"]``'s notes say why."""

    def __str__(self) -> str:
        return self.response or ""

    def __getattr__(self, name: str) -> Any:
        if name in _STREAM_ATTRIBUTES:
            raise AttributeError(
                f"this cited response was not streamed, so it has no {name}: streaming=True goes to the "
                "synthesizer, CiteSynthesizer(llm=..., streaming=True) (LlamaIndex's as_query_engine and "
                "RetrieverQueryEngine.from_args ignore their streaming= when response_synthesizer= is "
                "given), or use CiteQueryEngine.from_args(..., streaming=True)"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
