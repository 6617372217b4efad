"""The incremental citation parser: one state machine for whole answers and for streams.

``parse_answer(text, sources)`` is ``CitationStream(sources)`` fed the whole text, then finished, so a
streamed answer equals the whole parse for every chunking. Text is released as soon as it cannot be
part of a marker; only an unfinished marker (``MAX_HOLD`` characters, a link target ``MAX_URL``), a
short run of spaces before a possible marker, and the first characters of a line that may open a
code fence or a reference list are held back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ._localize import Corpus
from ._markers import NEED, Item, Marker, Tag, ThinkTag, match_line_start, match_marker, match_think
from ._models import (
    Citation,
    CitationsDelta,
    CitedAnswer,
    DisplayDelta,
    Reference,
    Source,
    StreamEvent,
    TextBlock,
    TextDelta,
    ThinkingDelta,
    has_surrogate,
)
from ._scoring import SUPPORT_THRESHOLD, analyze
from ._segment import split_sentences
from ._sources import number_sources

__all__ = ["DEFAULT_UNSUPPORTED_THRESHOLD", "CitationStream", "parse_answer"]

DEFAULT_UNSUPPORTED_THRESHOLD = SUPPORT_THRESHOLD
"""Citations whose support score is below this are listed as unsupported on the answer (calibrated
on a development split of AttributionBench; see docs/quality.md)."""

MAX_WS = 64
"""A run of spaces before a marker is dropped from the answer text only up to this length."""

_TEXT_STOP = re.compile(r"[\[【［〔(<`\n]")
_OPENERS = frozenset("[【［〔(<")
_SEPARATORS = re.compile(r"[ \t,;，；、]*")
_WORD = re.compile(r"[^\W_]", re.UNICODE)
_FORWARD_END = re.compile(r"[.!?](?=\s)|[。！？]|\n")
_BACKTICKS = re.compile(r"`+")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACE = re.compile(r"\s*")


class _Group:
    """A run of adjacent markers citing one claim (``plain[start:end]`` once resolved)."""

    __slots__ = ("citations", "claim", "end", "forward", "items", "resolved", "start")

    def __init__(self) -> None:
        self.start = -1
        self.end = -1
        self.claim = ""
        self.items: list[tuple[Source, Item]] = []
        self.forward = False
        self.citations: list[Citation] = []
        self.resolved = False


class CitationStream:
    """Parse a model's answer as it streams: ``feed(chunk)`` yields events, ``finish()`` the answer."""

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
        embeddings: Any = None,
        display: bool = False,
    ) -> None:
        """``display=True`` adds ``DisplayDelta`` events: the answer text with final display markers."""
        items = list(sources)
        if not all(isinstance(s, Source) for s in items):
            items = number_sources(items)
        self.sources: list[Source] = items
        self._corpus = Corpus(items, embeddings=embeddings)  # embeddings: see Corpus (QUALITY-EMBED)
        self._by_number = {s.number: s for s in items}
        self._names = {
            s.number: tuple(n.lower() for n in (s.title, s.url) if n and len(n) >= 3) for s in items
        }
        self._threshold = unsupported_threshold
        self._buf = ""
        self._eof = False
        self._finished: CitedAnswer | None = None
        # output
        self._plain: list[str] = []
        self._plain_len = 0
        self._display: list[str] = []
        self._inserts: list[tuple[int, str]] = []  # (plain offset, display markers inserted there)
        self._events: list[StreamEvent] = []
        self._pending_text: list[str] = []
        self._pending_thinking: list[str] = []
        self._pending_display: list[str] = []
        self._show = display  # emit DisplayDelta events
        self._reasoning: list[str] = []
        self._skip_space = False  # after a thinking section that opened the answer: drop blank lines
        self._emit = True  # False in parse_answer: nobody reads the events (60 models per 30 markers)
        self._removed: list[str] = []
        self._invalid: list[str] = []
        self._display_no: dict[int, int] = {}
        self._groups: list[_Group] = []
        # lexer state
        self._mode = "text"  # text | code | fence | reflist | think
        self._code_ticks = 0
        self._fence = ""
        self._line_start = True
        self._line_checked = False
        self._held = ""
        self._ws_run = 0
        self._group: _Group | None = None
        self._group_open = False
        self._pre_ws = ""
        self._tag: tuple[int, tuple[Item, ...]] | None = None
        self._tag_text: list[str] = []  # the answer text since the open tag
        # claims
        self._tail: list[str] = []
        self._tail_start = 0
        self._forward: list[_Group] = []
        self._prev_char = ""

    # -- public API -----------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[StreamEvent]:
        """Add a chunk of model output; returns the text and citation events it completes."""
        if not isinstance(chunk, str):
            raise TypeError(f"CitationStream.feed expects str chunks, got {type(chunk).__name__}")
        if self._finished is not None:
            raise RuntimeError("CitationStream.feed called after finish()")
        if chunk:
            if has_surrogate(chunk):  # no UTF-8 form: U+FFFD keeps every offset and JSON/HTML output
                chunk = _SURROGATE.sub("\ufffd", chunk)
            self._buf += chunk
            self._run()
        return self._take_events()

    def feed_reasoning(self, text: str) -> list[StreamEvent]:
        """Add reasoning that arrives apart from the answer (a reasoning content block): it goes to
        ``CitedAnswer.reasoning`` and streams as ``ThinkingDelta`` events."""
        if not isinstance(text, str):
            raise TypeError(f"CitationStream.feed_reasoning expects str, got {type(text).__name__}")
        if self._finished is not None:
            raise RuntimeError("CitationStream.feed_reasoning called after finish()")
        self._think_text(text)
        return self._take_events()

    def finish(self) -> CitedAnswer:
        """Flush what was held back, resolve pending claims and return the cited answer."""
        if self._finished is None:
            self._eof = True
            self._run()
            self._release_held()
            if self._forward:  # before the tag closes, as when a new tag opens: it moves the boundary
                self._resolve_forward(self._plain_len)
            self._close_tag()
            self._flush_text()
            self._finished = self._build()
        return self._finished

    def events(self, chunks: Iterable[str]) -> Iterator[StreamEvent]:
        """Feed every chunk, yielding events; the finished answer is then at ``finish()``."""
        for chunk in chunks:
            yield from self.feed(chunk)
        self.finish()
        yield from self._take_events()

    def pending_events(self) -> list[StreamEvent]:
        """Events produced by ``finish()`` (citations of claims that ended with the answer)."""
        return self._take_events()

    # -- lexer ----------------------------------------------------------------------------------

    def _run(self) -> None:
        buf, pos, eof = self._buf, 0, self._eof
        n = len(buf)
        while pos < n:
            mode = self._mode
            if mode == "reflist":
                self._removed.append(buf[pos:])
                pos = n
                break
            if mode == "code":
                pos = self._code(buf, pos, eof)
                if pos < 0:
                    pos = -pos - 1
                    break
                continue
            if mode == "fence":
                pos = self._fence_line(buf, pos, eof)
                if pos < 0:
                    pos = -pos - 1
                    break
                continue
            if mode == "think":
                pos = self._thinking(buf, pos, eof)
                if pos < 0:
                    pos = -pos - 1
                    break
                continue
            if self._skip_space:
                pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
                if pos == n:
                    break
                self._skip_space = False
            if self._line_start and not self._line_checked:
                found = match_line_start(buf, pos, eof, self._names)
                if found == NEED:
                    break
                self._line_checked = True
                if found == "reflist":
                    self._removed.append(self._held)
                    self._held = ""
                    self._mode = "reflist"
                    continue
                if isinstance(found, tuple):
                    self._text(buf[pos : found[1]])
                    self._fence = buf[pos : found[1]].strip()
                    self._mode = "fence"
                    pos = found[1]
                    continue
            if self._group_open:
                sep_end = _SEPARATORS.match(buf, pos).end()  # type: ignore[union-attr]
                if sep_end == n and not eof and sep_end - pos <= MAX_WS:
                    break
                if sep_end < n and buf[sep_end] in _OPENERS and sep_end - pos <= MAX_WS:
                    found = match_marker(buf, sep_end, eof)
                    if found == NEED:
                        break
                    if isinstance(found, Marker):
                        self._marker(found)
                        pos = found.end
                        continue
                self._group_open = False
                if sep_end > pos:
                    self._text(buf[pos:sep_end])
                    pos = sep_end
                continue
            char = buf[pos]
            if char == "`":
                run = _BACKTICKS.match(buf, pos).end()  # type: ignore[union-attr]
                if run == n and not eof:
                    break
                self._text(buf[pos:run])
                self._mode, self._code_ticks = "code", run - pos
                pos = run
                continue
            if char == "<":
                think = match_think(buf, pos, eof)
                if think == NEED:
                    break
                if isinstance(think, ThinkTag):
                    self._on_think(think)
                    pos = think.end
                    continue
            if char in _OPENERS:
                found = match_marker(buf, pos, eof)
                if found == NEED:
                    break
                if isinstance(found, Marker):
                    self._marker(found)
                    pos = found.end
                    continue
                if isinstance(found, Tag):
                    self._on_tag(found)
                    pos = found.end
                    continue
                self._text(char)
                pos += 1
                continue
            if char == "\n":
                self._text("\n")
                pos += 1
                continue
            stop = _TEXT_STOP.search(buf, pos)
            end = stop.start() if stop else n
            self._text_run(buf[pos:end], hold=(end < n and buf[end] in _OPENERS) or (end == n and not eof))
            pos = end
        self._buf = buf[pos:]

    def _code(self, buf: str, pos: int, eof: bool) -> int:
        """Inside inline code: up to the closing backtick run or the end of the line."""
        n = len(buf)
        while pos < n:
            stop = min((i for i in (buf.find("`", pos), buf.find("\n", pos)) if i >= 0), default=-1)
            if stop < 0:
                self._text(buf[pos:])
                return n
            if stop > pos:
                self._text(buf[pos:stop])
                pos = stop
            if buf[pos] == "\n":
                self._mode = "text"
                return pos
            run = _BACKTICKS.match(buf, pos).end()  # type: ignore[union-attr]
            if run == n and not eof:
                return -pos - 1
            self._text(buf[pos:run])
            if run - pos == self._code_ticks:
                self._mode = "text"
                return run
            pos = run
        return pos

    def _thinking(self, buf: str, pos: int, eof: bool) -> int:
        """Inside a thinking section: reasoning text up to a closing thinking tag."""
        n = len(buf)
        while pos < n:
            lt = buf.find("<", pos)
            if lt < 0:
                self._think_text(buf[pos:])
                return n
            if lt > pos:
                self._think_text(buf[pos:lt])
                pos = lt
            found = match_think(buf, pos, eof)
            if found == NEED:
                return -pos - 1
            if isinstance(found, ThinkTag) and found.closing:
                self._end_think()
                return found.end
            self._think_text("<")
            pos += 1
        return pos

    def _on_think(self, tag: ThinkTag) -> None:
        """A thinking tag in the answer: an opening one starts reasoning; a stray closing one is dropped."""
        self._release_held()
        self._group_open = False
        self._group = None
        if not tag.closing:
            self._mode = "think"
        else:
            self._end_think()

    def _end_think(self) -> None:
        """After a thinking section: the text that follows starts the line (and, at first, the answer)."""
        self._mode = "text"
        self._skip_space = self._plain_len == 0
        if self._line_start:
            self._line_checked = False

    def _think_text(self, text: str) -> None:
        if text:
            self._reasoning.append(text)
            if self._emit:
                if self._pending_text or self._pending_display:
                    self._flush_text()
                self._pending_thinking.append(text)

    def _fence_line(self, buf: str, pos: int, eof: bool) -> int:
        """Inside a fenced code block: whole lines, until a closing fence line."""
        if self._line_start:
            newline = buf.find("\n", pos)
            line = buf[pos:] if newline < 0 else buf[pos:newline]
            stripped = line.strip()
            closing = len(self._fence) <= len(stripped) <= MAX_WS and stripped == self._fence[0] * len(
                stripped
            )
            could_close = stripped == self._fence[0] * len(stripped)
            if newline < 0 and not eof and len(line) <= MAX_WS and could_close:
                return -pos - 1
            if closing:
                self._mode = "text"
        newline = buf.find("\n", pos)
        end = len(buf) if newline < 0 else newline + 1
        self._text(buf[pos:end])
        return end

    # -- output ---------------------------------------------------------------------------------

    def _text_run(self, run: str, hold: bool) -> None:
        """Plain text; trailing spaces are held when a marker may follow them."""
        if hold:
            body = run.rstrip(" \t")
            trailing = len(run) - len(body)
            ws_before = self._ws_run + len(self._held) if not body else 0
            if trailing and ws_before + trailing <= MAX_WS:
                if body:
                    self._text(body)
                self._held += run[len(body) :]
                return
        self._text(run)

    def _release_held(self) -> None:
        if self._held:
            held, self._held = self._held, ""
            self._append(held)

    def _text(self, text: str) -> None:
        if self._held:
            self._release_held()
        if text:
            self._append(text)

    def _append(self, text: str) -> None:
        self._plain.append(text)
        self._display.append(text)
        if self._show and self._emit:
            self._pending_display.append(text)
        self._tail.append(text)
        if self._emit:
            if self._pending_thinking:
                self._flush_text()
            self._pending_text.append(text)
        self._plain_len += len(text)
        body = text.rstrip(" \t")
        self._ws_run = self._ws_run + len(text) if not body else len(text) - len(body)
        self._group_open = False
        self._group = None
        self._line_start = text.endswith("\n")
        if self._line_start:
            self._line_checked = False
        if self._tag is not None:
            self._tag_text.append(text)
        if self._forward:
            self._check_forward(text)
        self._prev_char = text[-1]

    def _flush_text(self) -> None:
        if self._pending_thinking:
            self._events.append(ThinkingDelta(thinking="".join(self._pending_thinking)))
            self._pending_thinking = []
        if self._pending_text:
            self._events.append(TextDelta(text="".join(self._pending_text)))
            self._pending_text = []
        if self._pending_display:
            self._events.append(DisplayDelta(text="".join(self._pending_display)))
            self._pending_display = []

    def _take_events(self) -> list[StreamEvent]:
        self._flush_text()
        events, self._events = self._events, []
        return events

    def _tail_text(self) -> str:
        if len(self._tail) != 1:
            self._tail = ["".join(self._tail)]
        return self._tail[0]

    def _move_boundary(self, offset: int) -> None:
        tail = self._tail_text()
        self._tail = [tail[offset - self._tail_start :]]
        self._tail_start = offset

    # -- markers and claims ---------------------------------------------------------------------

    def _marker(self, marker: Marker) -> None:
        if not self._group_open:
            self._pre_ws, self._held = self._held, ""
            self._group = None
            self._group_open = True
        else:
            self._held = ""
        self._invalid.extend(marker.invalid)
        for item in marker.items:
            source = self._by_number.get(item.number)
            if source is None:
                self._invalid.append(item.raw)
                continue
            group = self._group or self._start_group()
            if any(s.number == source.number for s, _ in group.items):
                continue
            display = self._display_no.setdefault(source.number, len(self._display_no) + 1)
            shown = f"{self._pre_ws}[{display}]"
            self._pre_ws = ""
            self._display.append(shown)
            if self._show and self._emit:
                self._pending_display.append(shown)
            self._inserts.append((self._plain_len, shown))
            group.items.append((source, item))
            if not group.forward:
                self._cite(group, source, item)

    def _start_group(self) -> _Group:
        group = _Group()
        self._group = group
        self._groups.append(group)
        if self._forward:
            start = self._forward[0].start
            if _WORD.search(self._tail_text()[start - self._tail_start :]):
                # "[1] The grass is green [2]." - both groups cite the same claim
                group.start, group.end, group.claim = self._resolve_forward(self._plain_len)
                group.resolved = True
            else:  # "[1][2] The grass..." split by a separator: still waiting for the claim
                group.forward, group.start = True, start
                self._forward.append(group)
                return group
        else:
            self._backward_claim(group)
        if not group.forward:
            self._move_boundary(self._plain_len)
        return group

    def _backward_claim(self, group: _Group) -> None:
        """The claim before a marker group: back to the previous group or sentence boundary."""
        tail = self._tail_text()
        spans = split_sentences(tail)
        if spans:
            start, end = spans[-1]
            claim = tail[start:end]
            if _WORD.search(claim):
                group.start, group.end = self._tail_start + start, self._tail_start + end
                group.claim = claim
                if len(analyze(claim)) < 2 and end == len(tail) and claim[-1] not in ".!?。！？":
                    group.forward = True  # "As noted in [1], the grass..." - the claim goes on after it
                    self._forward.append(group)
                else:
                    group.resolved = True
                return
        group.forward = True  # "[1] The grass is green." - the marker precedes its claim
        group.start = self._plain_len
        self._forward.append(group)

    def _check_forward(self, text: str) -> None:
        offset = self._plain_len - len(text)
        probe = self._prev_char + text
        for m in _FORWARD_END.finditer(probe):
            if m.start() < len(self._prev_char) and m.group() in "\n。！？":
                continue  # a line or CJK sentence end already seen with the previous text
            end = offset - len(self._prev_char) + m.end()
            if m.group() == "\n":
                end -= 1
            start = self._forward[0].start - self._tail_start
            if end > self._forward[0].start and _WORD.search(
                self._tail_text()[start : end - self._tail_start]
            ):
                self._resolve_forward(end)
                return

    def _resolve_forward(self, end: int) -> tuple[int, int, str]:
        """Close the pending forward claims at ``end``; returns the claim's range and text."""
        groups, self._forward = self._forward, []
        tail = self._tail_text()
        start = groups[0].start
        text = tail[start - self._tail_start : end - self._tail_start]
        lead = len(text) - len(text.lstrip())
        trail = len(text.rstrip())
        claim = (start + lead, start + trail, text[lead:trail]) if trail > lead else (start, start, "")
        for group in groups:
            group.start, group.end, group.claim = claim
            group.resolved = True
            for source, item in group.items:
                self._cite(group, source, item)
        self._move_boundary(end)
        return claim

    def _cite(self, group: _Group, source: Source, item: Item) -> None:
        if group.forward and not group.resolved:
            return
        citation = self._corpus.cite(
            source, group.claim, reference=self._display_no[source.number], sentences=item.sentences
        )
        group.citations.append(citation)
        if self._emit:
            self._flush_text()
            self._events.append(
                CitationsDelta(citation=citation, claim_start=group.start, claim_end=group.end)
            )

    def _on_tag(self, tag: Tag) -> None:
        self._release_held()
        self._group_open = False
        self._group = None
        if self._forward:
            self._resolve_forward(self._plain_len)
        self._close_tag()
        if not tag.closing:
            self._tag = (self._plain_len, tag.items)
            self._tag_text = []

    def _close_tag(self) -> None:
        if self._tag is None:
            return
        start, items = self._tag
        self._tag = None
        # not the claim tail: markers inside the tag may have moved its boundary past the tag's start
        text, self._tag_text = "".join(self._tag_text), []
        lead = len(text) - len(text.lstrip())
        end = start + len(text.rstrip())
        for item in items:
            source = self._by_number.get(item.number)
            if source is None:
                self._invalid.append(item.raw)
                continue
            group = _Group()
            group.start, group.end, group.resolved = start + lead, max(end, start + lead), True
            group.claim = text.strip()
            self._groups.append(group)
            group.items.append((source, item))
            display = self._display_no.setdefault(source.number, len(self._display_no) + 1)
            self._display.append(f"[{display}]")
            if self._show and self._emit:
                self._pending_display.append(f"[{display}]")
            self._inserts.append((self._plain_len, f"[{display}]"))
            self._cite(group, source, item)
        self._move_boundary(self._plain_len)

    # -- result ---------------------------------------------------------------------------------

    def _build(self) -> CitedAnswer:
        plain = "".join(self._plain)
        claims: dict[tuple[int, int], list[tuple[int, list[Citation]]]] = {}
        for index, group in enumerate(self._groups):
            if group.citations:
                claims.setdefault((group.start, group.end), []).append((index, group.citations))
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
        if cursor < len(plain) or (not spans and self._inserts):
            spans.append((cursor, len(plain)))
        blocks = _blocks_with_markers(plain, spans, attached, self._inserts)
        references = [
            Reference(number=display, source=self._by_number[number])
            for number, display in self._display_no.items()
        ]
        removed = "".join(self._removed)
        return CitedAnswer(
            text="".join(self._display),
            content=blocks,
            references=references,
            invalid_markers=self._invalid,
            removed_reference_list=removed if removed.strip() else None,
            unsupported_threshold=self._threshold,
            reasoning="".join(self._reasoning),
        )


def _blocks_with_markers(
    plain: str,
    spans: list[tuple[int, int]],
    attached: dict[int, list[tuple[int, list[Citation]]]],
    inserts: list[tuple[int, str]],
) -> list[TextBlock]:
    """The text blocks, each with the display markers that follow it (a block is cut where markers sit
    inside it; markers before any text follow an empty first block)."""
    at: dict[int, str] = {}
    for offset, shown in inserts:
        at[offset] = at.get(offset, "") + shown
    blocks: list[TextBlock] = []
    for index, (start, end) in enumerate(spans):
        lists = attached.get(index)
        citations = None
        if lists:
            # marker groups sharing a block (a <CIT> tag and markers inside it) keep the order in which
            # they were numbered, so that the content lists sources in reference order
            lists.sort(key=lambda entry: entry[0])
            citations = [c for _, cited in lists for c in cited]
        if index == 0 and start == 0 and end > 0 and 0 in at:
            blocks.append(TextBlock(text="", marker_text=at[0]))
        cuts = sorted(o for o in at if start < o < end) if at else []
        if not cuts:
            blocks.append(TextBlock(text=plain[start:end], citations=citations, marker_text=at.get(end, "")))
            continue
        # markers inside a claim (a lead-in "According to [2], ...", markers inside a <CIT> tag) cut
        # its block; the claim's citations go with its longest piece
        bounds = [start, *cuts, end]
        pieces = list(zip(bounds, bounds[1:]))
        longest = max(range(len(pieces)), key=lambda i: len(plain[pieces[i][0] : pieces[i][1]].strip()))
        for i, (a, b) in enumerate(pieces):
            cited = citations if i == longest else None
            blocks.append(TextBlock(text=plain[a:b], citations=cited, marker_text=at.get(b, "")))
    return blocks


def parse_answer(
    text: str,
    sources: Sequence[Any],
    *,
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
    embeddings: Any = None,
) -> CitedAnswer:
    """Parse a whole answer: markers found, validated, localised in their sources. Never raises on any text."""
    if not isinstance(text, str):
        raise TypeError(f"parse_answer expects the model's text as str, got {type(text).__name__}")
    stream = CitationStream(sources, unsupported_threshold=unsupported_threshold, embeddings=embeddings)
    stream._emit = False  # the events of a whole parse are never read: not built
    stream.feed(text)
    return stream.finish()
