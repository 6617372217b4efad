"""The assembler of the citation parser: lexer tokens in, claims, citations and the answer out.

Text is kept twice: the plain text and the display text with final display markers. A marker group
cites the claim before it (back to the previous group or sentence boundary) or, when nothing of its
own comes before it, the claim that follows it (a forward marker, resolved at the sentence end).
"""

from __future__ import annotations

import math
import re

from .._schema.citations import DisplayNumbers, build_answer, display_number
from .._schema.events import MODEL_SLOTS, citations_delta, display_delta, text_delta, thinking_delta
from .._schema.models import AnswerReset, CitedAnswer, Source, StreamEvent, TextDelta
from .._sources.segmenter import split_sentences
from .assembly import Group, Locator, cited_source, tag_claim
from .blocks import answer_blocks
from .claims import claim_follows, comma_after_lead_in, joins_markers, precedes_its_claim
from .match_types import Item, Marker, Tag
from .statements import SentenceMap, Statements, per_segment

__all__ = ["Assembler"]

_WORD = re.compile(r"[^\W_]", re.UNICODE)
_LETTER = re.compile(r"[^\W\d_]")
_FORWARD_END = re.compile(r"[.!?](?=\s)|[。！？]|\n")
_new, _set_dict, _set_fields, _set_extra, _set_private = MODEL_SLOTS
_LAST_LETTER = re.compile(r".*([^\W\d_])", re.S)
"""The last letter of a text: ``.*`` runs to the end and backs off to it (linear)."""


class Assembler:
    """Turn tokens into the plain and display text, claims with their citations, events and the answer."""

    def __init__(
        self,
        sources: list[Source],
        *,
        threshold: float,
        display: bool,
        emit: bool,
        corpus: Locator,
        style: str = "markers",
        display_numbers: DisplayNumbers | None = None,
    ) -> None:
        """``display`` adds ``DisplayDelta`` events; ``emit=False`` builds no events at all; ``style``
        ``statements``: numbers inside ``<cite>`` are global sentence ranges (``statements.py``);
        ``corpus``: the locator of each claim's span (``Corpus``; an answer that restarted keeps it)."""
        self.corpus = corpus
        self._by_number = self.corpus.by_number
        self._threshold = threshold
        # output
        self._plain: list[str] = []
        self._plain_len = 0
        self._display: list[str] = []
        self._inserts: list[tuple[int, str]] = []  # (plain offset, display markers inserted there)
        self._marks: list[tuple[int, Group | None, int, str]] = []  # each insert: group, number, lead
        self._events: list[StreamEvent] = []
        self._pending_text: list[str] = []
        self._pending_thinking: list[str] = []
        self._pending_display: list[str] = []
        self._show = display  # emit DisplayDelta events
        self.emit = emit  # False for a whole parse: nobody reads the events (60 models per 30 markers)
        self._reasoning: list[str] = []
        self._removed: list[str] = []
        self.invalid: list[str] = []
        self._display_no: dict[int, int] = display_numbers if display_numbers is not None else {}
        self._groups: list[Group] = []
        self._group: Group | None = None
        self._pre_ws = ""
        self._tag: tuple[int, tuple[Item, ...]] | None = None
        self._tag_text: list[str] = []  # the answer text since the open tag
        self.statements = Statements(SentenceMap(sources) if style == "statements" else None)
        # claims
        self._tail: list[str] = []
        self._tail_start = 0
        self._forward: list[Group] = []
        self._last_letter = -1  # the plain offset of the last letter: whether a claim has a word is
        # asked for each marker and line end while forward markers wait, and was a scan back each time
        self._prev_char = ""
        self.stopped_in_reasoning = False
        self.truncated = False
        self._ready = False  # nothing pending or open: set by take_events, cleared by every other entry
        self._fast: list[str] = []  # the texts of the fast path since the last other entry

    def restarted(self, events: list[StreamEvent], reasoning: str) -> None:
        """Start as the answer after a lone closing thinking tag: the previous assembler's last
        ``events``, an ``AnswerReset``, then ``reasoning`` (the model text before the tag)."""
        if self.emit:
            self._events.extend(events)
            self._events.append(AnswerReset())
        self.thinking(reasoning)

    def thinking(self, text: str) -> None:
        """Reasoning text: to ``CitedAnswer.reasoning`` and ``ThinkingDelta`` events."""
        if self._ready:
            self._leave_fast()
        if text:
            self._reasoning.append(text)
            if self.emit:
                if self._pending_text or self._pending_display:
                    self._flush_text()
                self._pending_thinking.append(text)

    def removed(self, text: str) -> None:
        """Text removed from the answer (a reference list the model wrote)."""
        self._removed.append(text)

    def finish(self) -> CitedAnswer:
        """Resolve the pending claims and build the answer."""
        if self._ready:
            self._leave_fast()
        if self._forward:  # before the tag closes, as when a new tag opens: it moves the boundary
            self._resolve_forward(self._plain_len)
        self.statements.cite_group = None
        self._close_tag()
        self._flush_text()
        return self._build()

    def separator(self, sep: str, space_follows: bool) -> str:
        """Text right after a marker group. After a lead-in ("According to [2], there are"), the comma
        stays with the markers in the display text and the plain text reads "According to there are"."""
        if self._ready:
            self._leave_fast()
        group = self._group
        comma = len(sep) - len(sep.lstrip(" \t"))
        if (
            sep[comma : comma + 1] in (",", "，")
            and group is not None
            and group.forward
            and not group.resolved
            and comma_after_lead_in(group.claim or self._forward[0].claim)
        ):
            self._show_only(sep[: comma + 1])
            sep = sep[comma + 1 :] or ("" if space_follows or sep[comma] == "，" else " ")
            if not sep:
                return ""
        self.text(sep)
        return sep

    def _show_only(self, text: str, group: Group | None = None, number: int = 0, lead: str = "") -> None:
        """Text of the display only (not of the plain text), shown where the plain text is now: the
        marker ``[number]`` of ``group`` after ``lead``, or (``number`` 0) text after markers."""
        self._display.append(text)
        if self._show and self.emit:
            self._pending_display.append(text)
        self._inserts.append((self._plain_len, text))
        self._marks.append((self._plain_len, group, number, lead))

    def _show_marker(self, group: Group, number: int, lead: str = "") -> None:
        """The display marker ``[number]`` of ``group``, after the spaces ``lead``."""
        self._show_only(f"{lead}[{number}]", group, number, lead)

    def text(self, text: str) -> None:
        """Answer text."""
        if self._ready:
            self._leave_fast()
        statements = self.statements
        if statements.cite_group is not None:  # inside <cite>: not answer text, up to the end of the line
            cut = text.find("\n")
            if cut < 0:
                return
            statements.cite_group, text = None, text[cut:]
        self._plain.append(text)
        self._display.append(text)
        if self._show and self.emit:
            self._pending_display.append(text)
        self._tail.append(text)
        if self.emit:
            if self._pending_thinking:
                self._flush_text()
            self._pending_text.append(text)
        self._plain_len += len(text)
        self._group = None
        if self._tag is not None:
            self._tag_text.append(text)
        if self._forward:
            self._check_forward(text)
            if self._forward:  # read only while forward claims wait (``_note_letter``)
                self._note_letter(text)
        self._prev_char = text[-1]

    def plain(self, texts: tuple[str, ...] | list[str | tuple[Marker, str | None]]) -> list[StreamEvent]:
        """``text`` of each text of the lexer's fast path, then ``take_events``. When ``_ready`` the texts
        go straight into their event and wait in ``_fast`` until the next other entry (``_leave_fast``).
        A list (``LexerState._marker_chunk``) holds markers too, with the ``pre_ws`` of one that opens its
        group (None: it goes on with the group): each item as the stream's ``_consume`` hands its token."""
        if isinstance(texts, list):
            for item in texts:
                if isinstance(item, str):
                    self.text(item)
                else:
                    marker, pre_ws = item
                    self.marker(marker, pre_ws is not None, pre_ws or "")
            return self.take_events()
        if self._ready and texts:
            text = texts[0] if len(texts) == 1 else "".join(texts)
            self._fast.append(text)
            event = _new(TextDelta)  # text_delta(text), inlined
            _set_dict(event, {"type": "text_delta", "text": text})
            _set_fields(event, {"text"})
            _set_extra(event, None)
            _set_private(event, None)
            return [event]
        for text in texts:
            self.text(text)
        return self.take_events() if texts or not self._ready else []  # spaces held: nothing to say

    def _leave_fast(self) -> None:
        """The fast path's texts join the plain, display and claim text as one ``text``, but for _note_letter:
        the last letter is compared only with a waiting forward claim's start, after every letter here."""
        self._ready = False
        if self._fast:
            text = "".join(self._fast)
            self._fast.clear()
            self._plain.append(text)
            self._display.append(text)
            self._tail.append(text)
            self._plain_len += len(text)
            self._group = None
            self._prev_char = text[-1]

    def _flush_text(self) -> None:
        if self._pending_thinking:
            self._events.append(thinking_delta("".join(self._pending_thinking)))
            self._pending_thinking = []
        if self._pending_text:
            self._events.append(text_delta("".join(self._pending_text)))
            self._pending_text = []
        if self._pending_display:
            self._events.append(display_delta("".join(self._pending_display)))
            self._pending_display = []

    def take_events(self) -> list[StreamEvent]:
        """The events made since the last call; then ``plain`` may write text into its event (``_ready``:
        the state it reads changes only in entries that leave the fast path first, so ``_fast`` is empty)."""
        ready = self.emit and not (self._show or self._forward) and self._tag is None  # nothing waits
        self._ready = ready and self.statements.cite_group is None
        if self._pending_text and not self._events and not self._pending_display:
            # the usual chunk: its text alone (pending thinking is flushed before any text is added)
            text = self._pending_text
            self._pending_text = []
            return [text_delta(text[0] if len(text) == 1 else "".join(text))]
        self._flush_text()
        events, self._events = self._events, []
        return events

    def _note_letter(self, text: str) -> None:
        """Keep the offset of the last letter, ``text`` having just been added to the plain text; only while
        forward claims wait: the first one's ``_after_lead``, the only offset it is compared with, is the
        plain length when it started to wait, so no letter before counts (``_leave_fast`` relies on it)."""
        last = _LAST_LETTER.match(text)
        if last is not None:
            self._last_letter = self._plain_len - len(text) + last.start(1)

    def _tail_text(self) -> str:
        if len(self._tail) != 1:
            self._tail = ["".join(self._tail)]
        return self._tail[0]

    def _move_boundary(self, offset: int) -> None:
        tail = self._tail_text()
        self._tail = [tail[offset - self._tail_start :]]
        self._tail_start = offset

    # -- markers and claims ---------------------------------------------------------------------

    def marker(self, marker: Marker, opens: bool, pre_ws: str) -> None:
        """A citation marker; ``opens`` a new group, after the spaces ``pre_ws`` (display text only)."""
        if self._ready:
            self._leave_fast()
        if self.statements.cite_group is not None:
            self.statements.marker(self, marker)
            return
        if opens:
            self._pre_ws = pre_ws
            self._group = None
        self.invalid.extend(marker.invalid)
        for item in marker.items:
            source = cited_source(self._by_number, item, self.invalid)
            if source is None:
                continue
            group = self._group or self._start_group()
            if group.items and any(s.number == source.number for s, _ in group.items):
                continue
            self._show_marker(group, display_number(self._display_no, source.number), self._pre_ws)
            self._pre_ws = ""
            group.items.append((source, item))
            if not group.forward:
                self._cite(group, source, item)

    def _start_group(self) -> Group:
        group = Group()
        self._group = group
        self._groups.append(group)
        if self._forward:
            start = self._forward[0].start
            after = self._after_lead()
            if self._last_letter >= after and not joins_markers(
                self._tail_text()[after - self._tail_start :]
            ):
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

    def _backward_claim(self, group: Group) -> None:
        """The claim before a marker group: back to the previous group or sentence boundary."""
        tail = self._tail_text()
        spans = split_sentences(tail)
        if spans:
            start, end = spans[-1]
            claim = tail[start:end]
            if _WORD.search(claim):
                group.start, group.end = self._tail_start + start, self._tail_start + end
                group.claim = claim
                if end == len(tail) and precedes_its_claim(claim, self.corpus.claim_terms):
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
        word_from = self._first_letter(text, offset)
        for m in _FORWARD_END.finditer(probe):
            if m.start() < len(self._prev_char) and m.group() in "\n。！？":
                continue  # a line or CJK sentence end already seen with the previous text
            end = offset - len(self._prev_char) + m.end()
            if m.group() == "\n":
                end -= 1
            if end > self._forward[0].start and word_from < end:
                self._resolve_forward(end)
                return

    def _first_letter(self, text: str, offset: int) -> float:
        """The plain offset of the first letter after the lead of the first waiting forward marker, in
        the text so far and ``text`` (at ``offset``, just added); infinity when there is none. From the
        last letter seen before ``text`` and one search of ``text``: never a scan of the whole tail,
        which grows while markers wait for their claim (``[1] - [1] - ...`` was quadratic)."""
        after = self._after_lead()
        if self._last_letter >= after:
            return after  # some letter lies in after..offset: any end past ``offset`` has one before it
        found = _LETTER.search(text, max(0, after - offset))
        return offset + found.start() if found is not None else math.inf

    def _after_lead(self) -> int:
        """Where the text after the first pending forward marker starts: its claim needs a word there
        (a list number "1[1]." or a heading "## Baking [2]" is never a claim of its own)."""
        first = self._forward[0]
        return max(first.start, first.end)

    def _resolve_forward(self, end: int) -> tuple[int, int, str]:
        """Close the pending forward claims at ``end``; returns the claim's range and text."""
        groups, self._forward = self._forward, []
        tail = self._tail_text()
        start = groups[0].start
        if claim_follows(groups[0].claim):
            start = groups[0].end  # the claim follows "According to the report [2],", "1. [2]", "## X [2]"
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

    def _cite(self, group: Group, source: Source, item: Item) -> None:
        if group.forward and not group.resolved:
            return
        reference = self._display_no[source.number]
        # a citation spans one chunk, page or block: a sentence range that crosses one is cited per part
        for part in per_segment(source, item.sentences):
            citation = self.corpus.cite(source, group.claim, reference=reference, sentences=part)
            group.citations.append(citation)
            if self.emit:
                self._flush_text()
                self._events.append(citations_delta(citation, group.start, group.end))

    def tag(self, tag: Tag) -> None:
        """An opening or closing ``<CIT>`` tag: it closes the claims before it."""
        if self._ready:
            self._leave_fast()
        if tag.name != "cit":
            self.statements.tag(self, tag)
            return
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
        claim = tag_claim(start, self._tag_text)
        self._tag_text = []
        for item in items:
            source = cited_source(self._by_number, item, self.invalid)
            if source is None:
                continue
            group = Group()
            group.start, group.end, group.claim = claim
            group.resolved = True
            self._groups.append(group)
            group.items.append((source, item))
            self._show_marker(group, display_number(self._display_no, source.number))
            self._cite(group, source, item)
        self._move_boundary(self._plain_len)

    # -- result ---------------------------------------------------------------------------------

    def _build(self) -> CitedAnswer:
        return build_answer(
            self._display,
            answer_blocks("".join(self._plain), self._groups, self._inserts, self._marks),
            self._display_no,
            self._by_number,
            invalid=self.invalid,
            threshold=self._threshold,
            removed="".join(self._removed),
            reasoning="".join(self._reasoning),
            stopped_in_reasoning=self.stopped_in_reasoning,
            truncated=self.truncated,
        )
