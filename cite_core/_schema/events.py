"""Stream events and character citations built without re-validation, for the parser's hot path.

Each builder gives the instance that validating the same values would give (the same ``__dict__`` in
field order, the same fields set, no extra, no private state), without running pydantic's validator:
the values come from the parser itself, of their field types by construction. The classes are the
public pydantic models of ``models.py``; ``tests/core/test_fast_paths.py`` checks each builder
against a validated instance.
"""

from __future__ import annotations

from typing import Any, Literal

from .built import MODEL_SLOTS
from .built import built as _built
from .models import (
    CharLocation,
    Citation,
    CitationsDelta,
    CitedAnswer,
    DisplayDelta,
    MarkerGroup,
    Reference,
    TextBlock,
    TextDelta,
    ThinkingDelta,
)
from .source import Source

__all__ = [
    "MODEL_SLOTS",
    "char_location",
    "citations_delta",
    "cited_answer",
    "display_delta",
    "marker_group",
    "reference",
    "text_block",
    "text_delta",
    "thinking_delta",
]

_new, _set_dict, _set_fields, _set_extra, _set_private = MODEL_SLOTS


_CHAR_FIELDS = frozenset(CharLocation.model_fields) - {"type"}
_UTF16 = frozenset(f for f in _CHAR_FIELDS if f.endswith("_utf16"))


def char_location(
    cited_text: str,
    document_index: int,
    document_title: str | None,
    reference: int,
    support: float,
    start: int,
    end: int,
    offset: int,
    segment: int | None,
    utf16: tuple[int | None, int | None] = (None, None),
    in_document: bool = False,
    coordinates: Literal["document", "source"] = "source",
) -> CharLocation:
    """``CharLocation(...)`` of ``source.text[start:end]`` (``offset``: from source to document
    coordinates; ``utf16``: start and end in UTF-16 code units of the source text, the document's
    unless ``in_document``), built without validation: the localiser's values are valid by construction."""
    values = {
        "cited_text": cited_text,
        "document_index": document_index,
        "document_title": document_title,
        "reference": reference,
        "support": float(support),
        "source_start": start,
        "source_end": end,
        "segment": segment,
        "source_start_utf16": utf16[0],
        "source_end_utf16": utf16[1],
        "type": "char_location",
        "start_char_index": start + offset,
        "end_char_index": end + offset,
        "start_char_index_utf16": None if in_document else utf16[0],
        "end_char_index_utf16": None if in_document else utf16[1],
        "coordinates": coordinates,
    }
    return _built(CharLocation, values, set(_CHAR_FIELDS if utf16[0] is not None else _CHAR_FIELDS - _UTF16))


def text_delta(text: str) -> TextDelta:
    """``TextDelta(text=text)``, built without validation (``_built`` inlined: one per chunk)."""
    event = _new(TextDelta)
    _set_dict(event, {"type": "text_delta", "text": text})
    _set_fields(event, {"text"})
    _set_extra(event, None)
    _set_private(event, None)
    return event


def display_delta(text: str) -> DisplayDelta:
    """``DisplayDelta(text=text)``, built without validation."""
    return _built(DisplayDelta, {"type": "display_delta", "text": text}, {"text"})


def thinking_delta(thinking: str) -> ThinkingDelta:
    """``ThinkingDelta(thinking=thinking)``, built without validation."""
    return _built(ThinkingDelta, {"type": "thinking_delta", "thinking": thinking}, {"thinking"})


def citations_delta(citation: Citation, claim_start: int, claim_end: int) -> CitationsDelta:
    """``CitationsDelta(citation=..., claim_start=..., claim_end=...)``, built without validation."""
    return _built(
        CitationsDelta,
        {"type": "citations_delta", "citation": citation, "claim_start": claim_start, "claim_end": claim_end},
        {"citation", "claim_start", "claim_end"},
    )


def text_block(
    text: str, citations: list[Citation] | None, marker_text: str, marker_groups: list[MarkerGroup]
) -> TextBlock:
    """``TextBlock(text=..., citations=..., marker_text=..., marker_groups=...)``, built without
    validation (``citations``, ``marker_groups``: new lists of the parser's, kept as the block's own)."""
    values = {
        "type": "text",
        "text": text,
        "citations": citations,
        "marker_text": marker_text,
        "marker_groups": marker_groups,
    }
    return _built(TextBlock, values, {"text", "citations", "marker_text", "marker_groups"})


def marker_group(numbers: list[int], citations: list[Citation], lead: str, tail: str) -> MarkerGroup:
    """``MarkerGroup(numbers=..., citations=..., lead=..., tail=...)``, built without validation (the lists:
    new ones of the assembler's, kept as the group's own; one group per marker run of an answer)."""
    values = {"numbers": numbers, "citations": citations, "lead": lead, "tail": tail}
    return _built(MarkerGroup, values, {"numbers", "citations", "lead", "tail"})


def reference(number: int, source: Source) -> Reference:
    """``Reference(number=number, source=source)``; built without validation when ``number`` is a display
    number (an int from 1) and ``source`` a ``Source`` (validation keeps the instance itself)."""
    if type(number) is not int or number < 1 or type(source) is not Source:
        return Reference(number=number, source=source)
    return _built(Reference, {"number": number, "source": source}, {"number", "source"})


_ANSWER_FIELDS = (
    "text",
    "content",
    "references",
    "invalid_markers",
    "removed_reference_list",
    "unsupported_threshold",
    "reasoning",
    "stopped_in_reasoning",
    "truncated",
)


def cited_answer(
    text: str,
    content: list[TextBlock],
    references: list[Reference],
    invalid_markers: list[str],
    removed_reference_list: str | None,
    unsupported_threshold: float,
    reasoning: str,
    stopped_in_reasoning: bool,
    truncated: bool,
) -> CitedAnswer:
    """``CitedAnswer(text=..., ...)`` of these nine fields (the rest their defaults), built without
    validation when every value is of its field's type as the parser makes it (the lists: new ones, kept
    as the answer's own); else validated. One per answer, with a validated answer's private state."""
    values: dict[str, Any] = {
        "text": text,
        "content": content,
        "references": references,
        "invalid_markers": invalid_markers,
        "removed_reference_list": removed_reference_list,
        "unsupported_threshold": unsupported_threshold,
        "reasoning": reasoning,
        "stopped_in_reasoning": stopped_in_reasoning,
        "truncated": truncated,
    }
    if not (
        type(text) is str
        and type(reasoning) is str
        and (removed_reference_list is None or type(removed_reference_list) is str)
        and type(unsupported_threshold) is float
        and type(stopped_in_reasoning) is bool
        and type(truncated) is bool
        and all(type(block) is TextBlock for block in content)
        and all(type(ref) is Reference for ref in references)
        and all(type(marker) is str for marker in invalid_markers)
    ):
        return CitedAnswer(**values)
    values["left_out"] = []
    values["no_model_asked"] = None
    return _built(CitedAnswer, values, set(_ANSWER_FIELDS), {"_verification": None})
