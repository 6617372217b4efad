"""Stream events and character citations built without re-validation, for the parser's hot path.

Each builder gives the instance that validating the same values would give (the same ``__dict__`` in
field order, the same fields set, no extra, no private state), without running pydantic's validator:
the values come from the parser itself, of their field types by construction. The classes are the
public pydantic models of ``_models.py``; ``tests/core/test_fast_paths.py`` checks each builder
against a validated instance.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from ._models import CharLocation, Citation, CitationsDelta, DisplayDelta, TextBlock, TextDelta, ThinkingDelta

__all__ = ["char_location", "citations_delta", "display_delta", "text_block", "text_delta", "thinking_delta"]

_M = TypeVar("_M", bound=BaseModel)
_new = object.__new__
_set = object.__setattr__


def _built(cls: type[_M], values: dict[str, Any], fields_set: set[str]) -> _M:
    """An instance of ``cls`` from values already of their field types, as validation would build it."""
    model = _new(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", fields_set)
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


_CHAR_FIELDS = frozenset(CharLocation.model_fields) - {"type"}


def char_location(
    cited_text: str,
    document_index: int,
    document_title: str | None,
    reference: int,
    support: float,
    start: int,
    end: int,
    offset: int,
    coordinates: Literal["document", "source"] = "source",
) -> CharLocation:
    """``CharLocation(...)`` of ``source.text[start:end]`` (``offset``: from source to document
    coordinates), built without validation: the localiser's values are valid by construction."""
    values = {
        "cited_text": cited_text,
        "document_index": document_index,
        "document_title": document_title,
        "reference": reference,
        "support": float(support),
        "source_start": start,
        "source_end": end,
        "type": "char_location",
        "start_char_index": start + offset,
        "end_char_index": end + offset,
        "coordinates": coordinates,
    }
    return _built(CharLocation, values, set(_CHAR_FIELDS))


def text_delta(text: str) -> TextDelta:
    """``TextDelta(text=text)``, built without validation (``_built`` inlined: one per chunk)."""
    event = _new(TextDelta)
    _set(event, "__dict__", {"type": "text_delta", "text": text})
    _set(event, "__pydantic_fields_set__", {"text"})
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
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


def text_block(text: str, citations: list[Citation] | None, marker_text: str) -> TextBlock:
    """``TextBlock(text=..., citations=..., marker_text=...)``, built without validation (``citations``: a
    new list of the parser's citations, kept as the block's own, or None)."""
    values = {"type": "text", "text": text, "citations": citations, "marker_text": marker_text}
    return _built(TextBlock, values, {"text", "citations", "marker_text"})
