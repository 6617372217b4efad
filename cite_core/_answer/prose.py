"""The prose of a source text: its paragraphs, list items and block quotes, without what is not prose.

The extractive answerer quotes sentences; a heading ("Island ferries"), a line of a code block, a
terminal transcript or a table row is not a sentence, even when it matches the question well. Sources
are often Markdown (or plain text laid out like it), and often a chunk cut out of a longer file, so a
chunk may start or end inside a fenced code block: ``prose_blocks`` decides which side of an odd fence
is code from the fences' info strings, else from how much each side reads like prose, else leaves
both sides out. One pass over the lines; every pattern is anchored and linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Block", "prose_blocks"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})[^\S\n]*(\S?)")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[^\S\n]|$)")
_RULE = re.compile(r" {0,3}(?:[=]+|[-*_](?:[^\S\n]*[-*_]){2,})[^\S\n]*$")
_SETEXT = re.compile(r" {0,3}(?:=+|-+)[^\S\n]*$")
_ITEM = re.compile(r"[^\S\n]*(?:[-*+•◦▪‣●○■]|\d{1,3}[.)])(?:[^\S\n]+|$)")
_QUOTE = re.compile(r"[^\S\n]{0,3}>")
_PROMPT = re.compile(r"[^\S\n]*(?:[$%#][^\S\n]|>>>|\.\.\.[^\S\n]|[\w.-]*@[\w.-]*[:$])")
_HTML = re.compile(r"[^\S\n]{0,3}</?[A-Za-z!]")
_INDENT = re.compile(r"(?: {4}|\t)")
_PROSE_LINE = re.compile(r"[^\S\n]*(?:[-*+>]\s+)?[\"'“(]?[A-Z0-9][^\n]*[.!?:;,)\"”]$|[^\n]*[。！？]$")


@dataclass
class Block:
    """A paragraph, list item or block-quote paragraph: ``text[start:end]``."""

    start: int
    end: int
    kind: str
    """``"paragraph"``, ``"item"`` or ``"quote"``."""
    closed: bool = False
    """Something other than the end of the text follows it (so a last item without a period is whole)."""
    heading: tuple[int, int] | None = None
    """The span of the heading text it sits under in this text (a chunk may start below its heading)."""


def _table_row(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("|") or stripped.count("|") >= 2


def _code_lines(lines: list[tuple[int, int]], text: str) -> list[bool]:
    """Which lines are fences or inside a fenced block (a chunk may start or end inside one)."""
    fences = [i for i, (s, e) in enumerate(lines) if _FENCE.match(text, s, e)]
    inside = [False] * len(lines)
    if not fences:
        return inside
    state = False
    before_is_code = after_is_code = False
    if len(fences) % 2:
        first_info = bool(_FENCE.match(text, *lines[fences[0]]).group(2))  # type: ignore[union-attr]
        last_info = bool(_FENCE.match(text, *lines[fences[-1]]).group(2))  # type: ignore[union-attr]
        if first_info:  # an opener: the chunk starts outside, and ends inside, a code block
            after_is_code = True
        elif last_info:
            before_is_code = True
        else:  # bare fences only: the side that reads less like prose is the code
            before = _prose_share(text, lines[: fences[0]])
            after = _prose_share(text, lines[fences[-1] + 1 :])
            before_is_code = before <= after
            after_is_code = after <= before
        state = before_is_code
    fence_set = set(fences)
    for i in range(len(lines)):
        if i in fence_set:
            inside[i] = True
            state = not state
            continue
        inside[i] = state
    if after_is_code:
        for i in range(fences[-1], len(lines)):
            inside[i] = True
    return inside


def _prose_share(text: str, lines: list[tuple[int, int]]) -> float:
    full = [(s, e) for s, e in lines if text[s:e].strip()]
    if not full:
        return 0.0
    return sum(1 for s, e in full if _PROSE_LINE.match(text[s:e].rstrip())) / len(full)


def _quoted_text(text: str, start: int) -> int:
    """Where the text of a block-quote line starting at ``start`` begins, after its ``>`` markers."""
    at = _QUOTE.match(text, start).end()  # type: ignore[union-attr]  # called on quote lines only
    while text.startswith(">", at) or text.startswith(" >", at):
        at = text.index(">", at) + 1
    return at


def _not_prose(body: str) -> bool:
    """A heading, a rule, a table row, an HTML line or a terminal prompt."""
    return bool(
        _HEADING.match(body)
        or _RULE.match(body)
        or _table_row(body)
        or _HTML.match(body)
        or _PROMPT.match(body)
    )


def prose_blocks(text: str) -> list[Block]:
    """The prose blocks of ``text`` in order: paragraphs, list items (with their wrapped lines) and
    block-quote paragraphs. Headings (``#`` and underlined), fenced and indented code, table rows,
    HTML lines, terminal prompts and rules are left out."""
    lines = []
    pos = 0
    for part in text.split("\n"):
        lines.append((pos, pos + len(part)))
        pos += len(part) + 1
    code = _code_lines(lines, text)
    blocks: list[Block] = []
    current: Block | None = None
    in_list = False
    blank_before = True
    heading: tuple[int, int] | None = None

    def close(closed: bool = True) -> None:
        nonlocal current
        if current is not None:
            current.closed = closed
            blocks.append(current)
        current = None

    for i, (s, e) in enumerate(lines):
        line = text[s:e]
        if code[i]:
            close()
            blank_before = False
            continue
        if not line.strip():
            close()
            blank_before = True
            continue
        if _SETEXT.match(line) and current is not None and current.kind == "paragraph" and not blank_before:
            heading = (current.start, current.end)
            current = None  # the paragraph was a heading (underlined)
            blank_before = False
            continue
        quote = _QUOTE.match(line) is not None
        body_start = _quoted_text(text, s) if quote else s
        if quote and not text[body_start:e].strip():
            close()
            blank_before = True
            continue
        body = text[body_start:e]
        if _HEADING.match(body) and not quote:
            heading = (body_start, e)
        if _not_prose(body) or (not quote and blank_before and not in_list and _INDENT.match(body)):
            close()
            blank_before = False
            continue
        if _ITEM.match(body):
            close()
            current = Block(s, e, "item", heading=heading)
            in_list = True
        elif current is not None and (not blank_before) and (not quote or current.kind == "quote"):
            current.end = e  # a wrapped line of the same paragraph, item or quote
        else:
            close()
            if blank_before and not quote and not _INDENT.match(body):
                in_list = False
            current = Block(s, e, "quote" if quote else "paragraph", heading=heading)
        blank_before = False
    close(closed=False)
    return blocks
