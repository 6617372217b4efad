"""A chain's conversation in one numbering: the history the model reads and the numbers the reader sees.

Each call of a chain numbers its sources 1..N for the model. Before the model reads an earlier answer,
its markers are rewritten into this call's numbering from the answer's citation metadata (a marker
whose source this call does not show is removed), so ``[k]`` in the history always means
``<source number="k">`` of this call. The reader keeps the conversation's numbers: a source an earlier
answer cited shows its earlier number again, new ones the next numbers (see docs/concepts.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages

from cite_core import CitationSession, CitedAnswer, CitedStructure, Source

from ._messages import history_message, message_text
from ._structured_message import to_structured_message

__all__ = ["Conversation"]


def _references(message: BaseMessage, field: str = "references") -> list[Mapping[str, Any]]:
    """The ``{"number", "key"}`` entries a cited message's metadata holds at ``field`` (``references``:
    what it cited; ``numbering``: every number the conversation gave until then); none for others."""
    references = message.response_metadata.get(field) if isinstance(message, AIMessage) else None
    return [r for r in references if isinstance(r, Mapping)] if isinstance(references, list) else []


def _as_message(item: Any) -> Any:
    """A history item as a message: what a chain returned (a ``CitedAnswer``, a ``CitedStructure``) as
    the message ``output="message"`` gives, with the references later turns read; others as they are."""
    if isinstance(item, CitedAnswer):
        return history_message(item)
    if isinstance(item, CitedStructure):
        return to_structured_message(item)
    return item


class Conversation:
    """The conversation so far (``chat_history``) as one call of a chain sees it."""

    def __init__(self, history: Sequence[Any]) -> None:
        items = [_as_message(h) for h in history]
        self.messages: list[BaseMessage] = convert_to_messages(items)
        self.session = CitationSession()
        for message in self.messages:
            self.session.remember(_references(message))
            self.session.remember(_references(message, "numbering"))  # a trimmed history keeps it all

    def for_model(self, sources: Sequence[Source]) -> list[BaseMessage]:
        """The history with every earlier answer's markers in the numbering of ``sources``."""
        shown = []
        for message in self.messages:
            if isinstance(message, AIMessage) and not message.tool_calls:
                text = self.session.rewrite(message_text(message), _references(message), sources)
                message = AIMessage(content=text, id=message.id, name=message.name)
            shown.append(message)
        return shown

    def question(self, question: Any, sources: Sequence[Source]) -> Any:
        """The user's question as the model reads it: a marker naming a number the reader saw ("What
        else does [2] say?") written as the number of the same source among ``sources`` (removed when
        this call does not show it). Unchanged without a cited history or when not a str."""
        if not isinstance(question, str) or not self.messages or "[" not in question:
            return question
        return self.session.rewrite(question, self.session.numbering(), sources)

    def numbering(self, sources: Sequence[Source]) -> dict[str, Any]:
        """The parser's options for this call: the numbers the reader saw before, and where new ones start."""
        if not self.messages:
            return {}
        return {
            "display_numbers": self.session.display_numbers(sources),
            "first_new": self.session.next_number,
            "conversation_numbering": self.session.numbering(),
        }
