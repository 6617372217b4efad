"""Trust notes: the one place where what a reader should know about an answer is worded.

HTML, Markdown, the terminal and JSON all show the notes of :func:`answer_notes`: markers that pointed
at no source, citations with weak support, a reference list the model wrote (removed), an extractive
answer, sources left out by the token budget, what the caller gave that was not shown to the model or
cannot be cited (``CitedAnswer.left_out``), a model that stopped while still reasoning, an empty
answer, and an answer no model was asked for (``CitedAnswer.no_model_asked``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from .._args import check_flag, check_instance, check_items, check_text
from .._schema.models import CitedAnswer, Source
from .blocks import unverified_numbers, weak_numbers
from .labels import detect_lang, labels_for, short

__all__ = ["MAX_NOTE_ITEMS", "Note", "NoteKind", "answer_notes", "check_render_args"]

NoteKind = Literal[
    "invalid_markers",
    "unsupported",
    "removed_reference_list",
    "extractive",
    "dropped_sources",
    "verification",
    "stopped_in_reasoning",
    "truncated",
    "unverified",
    "empty_answer",
    "no_model_asked",
    "left_out",
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
    """Its items: raw invalid markers, ``[n]`` markers with weak support, dropped sources' labels, or what
    was left out (``CitedAnswer.left_out``)."""


def check_render_args(answer: object, lang: object, notes: object) -> list[Note] | None:
    """The arguments every renderer takes, checked (``ArgumentError`` naming the wrong one); the notes
    as a list, or None."""
    check_instance(answer, "answer", CitedAnswer, "a CitedAnswer")
    check_text(lang, "lang", optional=True)
    return check_items(notes, "notes", Note, "notes (Note objects)", optional=True)


def _listed(items: Sequence[str]) -> str:
    shown = " ".join(items[:MAX_NOTE_ITEMS])
    return shown + (" …" if len(items) > MAX_NOTE_ITEMS else "")


def answer_notes(
    answer: CitedAnswer,
    lang: str | None = None,
    *,
    extractive: bool = False,
    dropped: Sequence[Source] = (),
) -> list[Note]:
    """The notes about ``answer`` in ``lang`` (``en``, ``es`` or ``zh``; others get English).

    By default ``lang`` is guessed from the answer's text as the renderers guess it, so that a page's
    labels and its notes are in one language (a Chinese answer read "说明：Extractive answer: ...").

    ``extractive`` says the answer came from ``extractive_answer`` (no model); ``dropped`` are the
    sources the token budget left out (``CitationPrompt.dropped``), which the answer cannot know.
    """
    check_instance(answer, "answer", CitedAnswer, "a CitedAnswer")
    check_text(lang, "lang", optional=True)
    check_flag(extractive, "extractive")
    dropped = check_items(dropped, "dropped", Source, "sources (Source objects)")
    labels = labels_for(lang or detect_lang(answer.plain_text))
    notes: list[Note] = []
    if getattr(answer, "stopped_in_reasoning", False):
        notes.append(Note(kind="stopped_in_reasoning", text=labels["note_stopped_in_reasoning"]))
    elif getattr(answer, "truncated", False):
        notes.append(Note(kind="truncated", text=labels["note_truncated"]))
    elif getattr(answer, "no_model_asked", None) and not answer.text.strip():
        # the model's reply was not empty: there was none (nothing retrieved, or sources only asked for)
        kind = f"note_no_model_{answer.no_model_asked}"
        notes.append(Note(kind="no_model_asked", text=labels[kind]))
    elif not answer.text.strip():
        # nothing to show and no other note would say why the page is blank
        notes.append(Note(kind="empty_answer", text=labels["note_empty_answer"]))
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
    unverified = [f"[{n}]" for n in unverified_numbers(answer)]
    if unverified:
        text = labels["note_unverified"].format(items=_listed(unverified))
        notes.append(Note(kind="unverified", text=text, items=unverified))
    if answer.removed_reference_list:
        notes.append(Note(kind="removed_reference_list", text=labels["note_removed_reference_list"]))
    verified = _verification_note(answer, labels)
    if verified is not None:
        notes.append(verified)
    if dropped:
        items = [f"[{s.number}] {' '.join(s.label.split())}" for s in dropped]
        text = labels["note_dropped_sources"].format(count=len(items), items=_listed(items))
        notes.append(Note(kind="dropped_sources", text=text, items=items))
    left_out = list(getattr(answer, "left_out", None) or [])
    if left_out:
        text = labels["note_left_out"].format(items=_listed(left_out))
        notes.append(Note(kind="left_out", text=text, items=left_out))
    return notes


def _verification_note(answer: CitedAnswer, labels: dict[str, str]) -> Note | None:
    """The judge's verdict on each cited claim (``verify``), or why there is none."""
    verification = answer.verification
    if verification is None or not verification.claims:
        return None
    if verification.problem is not None:
        text = labels["note_verification_failed"].format(problem=verification.problem)
        return Note(kind="verification", text=text, items=[])
    items = []
    for claim in answer.claims:
        if claim.verdict is None:
            continue
        markers = "".join(f"[{n}]" for n in dict.fromkeys(c.reference for c in claim.citations))
        reason = f" ({short(claim.verdict.reason, 160)})" if claim.verdict.reason else ""
        level = labels["verdict_" + claim.verdict.level]
        items.append(f"{markers} “{short(claim.text, 60)}”: {level}{reason}")
    text = labels["note_verification"].format(
        judge=verification.judge, items="; ".join(items[:MAX_NOTE_ITEMS])
    )
    return Note(kind="verification", text=text + (" …" if len(items) > MAX_NOTE_ITEMS else ""), items=items)
