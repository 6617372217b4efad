"""``create_cited_rag_chain``: a retriever and a chat model in, a streaming cited-answer chain out."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from operator import itemgetter
from typing import Any

from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import (
    Runnable,
    RunnableBranch,
    RunnableConfig,
    RunnableLambda,
    RunnablePassthrough,
    RunnablePick,
)

from cite_core import (
    ArgumentError,
    FlagCalibration,
    PromptError,
    SourceError,
    condense_question_messages,
    refuse_options,
)

from ._conversation import Conversation
from ._generate import NOSTREAM, Generate, hidden, with_instructions
from ._messages import message_text
from ._options import ELSEWHERE, check_options, field_names
from ._parser import CitationOutputParser, Output
from ._sources import CitationSources
from ._streaming import CitedChain, refuse_history_of_answers
from ._structured_chain import structured_steps
from ._verify import VerifyAnswer, quiet_judge

__all__ = ["create_cited_rag_chain", "is_chat_anthropic"]

_ROLES = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
_ROLE_NAMES = {"human": "user", "ai": "assistant"}


def is_chat_anthropic(llm: Any) -> bool:
    """Whether every model a run of ``llm`` may call is langchain-anthropic's ``ChatAnthropic``: bound or
    configured, and every configurable alternative and fallback too (``with_fallbacks`` of Claude models
    is Claude). Native citations send Claude's document blocks, which another model would not read as
    sources: a default Claude with an OpenAI alternative or fallback gets the ``[n]`` prompt."""
    chat_anthropic = getattr(sys.modules.get("langchain_anthropic"), "ChatAnthropic", None)
    if chat_anthropic is None:
        return False
    pending, seen = [llm], set()
    while pending:
        item = pending.pop()
        if isinstance(item, chat_anthropic) or id(item) in seen:
            continue
        seen.add(id(item))
        inner = _may_call(item)
        if not inner:  # a model of another kind, or a factory nobody can look into
            return False
        pending.extend(inner)
    return True


def _may_call(llm: Any) -> list[Any]:
    """The runnables a run of ``llm`` may call instead of it: what it binds (``bound``), configures
    (``default`` and every ``alternatives`` value) or falls back on (``runnable``, ``fallbacks``)."""
    found = [getattr(llm, name, None) for name in ("bound", "default", "runnable")]
    found += list(getattr(llm, "fallbacks", None) or ())
    alternatives = getattr(llm, "alternatives", None)
    if isinstance(alternatives, Mapping):
        found += list(alternatives.values())
    return [item for item in found if item is not None and item is not llm]


def _as_input(input: Any) -> dict[str, Any]:
    """A question string or a ``{"question": ..., "chat_history": [...]}`` dict as the chain's dict."""
    if isinstance(input, str):
        return {"question": input, "chat_history": []}
    if isinstance(input, Mapping) and isinstance(input.get("question"), str):
        return {**input, "chat_history": list(input.get("chat_history") or [])}
    got = f"a dict with keys {sorted(input)}" if isinstance(input, Mapping) else type(input).__name__
    raise PromptError(
        f'the chain takes a question (str) or a dict with "question" and "chat_history", got {got}'
    )


def _condense(llm: Runnable[Any, Any]) -> Runnable[dict[str, Any], str]:
    """The standalone retrieval query of a follow-up question (the question itself without history)."""

    def messages(input: dict[str, Any]) -> list[BaseMessage]:
        # the rewrite sees no sources: earlier answers' markers would name nothing there
        history = [
            {"role": _ROLE_NAMES.get(m.type, m.type), "content": message_text(m)}
            for m in Conversation(input["chat_history"]).for_model([])
        ]
        prompt = condense_question_messages(input["question"], history)
        return [_ROLES[m["role"]](content=m["content"]) for m in prompt]

    rewrite = RunnableLambda(messages) | llm.with_config(tags=[NOSTREAM]) | RunnableLambda(message_text)
    return RunnableBranch(
        (lambda input: not input["chat_history"], itemgetter("question")),
        rewrite | RunnableLambda(lambda text: text.strip()),
    ).with_config(run_name="condense_question")


def create_cited_rag_chain(
    retriever: Runnable[str, Any] | BaseRetriever,
    llm: Runnable[Any, Any] | BaseLanguageModel[Any],
    *,
    prompt: Runnable[dict[str, Any], Any] | None = None,
    native: bool | None = None,
    output: Output = "answer",
    condense_question: bool = False,
    semantic: bool = False,
    schema: Any = None,
    structured_output: Mapping[str, Any] | None = None,
    calibration: FlagCalibration | None = None,
    verify: bool = False,
    judge: Any = None,
    **options: Any,
) -> Runnable[Any, Any]:
    """Retrieve, prompt any chat model to cite its sources, and parse the cited answer.

    The input is a question, or a dict with ``"question"`` and optional ``"chat_history"`` (messages,
    put between the instructions and the question; ``RunnableWithMessageHistory`` fills it). With
    ``condense_question``, a follow-up is first rewritten by ``llm`` into a standalone retrieval query.

    ``output="answer"``: ``invoke`` returns a ``CitedRagAnswer`` (a cite_core ``CitedAnswer``) and
    ``stream`` yields ``TextDelta`` / ``DisplayDelta`` / ``CitationsDelta`` events as the model writes,
    then the answer (``cite_core.to_ai_sdk_stream`` serves them to a web UI as they come).
    ``output="message"``: an ``AIMessage`` whose text has the renumbered markers and LangChain
    ``Citation`` annotations; ``stream`` yields renumbered ``AIMessageChunk``\\ s (annotations on the last).
    ``output="text"``: the renumbered text. ``prompt`` replaces the built-in messages: any runnable (a
    ``ChatPromptTemplate``) over ``context``, ``instructions``, ``question``, ``chat_history`` or
    ``messages``. ``native`` (default: whether ``llm`` is ``ChatAnthropic`` and no ``prompt`` is given)
    uses Claude's own citations. ``semantic`` mixes the retriever's embedding model
    (``retriever.vectorstore.embeddings``) into localisation and support. ``options`` go to
    ``CitationSources`` (``max_tokens``, ``style="sentences"`` to cite numbered sentences ``[n:s]``,
    ``merge``, ...). ``calibration``: a flag threshold from ``calibrate_flag``. ``verify=True`` checks
    every cited claim with ``judge`` (default: ``llm``) in one call after the answer ends
    (``cite_core.verify``): ``stream`` then yields a ``VerificationDelta`` before the verified answer.

    ``schema`` (a pydantic model class, TypedDict or JSON schema) asks for a structured answer through
    ``llm.with_structured_output(schema, **structured_output)`` (``{"method": "json_mode"}`` also
    writes the schema into the prompt), cited inside its string fields: ``invoke`` returns a
    ``CitedStructure`` (``output="message"``: an ``AIMessage``), ``stream`` yields the partial objects
    with renumbered markers, then the ``CitedStructure`` (see docs/structured.md).

    Equivalent LCEL (without history)::

        {"documents": retriever, "question": RunnablePassthrough()}
        | CitationSources()
        | RunnablePassthrough.assign(message=itemgetter("messages") | llm)
        | CitationOutputParser()
    """
    _check_source_options("create_cited_rag_chain", options, _CHAIN_OPTIONS)
    structured = None
    if schema is not None:  # a structured answer (_answer/structured.py): no native citations with a schema
        given = {"calibration": calibration, "verify": verify, "judge": judge}
        refuse_options(
            "create_cited_rag_chain(schema=...)", given, ELSEWHERE["create_cited_rag_chain(schema=...)"]
        )
        embeddings = retriever_embeddings(retriever) if semantic else None
        structured = structured_steps(
            llm, schema, prompt, native, output, structured_output, embeddings, options
        )
    if native is None:
        native = prompt is None and is_chat_anthropic(llm)
    model_input = prompt if prompt is not None else RunnablePick("messages")
    query = _condense(llm) if condense_question else itemgetter("question")
    retrieve = RunnablePassthrough.assign(query=query) | RunnablePassthrough.assign(
        documents=RunnablePick("query") | retriever
    )

    def checked_input(input: Any, config: RunnableConfig) -> dict[str, Any]:
        refuse_history_of_answers(output, config)
        return _as_input(input)

    if structured is not None:
        steps = (
            RunnableLambda(checked_input, name="input")
            | retrieve.with_config(run_name="retrieve")
            | structured
        )
        return steps.with_config(run_name="cited_rag_chain")
    chain = (
        RunnableLambda(checked_input, name="input")
        | retrieve.with_config(run_name="retrieve")
        | CitationSources(native=native, **options)
        | Generate(prompt=model_input, llm=hidden(llm, output))
        | CitationOutputParser(
            output=output,
            embeddings=retriever_embeddings(retriever) if semantic else None,
            **({"calibration": calibration} if calibration is not None else {}),
        )
    )
    if verify:
        if output != "answer":
            raise ArgumentError(
                f'verify=True needs output="answer" (the verdicts are on the answer), got {output!r}'
            )
        chain = chain | VerifyAnswer(judge=quiet_judge(llm if judge is None else judge))
    elif judge is not None:
        raise ArgumentError("judge= is the model of verify=True: pass verify=True with it")
    return CitedChain(bound=chain, config={"run_name": "cited_rag_chain"})


def retriever_embeddings(retriever: Any) -> Any:
    """The embedding model of a vector store retriever (``retriever.vectorstore.embeddings``)."""
    store = getattr(retriever, "vectorstore", None)
    embeddings = getattr(store, "embeddings", None)
    if embeddings is None:
        raise SourceError(
            f"semantic=True needs the retriever's embedding model, but {type(retriever).__name__} has no "
            "vectorstore.embeddings: pass a vector store retriever (vector_store.as_retriever()), or give "
            "CitationOutputParser(embeddings=...) the model in your own chain"
        )
    return embeddings


def add_citations(
    prompt: Runnable[dict[str, Any], Any],
    llm: Runnable[Any, Any] | BaseLanguageModel[Any],
    *,
    output: Output = "text",
    **options: Any,
) -> Runnable[dict[str, Any], Any]:
    """Your prompt and model, citing: ``{"documents": retriever, ...} | add_citations(prompt, llm)``.

    Replaces ``prompt | llm | StrOutputParser()`` in an existing chain. ``{context}`` in your prompt
    becomes the numbered sources, the citation instructions go into its system message (or where it
    writes ``{instructions}``), and the output is still a string, the answer with renumbered markers
    (``output="message"`` or ``"answer"`` for the other forms). ``options`` go to ``CitationSources``.
    """
    _check_source_options("add_citations", options, ("prompt", "llm", "output"))
    chain = (
        CitationSources(**options)
        | Generate(prompt=with_instructions(prompt), llm=hidden(llm, output))
        | CitationOutputParser(output=output)
    )
    return CitedChain(bound=chain, config={"run_name": "add_citations"})


_CHAIN_OPTIONS = (
    "retriever",
    "llm",
    "prompt",
    "native",
    "output",
    "condense_question",
    "semantic",
    "schema",
    "structured_output",
    "calibration",
    "verify",
    "judge",
)
_SOURCE_OPTIONS = ("documents_key", "question_key", "history_key", "name")
"""CitationSources' fields that the chains set themselves: not options of theirs."""


def _check_source_options(owner: str, options: dict[str, Any], own: tuple[str, ...]) -> None:
    """``options`` must be ``CitationSources`` options (its own keys and ``native`` aside)."""
    passed = [k for k in field_names(CitationSources) if k not in _SOURCE_OPTIONS and k not in own]
    check_options(owner, options, [*own, *passed])
