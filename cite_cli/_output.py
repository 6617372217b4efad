"""What ``cite ask`` prints: the live terminal stream, JSON and Markdown, each with the trust notes.

The notes (markers that pointed at no source, weak support, a reference list the model wrote, an
extractive answer, sources the token budget dropped) come from ``cite_core.answer_notes``, the one
place they are worded. Every string from a document or the model goes through
``cite_core.strip_controls`` before it reaches the terminal, with or without colours: no escape
sequence from a document can set a hyperlink, a window title, the clipboard or clear the screen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TextIO

from cite_core import (
    DEFAULT_UNSUPPORTED_THRESHOLD,
    Note,
    reference_entries,
    render_markdown,
    render_terminal,
    strip_controls,
)

__all__ = ["LiveTerminal", "json_message", "markdown_answer", "safe_json"]

_STYLE = {"marker": "36", "weak": "33;4", "note": "2"}
# C1 controls and bidi controls are legal in JSON strings; escaped so that printing the JSON is safe too
_UNSAFE_IN_JSON = re.compile("[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def safe_json(text: str) -> str:
    """JSON text with DEL, C1 and bidi controls written as ``\\uXXXX`` (the same JSON value)."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


MAX_BRACKET_CHARS = 64
"""A bracket this short is where ``strip_controls`` shows joiners and marks (``‹U+200D›``)."""
_OPENING = re.compile(rf"[\[<(（［][^\[\]<>()（）［］\n]{{0,{MAX_BRACKET_CHARS}}}$")


def _open_bracket(text: str) -> int:
    """Where an unclosed short bracket at the end of ``text`` starts (else ``len(text)``): it waits for
    its closing bracket, so that ``strip_controls`` sees ``[1<U+200D>]`` whole and shows the joiner."""
    found = _OPENING.search(text[-MAX_BRACKET_CHARS - 1 :])
    return len(text) - len(found.group()) if found else len(text)


class LiveTerminal:
    """Writes the streamed answer: text as it comes, ``[n]`` as each citation resolves, then the notes."""

    def __init__(self, out: TextIO, color: bool) -> None:
        self.out = out
        self.color = color
        self.printed: set[tuple[int, int, int]] = set()
        # trailing whitespace waits for more text: a removed reference list leaves no blank lines behind,
        # and "\r\n" cut between pieces stays a line end
        self.held = ""

    def paint(self, text: str, kind: str) -> str:
        return f"\033[{_STYLE[kind]}m{text}\033[0m" if self.color else text

    def event(self, event: Any) -> None:
        if event.type == "text_delta":
            text = self.held + event.text
            cut = _open_bracket(text.rstrip())
            self.held = text[cut:]
            self.out.write(strip_controls(text[:cut]))
        elif event.type == "citations_delta":
            key = (event.claim_start, event.claim_end, event.citation.reference)
            if key in self.printed:
                return
            self.printed.add(key)
            self.out.write(strip_controls(self.held))
            self.held = ""
            weak = event.citation.support < DEFAULT_UNSUPPORTED_THRESHOLD
            self.out.write(self.paint(f"[{event.citation.reference}]", "weak" if weak else "marker"))
        elif event.type == "answer_reset":  # a lone </think>: what was printed so far was reasoning
            self.held = ""
            self.printed.clear()
            self.out.write(
                self.paint("\n(the text above was the model's reasoning; its answer follows)\n\n", "note")
            )
        self.out.flush()

    def finish(self, answer: Any, notes: Sequence[Note]) -> None:
        """The dim note lines and the reference list, as ``render_terminal`` words and styles them."""
        self.out.write(strip_controls(self.held.rstrip()))
        self.held = ""
        body = render_terminal(answer, color=self.color, notes=[], references=False)
        full = render_terminal(answer, color=self.color, notes=notes)
        # the same text comes first in both: what follows it is the notes and the references
        tail = full[len(body) - 1 :] if full.startswith(body[:-1]) else "\n\n" + full
        self.out.write(tail)
        self.out.flush()


def json_message(answer: Any, model: str, notes: Sequence[Note]) -> str:
    """An Anthropic-shaped message plus the trust signals as fields."""
    by_kind = {n.kind: n for n in notes}
    message = {
        "type": "message",
        "role": "assistant",
        "model": model,
        **answer.to_anthropic(),
        "stop_reason": "end_turn",
        # where each reference's text is (path, pages, URL) and a link to it: the index holds the user's files
        "references": reference_entries(answer, file_links=True),
        "invalid_markers": list(answer.invalid_markers),
        "unsupported_citations": [
            {"marker": f"[{c.reference}]", "cited_text": c.cited_text, "support": round(c.support, 3)}
            for c in answer.citations
            if c.support < answer.unsupported_threshold
        ],
        "removed_reference_list": answer.removed_reference_list,
        "left_out": list(answer.left_out),  # what was given but never a source (the left_out note)
        "extractive": "extractive" in by_kind,
        "verification": _verification(answer),
        "notes": [n.model_dump() for n in notes],
    }
    return safe_json(json.dumps(message, ensure_ascii=False, indent=2)) + "\n"


def _verification(answer: Any) -> dict[str, Any] | None:
    """The judge's verdicts (``cite ask --verify``) as JSON, or None when not verified."""
    verification = answer.verification
    if verification is None:
        return None
    claims = [
        {
            "markers": "".join(f"[{n}]" for n in dict.fromkeys(c.reference for c in claim.citations)),
            "claim": claim.text,
            "verdict": claim.verdict.level if claim.verdict else None,
            "reason": claim.verdict.reason if claim.verdict else None,
        }
        for claim in answer.claims
    ]
    return {**verification.model_dump(exclude={"verdicts"}), "claims": claims}


def markdown_answer(answer: Any, notes: Sequence[Note]) -> str:
    """The answer as Markdown: its text, the trust ``notes`` as a quote, then the references."""
    return strip_controls(render_markdown(answer, style="links", notes=notes, file_links=True))
