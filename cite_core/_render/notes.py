"""Trust notes: the one place where what a reader should know about an answer is worded.

HTML, Markdown, the terminal and JSON all show the notes of :func:`answer_notes`: markers that pointed
at no source, citations with weak support, a reference list the model wrote (removed), an extractive
answer, sources left out by the token budget, and a model that stopped while still reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from .blocks import weak_numbers
from .labels import labels_for

if TYPE_CHECKING:
    from .._models import CitedAnswer, Source

__all__ = ["MAX_NOTE_ITEMS", "Note", "NoteKind", "answer_notes"]

NoteKind = Literal[
    "invalid_markers",
    "unsupported",
    "removed_reference_list",
    "extractive",
    "dropped_sources",
    "stopped_in_reasoning",
]

MAX_NOTE_ITEMS = 20
"""A note lists at most this many items in its text (``Note.items`` keeps them all)."""


class Note(BaseModel):
    """Something a reader should know about an answer, worded in one language."""

    kind: NoteKind
    """What the note is about (one of ``NoteKind``)."""
    text: str
    """The note as a sentence, in the language asked for (model and document text in it is not escaped)."""
    items: list[str] = Field(default_factory=list)
    """Its items: raw invalid markers, ``[n]`` markers with weak support, or dropped sources' labels."""


def _listed(items: Sequence[str]) -> str:
    shown = " ".join(items[:MAX_NOTE_ITEMS])
    return shown + (" …" if len(items) > MAX_NOTE_ITEMS else "")


def answer_notes(
    answer: CitedAnswer,
    lang: str = "en",
    *,
    extractive: bool = False,
    dropped: Sequence[Source] = (),
) -> list[Note]:
    """The notes about ``answer`` in ``lang`` (``en``, ``es`` or ``zh``; others get English).

    ``extractive`` says the answer came from ``extractive_answer`` (no model); ``dropped`` are the
    sources the token budget left out (``CitationPrompt.dropped``), which the answer cannot know.
    """
    labels = labels_for(lang)
    notes: list[Note] = []
    if getattr(answer, "stopped_in_reasoning", False):
        notes.append(Note(kind="stopped_in_reasoning", text=labels["note_stopped_in_reasoning"]))
    if extractive:
        notes.append(Note(kind="extractive", text=labels["note_extractive"]))
    if answer.invalid_markers:
        items = list(answer.invalid_markers)
        notes.append(
            Note(
                kind="invalid_markers",
                text=labels["note_invalid_markers"].format(items=_listed(items)),
                items=items,
            )
        )
    weak = [f"[{n}]" for n in weak_numbers(answer)]
    if weak:
        notes.append(
            Note(kind="unsupported", text=labels["note_unsupported"].format(items=_listed(weak)), items=weak)
        )
    if answer.removed_reference_list:
        notes.append(Note(kind="removed_reference_list", text=labels["note_removed_reference_list"]))
    if dropped:
        items = [f"[{s.number}] {' '.join(s.label.split())}" for s in dropped]
        text = labels["note_dropped_sources"].format(count=len(items), items=_listed(items))
        notes.append(Note(kind="dropped_sources", text=text, items=items))
    return notes
