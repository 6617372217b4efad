"""``create_cited_rag_chain(schema=...)`` after retrieval: ``with_structured_output`` split into the model
(streamed) and LangChain's parser (applied to the whole reply by ``StructuredCitationParser``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import Runnable, RunnablePick, RunnableSequence

from cite_core import ArgumentError

from ._generate import Generate, hidden
from ._sources import CitationSources
from ._structured import StructuredCitationParser

__all__ = ["split_structured", "structured_steps"]


def split_structured(llm: Any, schema: Any, options: Mapping[str, Any]) -> tuple[Runnable[Any, Any], Any]:
    """``llm.with_structured_output(schema, **options)`` as (the bound model, LangChain's parser); the
    parser is None when the structured runnable is not a model followed by parsers (then it is the
    first item, and nothing streams before the end)."""
    if "include_raw" in options:
        raise ArgumentError("structured_output: include_raw is set by the chain, leave it out")
    try:
        structured = llm.with_structured_output(schema, **options)
    except NotImplementedError as exc:
        raise ArgumentError(
            f"schema= needs a chat model with structured output; {type(llm).__name__}.with_structured_output "
            f"is not implemented ({exc})"
        ) from exc
    if isinstance(structured, RunnableSequence):
        first, *rest = structured.steps
        parser: Any = rest[0] if len(rest) == 1 else RunnableSequence(*rest)
        return first, parser
    return structured, None


def structured_steps(
    llm: Any,
    schema: Any,
    prompt: Runnable[Any, Any] | None,
    native: bool | None,
    output: str,
    structured_output: Mapping[str, Any] | None,
    embeddings: Any,
    options: Mapping[str, Any],
) -> Runnable[Any, Any]:
    """``create_cited_rag_chain(schema=...)`` after retrieval: sources and prompt, the structured model,
    the parser that cites its string fields."""
    if native:
        raise ArgumentError(
            "native=True cannot be combined with schema=: Claude's citations are refused with structured "
            "output; leave native unset and the string fields are cited with [n] markers"
        )
    if output not in ("answer", "message"):
        raise ArgumentError(f'with schema=, output must be "answer" or "message", got {output!r}')
    structured_output = dict(structured_output or {})
    model, parser = split_structured(llm, schema, structured_output)
    sources = CitationSources(
        answer_schema=schema, show_schema=structured_output.get("method") == "json_mode", **options
    )
    generate = Generate(
        prompt=prompt if prompt is not None else RunnablePick("messages"), llm=hidden(model, output)
    )
    return sources | generate | StructuredCitationParser(parser=parser, output=output, embeddings=embeddings)
