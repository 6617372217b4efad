"""The answer for a terminal: text with markers, a dim line per note, then the references.

Everything that came from a document or the model passes through :func:`strip_controls`, so no
escape sequence (ESC/CSI/OSC: colours, hyperlinks, window titles, clipboard writes, clearing the
screen) and no bidi override reaches the terminal. The only escape sequences are our own colours,
and only with ``color=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._args import check_flag, check_text
from .blocks import citations_by_reference, walk
from .labels import cited_pages, detect_lang, labels_for, one_line, short, short_name
from .location import source_path
from .notes import Note, answer_notes, check_render_args
from .reveal import reveal_invisible

if TYPE_CHECKING:
    from .._schema.models import Citation, CitedAnswer, Reference

__all__ = ["MAX_QUOTE_CHARS", "render_terminal", "strip_controls"]

MAX_QUOTE_CHARS = 240
"""A cited passage longer than this is cut (with ``…``) in the terminal's reference list."""

_TABLE: dict[int, str] = {c: chr(0x2400 + c) for c in range(32) if c not in (9, 10)}  # C0 -> control pictures
_TABLE[0x7F] = "\u2421"  # DEL -> ␡
_TABLE.update(dict.fromkeys(range(0x80, 0xA0), "\ufffd"))  # C1 (0x9B is a one-byte CSI) -> �
_MARKS = {ord(c): "" for c in "\u061c\u200e\u200f"}

_STYLE = {"marker": "36", "weak": "33;4", "note": "2", "heading": "1", "quote": "2"}


def strip_controls(text: str) -> str:
    """``text`` safe to print to a terminal: C0 controls (except ``\\n`` and ``\\t``) and DEL become
    visible control pictures (``␛``, ``␡``), C1 controls become ``�``, other invisible characters (bidi
    overrides, embeddings and isolates, zero-width space, ...) are shown as ``‹U+202E›`` by
    :func:`reveal_invisible` (deleting them would make ``[<U+202E>1]`` print exactly like a marker), and
    bidi marks (U+200E/F, U+061C) outside a bracket are removed. ``\\r\\n`` becomes ``\\n``; a lone
    ``\\r`` is shown as ``␍`` (it would overwrite the line)."""
    check_text(text, "text", surrogates=True)
    return reveal_invisible(text.replace("\r\n", "\n").translate(_TABLE)).translate(_MARKS)


def _paint(text: str, kind: str, color: bool) -> str:
    return f"\033[{_STYLE[kind]}m{text}\033[0m" if color else text


def render_terminal(
    answer: CitedAnswer,
    *,
    color: bool = False,
    lang: str | None = None,
    notes: Sequence[Note] | None = None,
    references: bool = True,
) -> str:
    """The answer as terminal text: markers (weak ones underlined in colour), a dim note line per note,
    then the reference list with each cited passage.

    ``lang`` (``en``, ``es``, ``zh``; guessed from the text by default) words the labels and notes;
    ``notes`` replaces ``answer_notes(answer, lang)`` (pass it to add the extractive and dropped-source
    notes). ANSI colours only with ``color``. Every string from the model or a document is cleaned by
    :func:`strip_controls`.
    """
    notes = check_render_args(answer, lang, notes)
    check_flag(color, "color")
    check_flag(references, "references")
    lang = lang or detect_lang(answer.plain_text)
    labels = labels_for(lang)
    notes = answer_notes(answer, lang) if notes is None else notes
    out = [_text(answer, color)]
    if notes:
        out.append("")
        out += [_paint(labels["note"] + strip_controls(one_line(n.text)), "note", color) for n in notes]
    if references and answer.references:
        out += ["", _paint(labels["references"], "heading", color), *_references(answer, labels, color)]
    return "\n".join(out) + "\n"


def _text(answer: CitedAnswer, color: bool) -> str:
    parts = []
    for piece in walk(answer):
        parts += [strip_controls(piece.text), piece.lead]
        parts += [_paint(f"[{m.number}]", "weak" if m.weak else "marker", color) for m in piece.markers]
        parts.append(strip_controls(piece.tail))
    return "".join(parts).rstrip()


def _references(answer: CitedAnswer, labels: dict[str, str], color: bool) -> list[str]:
    by_ref = citations_by_reference(answer)
    lines = []
    for ref in answer.references:
        cited = by_ref.get(ref.number, [])
        lines.append(
            f"{_paint(f'[{ref.number}]', 'marker', color)} {strip_controls(_where(ref, cited, labels))}"
        )
        for quote in dict.fromkeys(short(c.cited_text, MAX_QUOTE_CHARS) for c in cited):
            lines.append(_paint(f"    “{strip_controls(quote)}”", "quote", color))
    return lines


def _where(ref: Reference, cited: list[Citation], labels: dict[str, str]) -> str:
    """``title — path, URL, author, pages``: where the reference's text is (the document id when there is
    neither a path nor a URL)."""
    source = ref.source
    title = short_name(source.label)  # a line break is ␊, not a space: the title is not retyped
    path = source_path(source)
    places = [p for p in dict.fromkeys((path, source.url)) if p] or [source.document_id or ""]
    where = [short_name(p) for p in places if p and short_name(p) != title]
    author = short_name(source.author) if source.author else ""
    extra = ", ".join(x for x in (*where, author, cited_pages(ref, cited, labels) or "") if x)
    return title + (f" — {extra}" if extra else "")
