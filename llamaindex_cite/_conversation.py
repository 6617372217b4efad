"""A chat engine's conversation in one numbering (the LangChain chains do the same; docs/concepts.md).

Each turn numbers its nodes 1..N for the model. Before the model reads an earlier answer, its markers
are rewritten into this turn's numbering from the answer's references (kept in the history message's
``additional_kwargs["references"]``); a marker whose source this turn does not show is removed. The
reader keeps the conversation's numbers: a source cited before shows its earlier number again. A user
who names a number ("What else does [2] say?") names the source the reader saw under it: the question
rewrite reads the answers with those numbers, the chat engine adds that source to the turn's nodes,
and the model reads the question in the turn's numbering.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.base.response.schema import RESPONSE_TYPE

from cite_core import CitationPrompt, CitationSession, CitedAnswer, Source, source_key

from ._convert import NumberedNodes
from ._images import with_images
from ._synthesizer import CiteSynthesizer

__all__ = ["NUMBERING_KEY", "REFERENCES_KEY", "Conversation", "ConversationSynthesizer", "message_references"]

REFERENCES_KEY = "references"
"""``ChatMessage.additional_kwargs`` key of a cited answer's references (``number``, ``key``, ``title``)."""
NUMBERING_KEY = "numbering"
"""``ChatMessage.additional_kwargs`` key of every number the conversation gave up to a cited answer (the
same entries): a history trimmed to its last messages still knows them all, so none is given again."""


def message_references(answer: CitedAnswer | None) -> list[dict[str, Any]]:
    """What a history message keeps of its answer's references: which source each number meant."""
    if answer is None:
        return []
    return [{"number": r.number, "key": source_key(r.source), "title": r.title} for r in answer.references]


def _references(message: ChatMessage, key: str = REFERENCES_KEY) -> list[Mapping[str, Any]]:
    found = message.additional_kwargs.get(key)
    return [r for r in found if isinstance(r, Mapping)] if isinstance(found, list) else []


def numbering(known: Mapping[int, Mapping[str, Any]], references: list[dict[str, Any]]) -> list[Any]:
    """A cited message's ``NUMBERING_KEY`` entries: the numbers ``known`` before it, then its own new ones."""
    merged = {**{r["number"]: r for r in references}, **known}  # a known number keeps its first meaning
    return [dict(merged[n]) for n in sorted(merged)]


class Conversation:
    """The history of a chat as one turn sees it."""

    def __init__(self, history: Sequence[ChatMessage]) -> None:
        self.history = list(history)
        self.session = CitationSession()
        self.references: dict[int, Mapping[str, Any]] = {}
        """What each number the reader saw means (its first meaning: a number is never given again)."""
        for message in self.history:
            refs = [*_references(message, NUMBERING_KEY), *_references(message)]
            self.session.remember(refs)
            for ref in refs:
                if isinstance(ref.get("number"), int) and isinstance(ref.get("key"), str):
                    self.references.setdefault(ref["number"], ref)

    def for_model(self, sources: Sequence[Source]) -> list[ChatMessage]:
        """The history with every marker in the numbering of ``sources``: an earlier answer's by its own
        references, a user's (who wrote the numbers the reader saw) by the conversation's."""
        shown = []
        for message in self.history:
            if isinstance(message.content, str) and message.role in (MessageRole.ASSISTANT, MessageRole.USER):
                own = _references(message) if message.role == MessageRole.ASSISTANT else None
                text = self.rewrite(message.content, sources, own)
                if text != message.content or message.role == MessageRole.ASSISTANT:  # not its references
                    message = ChatMessage(role=message.role, content=text)
            shown.append(message)
        return shown

    def rewrite(
        self, text: str, sources: Sequence[Source], references: list[Mapping[str, Any]] | None = None
    ) -> str:
        """``text`` with its markers in the numbering of ``sources`` (by ``references``; by default the
        conversation's, and then only when it names a number: a question with no marker stays as written)."""
        if references is None:
            if not self.session.named_numbers(text):
                return text
            references = list(self.references.values())
        return self.session.rewrite(text, references, sources)

    def for_condense(self) -> list[ChatMessage]:
        """The history the question rewrite reads: answers with the numbers the reader saw (the numbers a
        follow-up names), each followed by the titles of the sources its numbers name."""
        shown = []
        for message in self.history:
            names = [f"[{r['number']}] {r['title']}" for r in _references(message) if r.get("title")]
            if message.role == MessageRole.ASSISTANT and isinstance(message.content, str) and names:
                message = ChatMessage(
                    role=message.role, content=f"{message.content}\n(Sources: {'; '.join(names)})"
                )
            shown.append(message)
        return shown

    def named(self, text: str) -> list[Mapping[str, Any]]:
        """The references of the numbers ``text`` names that the conversation gave (``key``, ``title``)."""
        return [self.references[n] for n in self.session.named_numbers(text) if n in self.references]

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

    def messages(self, prompt: CitationPrompt, numbered: NumberedNodes | None = None) -> list[ChatMessage]:
        system, *rest = [ChatMessage(role=m["role"], content=m["content"]) for m in prompt.messages]
        if self.multimodal and rest:
            rest[-1] = with_images(rest[-1], prompt.sources, numbered.nodes if numbered else None)
        return [system, *self.conversation.for_model(prompt.sources), *rest]

    def question(self, query: str, sources: Sequence[Source]) -> str:
        """The user's question in this turn's numbering ("What else does [2] say?" names the reader's 2)."""
        return self.conversation.rewrite(query, sources)

    def numbering(self, sources: Sequence[Source]) -> dict[str, Any]:
        """``parse_answer``'s ``display_numbers`` and ``first_new`` for this turn's sources."""
        return self.conversation.numbering(sources)

    def respond(self, numbered: NumberedNodes, prompt: CitationPrompt, raw: str, **kw: Any) -> RESPONSE_TYPE:
        return super().respond(numbered, prompt, raw, **self.numbering(prompt.sources), **kw)
