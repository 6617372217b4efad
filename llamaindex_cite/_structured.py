"""Structured answers cited: ``CiteSynthesizer(output_cls=Model)``'s one call through LlamaIndex's
structured LLM (``llm.as_structured_llm``: function calling, or JSON text read by its output parser),
its string fields cited against the sources the prompt showed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.base.response.schema import PydanticResponse
from llama_index.core.llms import ChatResponse
from pydantic import BaseModel

from cite_core import (
    ArgumentError,
    CitationPrompt,
    Source,
    TokenBudgetError,
    TruncatedOutputError,
    build_prompt,
    cite_structured,
)

from ._convert import NumberedNodes
from ._options import refuse
from ._reasoning import last_cut_off, watch_cut_off
from ._tickets import attach_recorder

if TYPE_CHECKING:
    from ._calls import Run
    from ._synthesizer import CiteSynthesizer

__all__ = [
    "CITED_STRUCTURE_KEY",
    "asynthesize_structured",
    "check_output_cls",
    "structured_prompt",
    "structured_response",
    "synthesize_structured",
]

CITED_STRUCTURE_KEY = "cited_structure"
"""Response metadata: the ``CitedStructure`` (citations by path, references, invalid markers, views)."""


def check_output_cls(
    output_cls: Any, *, streaming: bool, native: bool | None, verify: Any = False, judge: Any = None
) -> type[BaseModel] | None:
    """``output_cls`` of a ``CiteSynthesizer`` (one call through ``llm.as_structured_llm(output_cls)``, its
    string fields cited); a clear error for what a structured answer cannot be."""
    if output_cls is None:
        return None
    if not (isinstance(output_cls, type) and issubclass(output_cls, BaseModel)):
        raise ArgumentError(f"output_cls must be a pydantic model class, got {output_cls!r}")
    refuse("CiteSynthesizer(output_cls=...)", {"verify": verify, "judge": judge})
    if streaming:
        raise ArgumentError(
            "output_cls with streaming=True is not supported: a structured answer is cited when it is whole"
        )
    if native:
        raise ArgumentError(
            "native=True cannot be combined with output_cls: Claude's citations are refused with structured "
            "output; leave native unset and the string fields are cited with [n] markers"
        )
    return output_cls


def structured_prompt(
    synthesizer: CiteSynthesizer, question: str, sources: Sequence[Source]
) -> CitationPrompt:
    """One call's prompt asking for ``output_cls`` cited inside its string fields: the best sources that
    fit the budget (the first in part when none fits whole), the rest dropped."""
    s = synthesizer
    options: dict[str, Any] = {
        "style": s.style,
        "max_tokens": s.budget(),
        "encoding": s.encoding,
        "system_template": s.system_template,
        "user_template": s.user_template,
        "schema": s._output_cls,
    }
    try:
        return build_prompt(question, list(sources), on_overflow="drop", **options)
    except TokenBudgetError:
        return build_prompt(question, list(sources), on_overflow="truncate", **options)


def structured_response(
    synthesizer: CiteSynthesizer, numbered: NumberedNodes, prompt: CitationPrompt, reply: ChatResponse
) -> PydanticResponse:
    """The ``PydanticResponse`` of a structured reply: ``response`` the object with its string fields
    cited (display text), ``source_nodes`` the cited nodes, ``metadata`` as a cited answer's plus the
    ``CitedStructure``."""
    parsed = reply.raw
    if not isinstance(parsed, BaseModel):  # StructuredLLM checks this; a custom LLM may not
        raise ArgumentError(
            f"the structured LLM returned {type(parsed).__name__}, not a {synthesizer._output_cls!r} instance"
        )
    structure = cite_structured(
        parsed,
        prompt.sources,
        unsupported_threshold=synthesizer.unsupported_threshold,
        embeddings=synthesizer.embeddings,
        style=prompt.style,
    )
    answer = structure.as_answer()
    raw = reply.message.content or parsed.model_dump_json()
    metadata = numbered.metadata(answer, raw=raw, shown=prompt.sources, dropped=prompt.dropped)
    metadata["invalid_markers"] = [m.model_dump() for m in structure.invalid_markers]
    metadata[CITED_STRUCTURE_KEY] = structure
    metadata["anthropic"] = structure.to_anthropic()
    metadata["llm_calls"] = 1
    metadata["truncated_sources"] = list(prompt.truncated)
    cut = {source.number for source in prompt.truncated}
    parts = [source for source in prompt.sources if source.number in cut]
    metadata["dropped_nodes"] = numbered.dropped_nodes(prompt.dropped, parts)
    return PydanticResponse(
        response=structure.value, source_nodes=numbered.cited_nodes(answer), metadata=metadata
    )


def synthesize_structured(synthesizer: CiteSynthesizer, run: Run) -> PydanticResponse:
    """The structured synthesis of ``run``: one call to ``llm.as_structured_llm(output_cls)``."""
    prompt = structured_prompt(synthesizer, run.plan.question, run.numbered.sources)
    structured = _structured_llm(synthesizer)
    _watch()
    try:
        reply = structured.chat(synthesizer.messages(prompt, run.numbered))
    except ValueError as error:  # LlamaIndex's "Could not extract json" from a partial object
        _raise_if_cut_off(error)
        raise
    _raise_if_cut_off(None)
    run.response = structured_response(synthesizer, run.numbered, prompt, reply)
    return run.response


async def asynthesize_structured(synthesizer: CiteSynthesizer, run: Run) -> PydanticResponse:
    """``synthesize_structured`` with the LLM's async call."""
    prompt = structured_prompt(synthesizer, run.plan.question, run.numbered.sources)
    structured = _structured_llm(synthesizer)
    _watch()
    try:
        reply = await structured.achat(synthesizer.messages(prompt))
    except ValueError as error:
        _raise_if_cut_off(error)
        raise
    _raise_if_cut_off(None)
    run.response = structured_response(synthesizer, run.numbered, prompt, reply)
    return run.response


def _structured_llm(synthesizer: CiteSynthesizer) -> Any:
    output_cls = synthesizer._output_cls
    if output_cls is None:
        raise ArgumentError("a structured synthesis needs output_cls")
    return synthesizer.llm.as_structured_llm(output_cls)


def _watch() -> None:
    """Note how the structured call's LLM call ends: its end event carries the raw finish reason, which
    the structured LLM's own reply (or its parse error) no longer shows."""
    attach_recorder()
    watch_cut_off()


def _raise_if_cut_off(error: Exception | None) -> None:
    """A ``TruncatedOutputError`` when the structured call stopped at the model's token limit: a partial
    object is never cited, and LlamaIndex's parse error would not say why (as LangChain's paths say)."""
    if last_cut_off():
        raise TruncatedOutputError.at_token_limit("length") from error
