"""A structured reply read while it streams (the partial object), and a cited structure as an AIMessage."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.utils.json import parse_json_markdown, parse_partial_json

from cite_core import CitedStructure, source_key

from ._messages import message_text

__all__ = ["partial_object", "to_structured_message"]


def partial_object(message: Any) -> Any:
    """The object a partial reply holds so far: the first tool call's arguments, else the JSON in its
    text, read as LangChain's partial JSON parsers read them; None when nothing is readable yet."""
    if not isinstance(message, BaseMessage):
        return None
    calls = getattr(message, "tool_calls", None)
    if calls:
        args = calls[0].get("args")
        return args if isinstance(args, (dict, list)) else None
    text = message_text(message)
    if not text.strip():
        return None
    try:
        found = parse_json_markdown(text, parser=parse_partial_json)
    except (ValueError, TypeError):  # not JSON (yet)
        return None
    return found if isinstance(found, (dict, list)) else None


def to_structured_message(
    structure: CitedStructure, raw: AIMessage | None = None, numbering: Sequence[Mapping[str, Any]] = ()
) -> AIMessage:
    """An ``AIMessage`` of a cited structure: its content the cited object as JSON (display text),
    ``additional_kwargs["parsed"]`` the object, and its citations, references and invalid markers; the
    raw reply's id, usage and response metadata are kept (its tool call is the answer, so not kept).
    ``response_metadata`` carries what a text answer's message does for later turns: ``references``
    (number and key) and ``numbering`` (``numbering``, the conversation's before, with this answer's),
    so a structured turn in ``chat_history`` keeps its numbers as a text turn does."""
    value = structure.value
    data = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    extra = {
        "parsed": value,
        "citations_by_path": {
            path: [block.to_anthropic() for block in blocks]
            for path, blocks in structure.citations_by_path.items()
        },
        "references": [
            {
                "number": ref.number,
                "document_index": ref.source.number - 1,
                "title": ref.source.title,
                "url": ref.source.url,
            }
            for ref in structure.references
        ],
        "invalid_markers": [marker.model_dump() for marker in structure.invalid_markers],
    }
    keyed = [{"number": ref.number, "key": source_key(ref.source)} for ref in structure.references]
    known = {entry["number"]: dict(entry) for entry in numbering}
    for entry in keyed:
        known.setdefault(entry["number"], entry)
    turns = {"references": keyed, "numbering": [known[n] for n in sorted(known)]}
    keep: dict[str, Any] = {"response_metadata": turns}
    if raw is not None:
        keep = {"id": raw.id, "response_metadata": {**raw.response_metadata, **turns}}
        if raw.usage_metadata is not None:
            keep["usage_metadata"] = raw.usage_metadata
    return AIMessage(
        content=json.dumps(data, ensure_ascii=False, default=str), additional_kwargs=extra, **keep
    )
