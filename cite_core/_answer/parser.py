"""The incremental citation parser: one state machine for whole answers and for streams.

``parse_answer(text, sources)`` is ``CitationStream(sources)`` fed the whole text, then finished, so a
streamed answer equals the whole parse for every chunking. ``CitationStream`` joins two parts: the
``Lexer`` (``_stream/lexer.py``) turns model output into tokens, holding back only what may still become a
marker, a tag, a code fence or a reference list; the ``Assembler`` (``_stream/assembler.py``) turns the
tokens into claims, citations, events and the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .._args import check_flag, check_items, check_iterable, check_number, check_text, shown
from .._exceptions import ArgumentError, NativeError, StreamClosedError
from .._locate.localize import Corpus
from .._schema.citations import DisplayNumbers, check_display_numbers
from .._schema.models import CitedAnswer, Source, StreamEvent
from .._schema.support import SUPPORT_THRESHOLD
from .._sources.numbering import number_sources
from .._sources.prompt import PROMPT_STYLES, PromptStyle
from .._stream.assembler import Assembler
from .._stream.lexer import Lexer
from .._stream.lexer_state import MAX_WS
from .._stream.lexer_tokens import Kind, Mode, Token
from .._stream.plain_path import PANIC, steady_path
from .._text import SURROGATE_RE, has_surrogate
from .calibrate import FlagCalibration, resolve_threshold

__all__ = ["DEFAULT_UNSUPPORTED_THRESHOLD", "CitationStream", "parse_answer"]

DEFAULT_UNSUPPORTED_THRESHOLD = SUPPORT_THRESHOLD
"""Citations whose support score is below this are listed as unsupported on the answer (calibrated
on a development split of AttributionBench; see docs/quality.md)."""


def _names(sources: list[Source]) -> dict[int, tuple[str, ...]]:
    """Each source's title and URL lower-cased (those of three characters or more), by number: what the
    lexer takes for a reference list's lines. Read from the fields' dict, in one loop: pydantic's
    attribute reads and a generator per source cost a tenth of a stream's set-up."""
    names: dict[int, tuple[str, ...]] = {}
    for source in sources:
        fields = source.__dict__
        title, url = fields["title"], fields["url"]
        url = url.lower() if url and len(url) >= 3 else None
        if title and len(title) >= 3:
            names[fields["number"]] = (title.lower(), url) if url else (title.lower(),)
        else:
            names[fields["number"]] = (url,) if url else ()
    return names


class CitationStream:
    """Parse a model's answer as it streams: ``feed(chunk)`` yields events, ``finish()`` the answer."""

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
        display: bool = False,
        embeddings: Any = None,
        style: PromptStyle = "markers",
        display_numbers: Mapping[int, int] | None = None,
        first_new: int | None = None,
        calibration: FlagCalibration | None = None,
    ) -> None:
        """``display=True`` adds ``DisplayDelta`` events: the answer text with final display markers.
        ``style``: the prompt style the model was given; with ``statements`` the numbers inside
        ``<cite>`` are the global sentence numbers that prompt showed. ``calibration``: a flag threshold
        chosen on your own examples (``calibrate_flag``), instead of ``unsupported_threshold``.

        Display numbers are 1..k in order of first appearance, except that ``display_numbers`` (source
        number -> display number) fixes some: a conversation's sources keep the numbers the reader saw
        before. Other cited sources get the next numbers after the largest fixed one (and after
        ``first_new - 1``: numbers the conversation gave sources absent from this call)."""
        check_display_numbers(display_numbers, first_new)
        unsupported_threshold = resolve_threshold(unsupported_threshold, calibration)
        if not isinstance(style, str) or style not in PROMPT_STYLES:
            raise ArgumentError(f"style must be 'markers', 'sentences' or 'statements', got {shown(style)}")
        items = check_items(sources, "sources")
        check_number(unsupported_threshold, "unsupported_threshold")
        check_flag(display, "display")
        if not all(isinstance(s, Source) for s in items):
            items = number_sources(items)
        self.sources: list[Source] = items
        self._lexer = Lexer(_names(items))
        self._path_feed = self._lexer.plain
        """The fast path's first step (``LexerState.plain``): the texts of a chunk of plain text, or None for
        the general path. Tests that want the general path alone set it to ``lambda chunk: None``."""
        self._steady = steady_path(MAX_WS)
        self._steady_feed = self._steady.feed
        """``feed`` of a plain chunk while lexer and assembler are steady (``plain_path.SteadyPath``): armed
        by ``feed`` after a plain chunk that left nothing pending, disarmed (``_settle``) by every other
        entry. Tests that want the route through lexer and assembler set it to ``lambda chunk: None``."""
        self._display_numbers = (display_numbers, first_new)
        self._options: dict[str, Any] = {
            "threshold": unsupported_threshold,
            "display": display,
            "style": style,
        }
        # the locate stage, handed to the assembler (the stream does not import the stage after it);
        # embeddings: see Corpus (QUALITY-EMBED)
        self._corpus = Corpus(items, embeddings=embeddings)
        self._out = Assembler(
            items,
            emit=True,
            corpus=self._corpus,
            display_numbers=DisplayNumbers(display_numbers, first_new),
            **self._options,
        )
        self._raw: list[str] | None = []
        """The model text so far, until a thinking tag decides whether the answer started in reasoning."""
        self._keep_raw: Callable[[str], None] = self._raw.append  # _ignore once _raw is None
        self._plain_out = self._out.plain  # the assembler's fast path (a new one after a restart)
        self._style = style
        self._finished: CitedAnswer | None = None
        self._shared: tuple[DisplayNumbers, dict[int, int], int] | None = None

    def _share_numbers(self, numbers: DisplayNumbers) -> None:
        """Number this stream's markers in ``numbers``, which other streams share (the string fields of
        one structured answer: one numbering); a lone closing thinking tag gives back what the text
        before it numbered (it was reasoning), as a stream of its own starts a fresh numbering."""
        self._settle()
        self._shared = (numbers, dict(numbers), numbers.last)
        self._out._display_no = numbers

    # -- public API -----------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[StreamEvent]:
        """Add a chunk of model output; returns the text and citation events it completes."""
        try:  # most chunks, while nothing is pending: plain text straight into its event, one call
            events = self._steady_feed(chunk)
        except PANIC as exc:
            raise NativeError(f"the compiled lexer failed ({exc}); CITE_PURE_PYTHON=1 avoids it") from exc
        if events is not None:
            return events
        self._settle()
        if chunk.__class__ is not str and not isinstance(chunk, str):  # the usual str: no call
            raise ArgumentError(f"CitationStream.feed expects str chunks, got {type(chunk).__name__}")
        if self._finished is not None:
            raise StreamClosedError("CitationStream.feed called after finish()")
        if chunk:
            taken = self._path_feed(chunk)  # most chunks: plain text (never a lone surrogate), no token made
            if taken is not None:
                self._keep_raw(chunk)
                events = self._plain_out(taken)
                if self._out._ready:  # nothing pending: the next chunk may be steady
                    self._arm()
                return events
            if not chunk.isascii() and has_surrogate(chunk):  # no UTF-8 form: U+FFFD keeps every offset
                chunk = SURROGATE_RE.sub("\ufffd", chunk)
            self._keep_raw(chunk)
            self._consume(self._lexer.feed(chunk))
            if self._lexer.thinking_seen:
                self._raw, self._keep_raw = None, _ignore
        events = self._out.take_events()
        if self._out._ready:
            self._arm()
        return events

    def _arm(self) -> None:
        """The assembler ready: the steady path armed if the lexer is as steady (``steady_held``)."""
        held = self._lexer.steady_held()
        if held is not None:
            self._steady.arm(self._out._fast, self._raw, held)

    def _settle(self) -> None:
        """Before anything but a steady chunk: the steady path disarmed, the spaces it held the lexer's."""
        held = self._steady.disarm()
        if held:
            self._lexer.resume(held)

    def feed_reasoning(self, text: str) -> list[StreamEvent]:
        """Add reasoning that arrives apart from the answer (a reasoning content block): it goes to
        ``CitedAnswer.reasoning`` and streams as ``ThinkingDelta`` events."""
        if not isinstance(text, str):
            raise ArgumentError(f"CitationStream.feed_reasoning expects str, got {type(text).__name__}")
        if self._finished is not None:
            raise StreamClosedError("CitationStream.feed_reasoning called after finish()")
        self._settle()
        self._out.thinking(text)
        return self._out.take_events()

    def finish(self, *, truncated: bool = False) -> CitedAnswer:
        """Flush what was held back, resolve pending claims and return the cited answer.

        ``truncated=True``: the output was cut off before the model finished (``finish_reason="length"``,
        a dropped connection): an unfinished marker at the end is dropped rather than shown as text, and
        the answer says so (``CitedAnswer.truncated``, a note). Once finished, later calls return the
        same answer."""
        if self._finished is None:
            check_flag(truncated, "truncated")
            self._settle()
            self._consume(self._lexer.finish(truncated=truncated))
            self._out.stopped_in_reasoning = self._lexer.mode is Mode.THINK
            self._out.truncated = truncated
            self._finished = self._out.finish()
        return self._finished

    def events(self, chunks: Iterable[str]) -> Iterator[StreamEvent]:
        """Feed every chunk, yielding events; the finished answer is then at ``finish()``."""
        for chunk in check_iterable(chunks, "chunks", "str chunks"):
            yield from self.feed(chunk)
        self.finish()
        yield from self._out.take_events()

    def _parse_whole(self, text: str, truncated: bool = False) -> CitedAnswer:
        """``parse_answer``: the whole text at once, without building the events nobody reads. With an
        embedding model, a lexical pass first finds every claim and cited source, so that the model is
        called once for the whole answer rather than once per citation (a remote model: one round trip)."""
        self._out.emit = False
        corpus = self._corpus
        if corpus.dense is not None:
            fixed, first_new = self._display_numbers
            plan = CitationStream(self.sources, style=self._style, display_numbers=fixed, first_new=first_new)
            asked = plan._corpus.asked = []
            plan._parse_whole(text, truncated)
            corpus.prefetch(asked)
        self.feed(text)
        return self.finish(truncated=truncated)

    @property
    def held(self) -> int:
        """Characters received but not yet released as text (an unfinished marker, tag or line start)."""
        self._settle()
        return self._lexer.held

    def pending_events(self) -> list[StreamEvent]:
        """Events produced by ``finish()`` (citations of claims that ended with the answer)."""
        self._settle()
        return self._out.take_events()

    def _restart(self, rest: str) -> Assembler:
        """A lone closing thinking tag: the model text before it (``rest`` is the input from the tag
        on) was reasoning; a new assembler takes the answer after it, the text so far as reasoning."""
        raw = "".join(self._raw or ())
        old = self._out
        numbers = DisplayNumbers(*self._display_numbers)  # the reasoning's markers: not shown
        if self._shared is not None:  # the shared numbering as it was before this stream's reasoning
            numbers, before, last = self._shared
            numbers.clear()
            numbers.update(before)
            numbers.last = last
        self._out = Assembler(
            self.sources, emit=old.emit, corpus=self._corpus, display_numbers=numbers, **self._options
        )
        self._out.restarted(old.take_events() if old.emit else [], raw[: len(raw) - len(rest)])
        self._raw, self._keep_raw, self._plain_out = None, _ignore, self._out.plain
        return self._out

    def _consume(self, tokens: list[Token]) -> None:
        """Hand each token to the assembler, in order."""
        out = self._out
        for token in tokens:
            kind = token.kind
            if kind is Kind.LONE_CLOSE:
                out = self._restart(token.text)
                continue
            if kind is Kind.TEXT or kind is Kind.CODE:
                out.text(token.text)
            elif kind is Kind.MARKER:
                out.marker(token.marker, token.opens, token.pre_ws)  # type: ignore[arg-type]
            elif kind is Kind.SEPARATOR:
                out.separator(token.text, token.space_follows)
            elif kind is Kind.TAG:
                out.tag(token.tag)  # type: ignore[arg-type]
            elif kind is Kind.THINKING:
                out.thinking(token.text)
            elif kind is Kind.REFLIST:
                out.removed(token.text)


def _ignore(chunk: str) -> None:
    """``CitationStream._keep_raw`` once a thinking tag decided where the answer starts: nothing kept."""


def parse_answer(
    text: str,
    sources: Sequence[Any],
    *,
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
    embeddings: Any = None,
    style: PromptStyle = "markers",
    display_numbers: Mapping[int, int] | None = None,
    first_new: int | None = None,
    calibration: FlagCalibration | None = None,
    reasoning: str = "",
    truncated: bool = False,
) -> CitedAnswer:
    """Parse a whole answer: markers found, validated, localised in their sources; never raises on text.
    ``style``: the prompt style the model was given (``statements``: see ``CitationStream``);
    ``display_numbers``, ``first_new``: numbers a conversation keeps (see ``CitationStream``).
    ``calibration``: a flag threshold chosen on your own examples (``calibrate_flag``).
    ``reasoning``: the model's reasoning that came apart from its text (a reasoning or thinking block,
    ``reasoning_content``): it goes to ``CitedAnswer.reasoning``, as ``CitationStream.feed_reasoning``.
    ``truncated``: the output was cut off (see ``CitationStream.finish``)."""
    check_text(text, "text", surrogates=True)  # model text: lone surrogates become U+FFFD
    check_text(reasoning, "reasoning", surrogates=True)
    check_flag(truncated, "truncated")
    stream = CitationStream(
        sources,
        unsupported_threshold=unsupported_threshold,
        embeddings=embeddings,
        style=style,
        display_numbers=display_numbers,
        first_new=first_new,
        calibration=calibration,
    )
    if reasoning:
        stream._out.thinking(reasoning)
    return stream._parse_whole(text, truncated)
