"""A chat engine's conversation in one numbering (the LangChain chains do the same; docs/concepts.md).

Each turn numbers its nodes 1..N for the model. Before the model reads an earlier answer, its markers
are rewritten into this turn's numbering from the answer's references (kept in the history message's
``additional_kwargs["references"]``); a marker whose source this turn does not show is removed. The
reader keeps the conversation's numbers: a source cited before shows its earlier number again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.base.response.schema import RESPONSE_TYPE

from cite_core import CitationPrompt, CitationSession, CitedAnswer, Source, source_key

from ._convert import NumberedNodes
from ._synthesizer import CiteSynthesizer

__all__ = ["REFERENCES_KEY", "Conversation", "ConversationSynthesizer", "message_references"]

REFERENCES_KEY = "references"
"""``ChatMessage.additional_kwargs`` key of a cited answer's references (``number``, ``key``, ``title``)."""


def message_references(answer: CitedAnswer | None) -> list[dict[str, Any]]:
    """What a history message keeps of its answer's references: which source each number meant."""
    if answer is None:
        return []
    return [{"number": r.number, "key": source_key(r.source), "title": r.title} for r in answer.references]


def _references(message: ChatMessage) -> list[Mapping[str, Any]]:
    found = message.additional_kwargs.get(REFERENCES_KEY)
    return [r for r in found if isinstance(r, Mapping)] if isinstance(found, list) else []


class Conversation:
    """The history of a chat as one turn sees it."""

    def __init__(self, history: Sequence[ChatMessage]) -> None:
        self.history = list(history)
        self.session = CitationSession()
        for message in self.history:
            self.session.remember(_references(message))

    def for_model(self, sources: Sequence[Source]) -> list[ChatMessage]:
        """The history with every earlier answer's markers in the numbering of ``sources``."""
        shown = []
        for message in self.history:
            if message.role == MessageRole.ASSISTANT and isinstance(message.content, str):
                text = self.session.rewrite(message.content, _references(message), sources)
                message = ChatMessage(role=MessageRole.ASSISTANT, content=text)
            shown.append(message)
        return shown

    def numbering(self, sources: Sequence[Source]) -> dict[str, Any]:
        """The parser's options for this turn: the numbers the reader saw before, where new ones start."""
        if not any(m.role == MessageRole.ASSISTANT for m in self.history):
            return {}
        return {
            "display_numbers": self.session.display_numbers(sources),
            "first_new": self.session.next_number,
        }


class ConversationSynthesizer(CiteSynthesizer):
    """``CiteSynthesizer`` for one turn of a chat: the history as ``Conversation`` shows it to the model,
    and the conversation's numbers kept for the reader (whole answers and streams)."""

    conversation: Conversation

    def messages(self, prompt: CitationPrompt) -> list[ChatMessage]:
        system, *rest = [ChatMessage(role=m["role"], content=m["content"]) for m in prompt.messages]
        return [system, *self.conversation.for_model(prompt.sources), *rest]

    def numbering(self, sources: Sequence[Source]) -> dict[str, Any]:
        """``parse_answer``'s ``display_numbers`` and ``first_new`` for this turn's sources."""
        return self.conversation.numbering(sources)

    def respond(self, numbered: NumberedNodes, prompt: CitationPrompt, raw: str, **kw: Any) -> RESPONSE_TYPE:
        return super().respond(numbered, prompt, raw, **self.numbering(prompt.sources), **kw)
