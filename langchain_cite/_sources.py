"""``CitationSources``: retrieved ``Document``s in, numbered sources and prompt variables out."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field

from cite_core import build_prompt, citation_instructions, format_sources, to_anthropic_documents

from ._compat import PublicSerializable
from ._conversation import Conversation
from ._documents import LEFT_OUT_KEY, SOURCE_DOCUMENTS_KEY, number_documents
from ._options import check_options, field_names

__all__ = ["CitationSources"]

logger = logging.getLogger("langchain_cite")

_ROLES = {"system": SystemMessage, "user": HumanMessage}


class CitationSources(PublicSerializable, RunnableSerializable[dict[str, Any], dict[str, Any]]):
    """Number the retrieved documents and add the prompt variables a cited answer needs.

    Input: a dict with the question and the retrieved ``Document``s (any other keys pass through),
    for example ``{"documents": retriever, "question": RunnablePassthrough()}``. Output: the same
    dict plus

    - ``sources``: the numbered ``Source``s the model sees (pass them on to ``CitationOutputParser``);
    - ``context``: the sources formatted for the prompt, ``instructions``: the system instructions
      to cite them with ``[n]`` (use both in your own ``ChatPromptTemplate``);
    - ``messages``: the whole prompt as chat messages, ready for any chat model (the conversation in
      ``chat_history``, if any, comes between the instructions and the question);
    - ``dropped``: sources left out by ``max_tokens``, ``truncated``: sources shown only in part (the
      whole sources; see ``on_overflow``); ``native``: whether ``messages`` give Claude
      the sources as ``document`` blocks with citations enabled (see ``native``).
    """

    question_key: str = "question"
    """Input key holding the question."""
    documents_key: str = "documents"
    """Input key holding the retrieved documents (``Document``s, or items for ``number_sources``)."""
    history_key: str = "chat_history"
    """Input key holding the conversation so far (messages), put between the instructions and the question."""
    merge: bool = True
    """Merge chunks of the same document (same ``source``, url or document id) into one source."""
    zero_based_pages: bool = True
    """Whether ``metadata["page"]`` is 0-based, as LangChain's PDF loaders write it."""
    style: Literal["markers", "sentences", "statements"] = "markers"
    """``markers``: cite ``[n]``; ``sentences``: sources show numbered sentences, cite ``[n:s]``;
    ``statements``: sentences numbered across sources, answer ``<statement>S<cite>[a-b]</cite>``."""
    max_tokens: int | None = None
    """Token budget of the prompt (tiktoken); the lowest-ranked sources that do not fit are dropped."""
    encoding: str | None = None
    """tiktoken encoding name for ``max_tokens`` (cite_core's default when unset)."""
    system_template: str | None = None
    """Replaces cite_core's system instructions; may use ``{rules}`` and ``{count}``."""
    user_template: str | None = None
    """Replaces cite_core's user message; may use ``{sources}`` and ``{question}``."""
    native: bool = False
    """Give the sources to Claude as ``document`` blocks with citations enabled (ChatAnthropic only)."""
    answer_schema: Any = Field(default=None, exclude=True)
    """A structured answer's schema (pydantic model class, TypedDict, JSON schema): the instructions ask
    for the citations inside its string fields (cite_core's ``build_prompt(schema=...)``)."""
    show_schema: bool = False
    """Write ``answer_schema`` as JSON schema into the instructions (JSON mode, which does not send it)."""
    on_overflow: Literal["drop", "truncate"] = "drop"
    """With ``max_tokens``: ``drop`` leaves out whole sources (a top-ranked source too big alone is a
    ``TokenBudgetError``); ``truncate`` shows the first source that does not fit in part."""
    name: str | None = "CitationSources"

    def __init__(self, **kwargs: Any) -> None:
        check_options("CitationSources", kwargs, field_names(type(self)))
        super().__init__(**kwargs)

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._prepare, input, config, run_type="prompt")

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return await self._acall_with_config(self._aprepare, input, config, run_type="prompt")

    async def _aprepare(self, input: dict[str, Any]) -> dict[str, Any]:
        return self._prepare(input)

    def _prepare(self, input: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(input, Mapping):
            raise TypeError(
                f"{self.name} expects a dict with {self.question_key!r} and {self.documents_key!r}, "
                f"got {type(input).__name__}"
            )
        missing = [k for k in (self.question_key, self.documents_key) if k not in input]
        if missing:
            raise KeyError(f"{self.name} input has no {missing} (keys: {sorted(input)})")
        question = input[self.question_key]
        conversation = Conversation(input.get(self.history_key) or [])
        left_out: list[str] = []
        numbered, documents = number_documents(
            input[self.documents_key] or [],
            merge=self.merge,
            zero_based_pages=self.zero_based_pages,
            left_out=left_out,
        )
        if not numbered:
            logger.warning("no sources for %r: the answer will cite nothing", question)
        options: dict[str, Any] = {
            "style": self.style,
            "max_tokens": self.max_tokens,
            "on_overflow": self.on_overflow,
        }
        structured: dict[str, Any] = {}
        if self.answer_schema is not None:
            structured = {"schema": self.answer_schema, "show_schema": self.show_schema}
        if self.encoding is not None:
            options["encoding"] = self.encoding
        prompt = build_prompt(
            conversation.question(question, numbered),  # "What else does [2] say?" in this call's numbers
            numbered,
            system_template=self.system_template,
            user_template=self.user_template,
            **options,
            **structured,
        )
        sources = prompt.sources
        native = self.native and bool(sources)
        history = conversation.for_model(sources)
        if native:
            content: list[str | dict[Any, Any]] = [
                *to_anthropic_documents(sources),
                {"type": "text", "text": conversation.question(question, sources)},
            ]
            messages: list[BaseMessage] = [*history, HumanMessage(content=content)]
        else:
            *system, user = [
                _ROLES.get(m["role"], HumanMessage)(content=m["content"]) for m in prompt.messages
            ]
            messages = [*system, *history, user]
        return {
            **input,
            **({self.history_key: history} if self.history_key in input else {}),  # for a prompt of yours
            "sources": sources,
            "dropped": prompt.dropped,
            "truncated": prompt.truncated,  # shown in part (merged chunks that did not all fit)
            LEFT_OUT_KEY: left_out,  # documents with neither text nor caption: the answer reports them
            "context": format_sources(sources, style=self.style),
            "instructions": citation_instructions(
                len(sources), style=self.style, template=self.system_template, **structured
            ),
            "messages": messages,
            "native": native,
            "citation_style": self.style,  # CitationOutputParser reads the numbers as this style
            **conversation.numbering(sources),  # the numbers the reader saw in earlier turns
            SOURCE_DOCUMENTS_KEY: documents,
        }
