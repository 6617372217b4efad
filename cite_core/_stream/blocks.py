"""The answer's text blocks: the plain text cut at claim boundaries and where display markers sit."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Protocol

from .._schema.events import marker_group, text_block
from .._schema.models import Citation, MarkerGroup, TextBlock

__all__ = ["answer_blocks", "blocks_with_markers", "claim_spans", "marker_groups"]


def blocks_with_markers(
    plain: str,
    spans: list[tuple[int, int]],
    attached: dict[int, list[tuple[int, list[Citation]]]],
    inserts: list[tuple[int, str]],
    groups: dict[int, list[MarkerGroup]] | None = None,
) -> list[TextBlock]:
    """The text blocks, each with the display markers that follow it (a block is cut where markers sit
    inside it; markers before any text follow an empty first block): ``inserts`` the display text
    shown at each plain offset, ``groups`` the same markers as data."""
    groups = groups or {}
    at: dict[int, str] = {}
    for offset, shown in inserts:
        at[offset] = at.get(offset, "") + shown
    offsets = sorted(at)  # each span finds the markers inside it by bisection: linear in the answer
    blocks: list[TextBlock] = []
    for index, (start, end) in enumerate(spans):
        lists = attached.get(index)
        citations = None
        if lists:
            if len(lists) == 1:  # most blocks: one group's citations (a copy: the block's own list)
                citations = list(lists[0][1])
            else:
                # marker groups sharing a block (a <CIT> tag and markers inside it) keep the order in
                # which they were numbered, so that the content lists sources in reference order
                lists.sort(key=_first)
                citations = [c for _, cited in lists for c in cited]
        if index == 0 and start == 0 and end > 0 and 0 in at:
            blocks.append(TextBlock(text="", marker_text=at[0], marker_groups=groups.get(0, [])))
        first = bisect_right(offsets, start)
        if first == len(offsets) or offsets[first] >= end:  # no marker inside the block (most)
            blocks.append(text_block(plain[start:end], citations, at.get(end, ""), groups.get(end, [])))
            continue
        cuts = offsets[first : bisect_left(offsets, end, first)]
        # markers inside a claim (a lead-in "According to [2], ...", markers inside a <CIT> tag) cut
        # its block; the claim's citations go with its longest piece
        bounds = [start, *cuts, end]
        pieces = list(zip(bounds, bounds[1:]))
        longest = max(range(len(pieces)), key=lambda i: len(plain[pieces[i][0] : pieces[i][1]].strip()))
        for i, (a, b) in enumerate(pieces):
            cited = citations if i == longest else None
            blocks.append(text_block(plain[a:b], cited, at.get(b, ""), groups.get(b, [])))
    return blocks


def _first(entry: tuple[int, list[Citation]]) -> int:
    return entry[0]


def claim_spans(
    claims: dict[tuple[int, int], list[tuple[int, list[Citation]]]], length: int, has_inserts: bool
) -> tuple[list[tuple[int, int]], dict[int, list[tuple[int, list[Citation]]]]]:
    """The text blocks of an answer of ``length`` characters: each claim's range (claims by their
    (start, end), with their groups' citations) and the text between them, and the citations attached to
    each block (a claim with no text, "[1]" alone, attaches to the block before it)."""
    spans: list[tuple[int, int]] = []  # block ranges in ``plain``
    attached: dict[int, list[tuple[int, list[Citation]]]] = {}  # block -> (group index, citations)
    cursor = 0
    for (start, end), citations in sorted(claims.items()):
        start = max(start, cursor)
        if end <= start:  # a claim with no text ("[1]" alone): attach to the block before it
            if start > cursor:
                spans.append((cursor, start))
                cursor = start
            if not spans:
                spans.append((0, 0))
            attached.setdefault(len(spans) - 1, []).extend(citations)
            continue
        if start > cursor:
            spans.append((cursor, start))
        attached[len(spans)] = citations
        spans.append((start, end))
        cursor = end
    if cursor < length or (not spans and has_inserts):
        spans.append((cursor, length))
    return spans, attached


class _HasCitations(Protocol):
    citations: list[Citation]


class _Claimed(_HasCitations, Protocol):
    start: int
    end: int


def answer_blocks(
    plain: str,
    groups: Sequence[_Claimed],
    inserts: list[tuple[int, str]],
    marks: Sequence[tuple[int, _HasCitations | None, int, str]],
) -> list[TextBlock]:
    """The text blocks of the answer ``plain`` (``blocks_with_markers``): the claims of the marker
    ``groups`` that have citations, by their (start, end) in order of the groups, and the display
    markers ``inserts`` with their ``marks`` (``marker_groups``)."""
    claims: dict[tuple[int, int], list[tuple[int, list[Citation]]]] = {}
    for index, group in enumerate(groups):
        if group.citations:
            claims.setdefault((group.start, group.end), []).append((index, group.citations))
    spans, attached = claim_spans(claims, len(plain), bool(inserts))
    return blocks_with_markers(plain, spans, attached, inserts, marker_groups(inserts, marks))


def marker_groups(
    inserts: list[tuple[int, str]], marks: Sequence[tuple[int, _HasCitations | None, int, str]]
) -> dict[int, list[MarkerGroup]]:
    """The display markers at each plain offset as data: one ``MarkerGroup`` per run of markers of one
    group, with the citations they stand for (text shown after them is its tail). ``inserts``: the
    display text at each plain offset; ``marks``: for each insert, its group, display number (0 for
    text after the markers) and the lead before it."""
    runs: dict[int, list[tuple[_HasCitations | None, list[int], list[str]]]] = {}
    for (offset, text), (_, group, number, lead) in zip(inserts, marks):
        at = runs.setdefault(offset, [])
        if not number:  # text after the markers (a lead-in's comma)
            if not at:
                at.append((None, [], ["", ""]))
            at[-1][2][1] += text
        elif at and at[-1][0] is group and not at[-1][2][1]:
            at[-1][1].append(number)
        else:
            at.append((group, [number], [lead, ""]))
    return {
        offset: [
            marker_group(  # MarkerGroup(...) without validation: the values are the assembler's own
                numbers, [c for c in group.citations if c.reference in numbers] if group else [], lead, tail
            )
            for group, numbers, (lead, tail) in at
        ]
        for offset, at in runs.items()
    }
