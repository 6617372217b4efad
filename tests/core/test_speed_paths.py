"""The fast paths of the speed work give what the plain code gives (issues 15 and 17).

Each test compares a fast path with the simple code it replaces, on generated text that reaches the
edge cases (non-ASCII separators, letters that change length or case by context, CJK, stop words).
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core._sources import terms as _terms
from cite_core._sources.analysis import _analyse_segment
from cite_core._sources.stopwords import STOP
from cite_core._sources.terms import _TOKEN, ascii_separated, clear_terms

PIECES = st.sampled_from(
    ["The", "grass", "is", "greener.", "Dr.", "Smith", "studies", "nations", "—", "–", "“quoted”",
     "it’s", "café", "İstanbul", "\u212aelvin", "ΟΔΟΣ.", "Σ", "中文。", "・", "ー", "²", "x_y", "1.5",
     "\n", "\n\n", " ", "- item", "el", "los", "\u00a0", "\u3000", "\x1c", "e.g.", "K9", "ﬁne"]
)  # fmt: skip
TEXTS = st.lists(PIECES | st.text(max_size=6), max_size=30).map(" ".join)


def _reference_terms(text: str) -> tuple[str, ...]:
    """Terms of a text with the Unicode tokeniser, word by word (no word table)."""
    terms: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if token[0] >= "\u3040" and _terms.CJK_RE.match(token):
            terms.extend(c for c in token if c not in _terms.CJK_STOP)
            terms.extend(a + b for a, b in zip(token, token[1:]))
        elif token not in STOP:
            terms.append(_terms._stem_word(token))
    return tuple(terms)


@given(TEXTS, st.data())
@example("a—b “c” d", None)
@example("ΟΔΟΣ. Next", None)
def test_split_of_any_slice_of_the_separated_text_finds_the_tokens(text: str, data: st.DataObject) -> None:
    lowered = text.lower()
    separated = ascii_separated(lowered)
    if separated is None:
        assert any(not t.isascii() for t in _TOKEN.findall(lowered))
        return
    assert len(separated) == len(lowered)
    a = data.draw(st.integers(0, len(text))) if data is not None else 0
    b = data.draw(st.integers(a, len(text))) if data is not None else len(text)
    assert separated[a:b].split() == _TOKEN.findall(lowered[a:b])


@given(TEXTS, st.booleans(), st.booleans())
@example("İİİİ is big. The grass — is greener.", False, False)
@example("The ΟΔΟΣ. Σ is a letter.", False, True)
def test_chunk_analysis_equals_the_reference_per_unit(text: str, blocks: bool, clear: bool) -> None:
    if clear:
        clear_terms()
    entry = _analyse_segment(text, blocks)
    for unit in entry.units:
        assert unit.terms == _reference_terms(text[unit.start : unit.end])
        assert unit.terms == _terms._analyze(text[unit.start : unit.end])


def test_a_full_word_table_starts_over_and_gives_the_same_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_terms()
    monkeypatch.setattr(_terms, "_TERMS_MAX", 3)
    text = "Studies of nations and organizations show running rivers"
    first = _terms._analyze.__wrapped__(text)
    assert len(_terms._TABLES[0]) <= 3  # started over on the way
    assert first == _reference_terms(text) == _terms._analyze.__wrapped__(text)


CHUNKED = st.lists(st.sampled_from(["The ", "grass", " is ", "green", "  ", " ", "[1]", ".", "\n", "x", "<"]))


@given(CHUNKED, st.booleans())
def test_plain_chunks_give_the_events_of_the_general_path(chunks: list[str], display: bool) -> None:
    from cite_core import CitationStream, StreamEvent, number_sources

    sources = number_sources(["The grass is green.", "The sky is blue."])
    fast = CitationStream(sources, display=display)
    slow = CitationStream(sources, display=display)

    def general(texts: tuple[str, ...]) -> list[StreamEvent]:
        for text in texts:
            slow._out.text(text)
        return slow._out.take_events()

    slow._out.plain = general  # type: ignore[method-assign]
    slow._steady_feed = lambda chunk: None  # every chunk through the lexer and ``general``
    for chunk in chunks:
        got, expected = fast.feed(chunk), slow.feed(chunk)
        assert [e.model_dump() for e in got] == [e.model_dump() for e in expected]
    assert fast.finish() == slow.finish()
    assert [e.model_dump() for e in fast.pending_events()] == [e.model_dump() for e in slow.pending_events()]


@given(
    st.lists(st.lists(st.sampled_from("abcdefg"), max_size=6), min_size=1, max_size=5),
    st.lists(st.sampled_from("abcdxyz")),
)
def test_claim_weights_are_the_idf_of_each_distinct_term_in_order_of_first_occurrence(
    units: list[list[str]], claim: list[str]
) -> None:
    from cite_core._locate.scoring import ClaimTerms, TermStats

    stats, reference = TermStats.from_units(units), TermStats.from_units(units)
    weights = ClaimTerms.of(claim, stats).weights
    assert weights == tuple((t, reference._compute_idf(t)) for t in dict.fromkeys(claim))


SENTENCE_PIECES = st.sampled_from(
    ["The", "end.", "Dr.", "Smith", "J.", "R.", "1.", "IV.", "e.g.", "No.", "5", "word.", " ", "  ", "\n",
     "\n\n", "a", "Z", "“Quoted.”", "(x).", "…", "..", "- item", "¿Qué?", "中文。", "!", "?", "\t", "\u00a0"]
)  # fmt: skip


@given(st.lists(SENTENCE_PIECES, max_size=30).map(" ".join))
@example("It ends. The next one. Dr. Smith came. J. R. R. Tolkien wrote. IV. Part")
def test_segmenter_shortcuts_give_the_spans_of_the_regex_checks(text: str) -> None:
    from cite_core._sources import segment as _segment

    fast = _segment.split_sentences(text)
    original = _segment._ASCII_ALNUM
    _segment._ASCII_ALNUM = frozenset()  # every candidate through _NEXT_CHAR and _WS, as before
    try:
        assert _segment.split_sentences(text) == fast
    finally:
        _segment._ASCII_ALNUM = original


@pytest.mark.parametrize("style", ["markers", "statements"])
def test_a_finished_stream_is_freed_without_the_cycle_collector(style: str) -> None:
    """A parse makes no reference cycle through its assembler: with one, every parse's sources, units
    and citations waited for the cyclic collector, and whole parses were about 20% slower (issue 26)."""
    import gc
    import weakref

    from cite_core import CitationStream, number_sources

    sources = number_sources(["Grass is green. It grows in spring.", "The sky is blue."])
    text = "Grass is green [1]."
    if style == "statements":
        text = "<statement>Grass is green.<cite>[1-1]</cite></statement>"
    enabled = gc.isenabled()
    gc.disable()
    try:
        stream = CitationStream(sources, style=style)
        for piece in (text[:9], text[9:]):
            stream.feed(piece)
        stream.finish()
        assembler = weakref.ref(stream._out)
        del stream
        assert assembler() is None
    finally:
        if enabled:
            gc.enable()


def test_a_corpus_statistics_are_freed_without_the_cycle_collector() -> None:
    """The idf table reads the frequencies, not the ``TermStats`` that holds it: with a back reference
    each stream's statistics were a cycle left to the collector (20 per 20 streamed answers)."""
    import gc
    import weakref

    from cite_core._locate.scoring import TermStats

    enabled = gc.isenabled()
    gc.disable()
    try:
        stats = TermStats.from_units([("grass", "green"), ("sky", "blue", "sky")])
        assert stats.idf("grass") == stats._compute_idf("grass") < stats.idf("absent")
        held = weakref.ref(stats)
        del stats
        assert held() is None
    finally:
        if enabled:
            gc.enable()
