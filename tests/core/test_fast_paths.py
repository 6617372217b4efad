"""The parser's fast paths give exactly what the general paths give: events, answers, models."""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Container, Sequence
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import CitationStream, clear_caches, number_sources, split_sentences
from cite_core._locate.scoring import ClaimTerms, TermStats, support_features
from cite_core._schema import metadata as _metadata
from cite_core._schema.events import char_location, citations_delta, display_delta, text_delta, thinking_delta
from cite_core._schema.models import CharLocation, CitationsDelta, DisplayDelta, TextDelta, ThinkingDelta
from cite_core._schema.source import Unit
from cite_core._sources.analysis import _analyse_segment, source_terms, source_units
from cite_core._sources.segmenter import split_lines
from cite_core._sources.stopwords import CJK_STOP, STOP, SUFFIXES
from cite_core._sources.terms import _TOKEN, _analyze, _stem_word, term_of
from cite_core._stream.blocks import blocks_with_markers
from cite_core._stream.lexer import Lexer
from cite_core._stream.lexer_tokens import Kind
from cite_core._stream.line_starts import _HEADING_WORDS, _is_heading_prefix, _line_opens, match_line_start
from cite_core._text import CJK_RE

SOURCES = number_sources(
    [
        {"text": "The grass is green. The sky is blue.", "title": "Nature"},
        "Hydrogen fuses into helium in the core of the Sun. This releases energy.",
        {"text": "The Moon orbits the Earth. It has no light of its own.", "url": "https://example.org/m"},
    ]
)

PIECES = [
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ",
    "The grass is green",
    "[3] The Moon orbits the Earth",
    "the sky",
    " ",
    "   ",
    "\t",
    ".",
    ". ",
    ",",
    "\n",
    "\n\n",
    "[1]",
    "[2]",
    "[1][3]",
    "[1, 2]",
    "[0]",
    "[7]",
    "[",
    "]",
    "1",
    "(Source 2)",
    "(",
    "`",
    "``",
    "`[1]`",
    "```\n",
    "<think>",
    "</think>",
    "<CIT chunk_id='2' sentences='1-2'>",
    "</CIT>",
    "<",
    "According to ",
    "- [ ] ",
    "# ",
    "1. ",
    "\nReferences:\n[1] Nature\n",
    "中文。",
    "，",
]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=25).map("".join)


def _events(text: str, size: int, *, fast: bool, display: bool) -> tuple[list[Any], Any]:
    stream = CitationStream(SOURCES, display=display)
    if not fast:
        stream._path_feed = lambda chunk: None  # the general path only
    events: list[Any] = []
    for i in range(0, len(text), size):
        events += stream.feed(text[i : i + size])
    answer = stream.finish()
    events += stream.pending_events()
    return [(type(e), e.model_dump(mode="json"), e.model_fields_set) for e in events], answer


@given(TEXTS, st.integers(min_value=1, max_value=40), st.booleans())
@example("[3] The Moon orbits the Earth. It glows", 1, False)  # the held space resolves the claim
def test_the_plain_text_fast_path_gives_the_events_of_the_general_path(
    text: str, size: int, display: bool
) -> None:
    assert _events(text, size, fast=True, display=display) == _events(text, size, fast=False, display=display)


@pytest.mark.parametrize("size", [1, 3, 8, 64])
def test_long_plain_runs_go_through_the_fast_path_and_match_the_general_path(size: int) -> None:
    text = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit " * 20) + "the grass is green [1]. " * 3
    taken = []
    stream = CitationStream(SOURCES)
    plain = stream._path_feed
    stream._path_feed = lambda chunk: taken.append(plain(chunk)) or taken[-1]
    steady = stream._steady_feed

    def counted(chunk: str) -> Any:  # a steady chunk (plain_path.SteadyPath) is a fast one too
        events = steady(chunk)
        if events is not None:
            taken.append(events)
        return events

    stream._steady_feed = counted
    for i in range(0, len(text), size):
        stream.feed(text[i : i + size])
    stream.finish()
    assert sum(t is not None for t in taken) > len(taken) // 2  # most chunks take the fast path
    assert _events(text, size, fast=True, display=True) == _events(text, size, fast=False, display=True)


def _shapes(tokens: Any) -> list[tuple[Any, ...]]:
    """Tokens without the buffer offsets of their markers and tags."""
    return [
        (t.kind, t.text, t.marker and t.marker.raw, t.tag and t.tag.raw, t.opens, t.pre_ws) for t in tokens
    ]


def test_plain_takes_text_alone_and_refuses_any_other_token_leaving_the_state_as_it_was() -> None:
    lexer = Lexer()
    assert lexer.plain("```py") is None  # a fence at the answer's line start: a code token
    assert lexer.plain("Grass") == ("Grass",)  # a line start that opens nothing
    assert lexer.plain(" is green ") == (" is green",)  # its trailing space held
    assert lexer.held == 1
    assert lexer.plain("  ") == ()  # spaces alone: held
    assert lexer.held == 3
    assert lexer.plain("and") == ("   ", "and")  # the held spaces released first
    assert lexer.plain(" " * 70) is None  # more than MAX_WS spaces: the general path releases them
    state = dict(vars(lexer))
    refused = (
        "a [1] b",
        "a`",
        "a<think>",
        "a<CIT chunk_id='1'>",
        "【1】 b",
        "a\n```py\n",
        "a\ud800",
        "(Source 1) b",
    )
    for chunk in refused:
        fresh, twin = copy.deepcopy(lexer), copy.deepcopy(lexer)
        assert lexer.plain(chunk) is None  # a token that is not text: the texts before it are stashed
        assert _shapes(lexer.feed(chunk)) == _shapes(twin.feed(chunk))  # feed goes on after them
        lexer = fresh
        assert lexer.plain(chunk) is None
        assert lexer.held == 0  # any other entry restores the state before the chunk
        assert vars(lexer) | {"scan": None} == state | {"_steady": False, "scan": None}  # (scan: deep-copied)
    assert lexer.plain("s.\nTh") == ("s.", "\n", "Th")  # a line end, and a line start that opens nothing
    assert lexer.plain(" (see") == ()  # "(see" may become "(see 2)": buffered, its space held
    assert lexer.held == 5
    assert lexer.plain(" it) ok") == (" ", "(", "see it) ok")  # it did not: text, read after the buffer
    assert lexer.plain("\n1. ") == ("\n",)  # "1. " may start a reference list entry: buffered
    assert lexer.held == 3
    assert lexer.plain("[1] x") is None  # a marker: the general path, the buffer kept
    assert lexer.held == 3
    tokens = list(lexer.feed("[1] x"))  # the buffer read again with the chunk
    assert [(t.kind, t.text, t.pre_ws) for t in tokens[:2]] == [(Kind.TEXT, "1.", ""), (Kind.MARKER, "", " ")]


def test_event_builders_equal_validated_events() -> None:
    citation = CharLocation(
        cited_text="The sky is blue.",
        document_index=0,
        document_title="Nature",
        reference=1,
        support=0.5,
        source_start=20,
        source_end=36,
        start_char_index=20,
        end_char_index=36,
        segment=0,
        coordinates="source",  # the builders always set it
    )
    pairs = [
        (text_delta("a b"), TextDelta(text="a b")),
        (display_delta(" [1]"), DisplayDelta(text=" [1]")),
        (thinking_delta("hm"), ThinkingDelta(thinking="hm")),
        (citations_delta(citation, 3, 9), CitationsDelta(citation=citation, claim_start=3, claim_end=9)),
        (char_location("The sky is blue.", 0, "Nature", 1, 0.5, 20, 36, 0, 0), citation),
        (
            char_location("x", 2, None, 3, 1, 4, 5, 100, None),
            CharLocation(
                segment=None,
                cited_text="x",
                document_index=2,
                reference=3,
                support=1.0,
                source_start=4,
                source_end=5,
                start_char_index=104,
                end_char_index=105,
                document_title=None,
                coordinates="source",
            ),
        ),
    ]
    for built, validated in pairs:
        assert built == validated and type(built) is type(validated)
        assert built.__dict__ == validated.__dict__ and list(built.__dict__) == list(validated.__dict__)
        assert built.model_fields_set == validated.model_fields_set
        assert built.model_dump_json() == validated.model_dump_json() and repr(built) == repr(validated)
        assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)


WORDS = st.sampled_from(
    ["The", "grass", "is", "greener.", "Dr.", "Smith", "runs", "studies", "nations", "café", "naïve",
     "İstanbul", "\u212aelvin", "ÉCOLE", "中文。", "数据", "1.5", "a", "\n", "\n\n", " ", "- item",
     "ORGANIZATIONS", "it's", "x-ray"]
)  # fmt: skip


@given(st.lists(WORDS, max_size=40).map(" ".join), st.booleans())
@example("İİİİİİ is big. The grass is greener. Dr. Smith runs.", False)  # lower() adds characters
def test_chunk_analysis_equals_each_unit_analysed_on_its_own(text: str, blocks: bool) -> None:
    entry = _analyse_segment(text, blocks)
    for unit, counts, length in zip(entry.units, entry.counts, entry.lengths):
        assert type(unit) is Unit and unit.segment == 0
        assert unit.terms == _analyze(text[unit.start : unit.end])
        assert counts == Counter(unit.terms) and length == len(unit.terms)
    if not blocks:
        spans = split_sentences(text) or [(0, len(text))]
        expected = [piece for a, b in spans for piece in split_lines(text, a, b)]
        assert [(u.start, u.end) for u in entry.units] == expected


def _stem_reference(word: str) -> str:
    """The stemmer as first written: every suffix tried in ``SUFFIXES`` order."""
    if len(word) <= 3 or not word.endswith(SUFFIXES) or word.isdigit():
        return word
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word


@given(st.text(alphabet="aeiousntlgdymcóeí", max_size=6), st.sampled_from(["", *SUFFIXES]))
def test_the_stemmer_tries_only_suffixes_with_the_last_letter_and_gives_the_same_stems(
    stem: str, suffix: str
) -> None:
    term = term_of()  # the word table: the stem, or "" for a stop word
    for word in (stem + suffix, suffix, stem + suffix + "s", stem + "ies", stem + "ings"):
        assert term(word) == ("" if word in STOP else _stem_reference(word))


@given(st.text(alphabet="0123456789²sdeylgnotaió", max_size=9) | st.text(max_size=9))
@example("1234s")
@example("ness")
@example("ions")
def test_the_stemmer_keyed_by_the_last_two_letters_gives_the_reference_stems(word: str) -> None:
    assert _stem_word(word) == _stem_reference(word)


_STOP_REFERENCE = frozenset(STOP)


def _analyze_reference(text: str) -> tuple[str, ...]:
    """The analyser as first written: one Unicode tokeniser, each word stemmed unless a stop word."""
    terms: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if CJK_RE.match(token):
            terms.extend(c for c in token if c not in CJK_STOP)
            terms.extend(a + b for a, b in zip(token, token[1:]))
        elif token not in _STOP_REFERENCE:
            terms.append(_stem_reference(token))
    return tuple(terms)


ANALYSED_WORDS = st.sampled_from(
    ["The", "studies", "of", "nations", "Ärzte", "estaciones", "rápidamente", "中文的数据", "阿Q正传",
     "2019s", "x-ray", "it's", "naïve", "İstanbul", "ORGANIZATIONS", "y", "los", "año", "1.5", "e.g.",
     "¿Qué?", "https://example.org/a_b", "\u212aelvin", "ｆｕｌｌ", "とても", "ß", "ǅemal"]
)  # fmt: skip


@given(st.lists(ANALYSED_WORDS | st.text(max_size=8), max_size=30).map(" ".join), st.booleans())
@example("İİİİİİ is big. The grass is greener.", False)
def test_analyze_equals_the_reference_analyser(text: str, clear: bool) -> None:
    if clear:
        clear_caches()
    assert _analyze.__wrapped__(text) == _analyze_reference(text)
    assert _analyze.__wrapped__(text) == _analyze_reference(text)  # every word's stem now cached


def _support_features_reference(
    claim: ClaimTerms, cited: Sequence[str], source: Container[str] | None = None
) -> tuple[float, ...]:
    """``support_features`` as first written: every claim-side set built on each call."""
    have = set(cited)
    source = have if source is None else source
    found_idf, found = 0.0, 0
    for term, idf in claim.weights:
        if term in have:
            found_idf += idf
            found += 1
    cov = found_idf / claim.total if claim.total else 0.0
    terms = claim.terms
    pairs = set(zip(terms, terms[1:]))
    pair_share = len(pairs & set(zip(cited, cited[1:]))) / len(pairs) if pairs else cov
    numbers = {t for t in terms if t[:1].isdigit()}
    missing = len(numbers - have) / len(numbers) if numbers else 0.0
    distinct = len(claim.weights)
    share = found / distinct if distinct else 0.0
    rare = sorted(claim.weights, key=lambda w: (-w[1], w[0]))[: max(1, distinct // 3)]
    rare_missing = sum(t not in have for t, _ in rare) / len(rare) if rare else 0.0
    names = claim.names
    names_absent = sum(t not in source for t in names) / len(names) if names else 0.0
    numbers_absent = sum(t not in source for t in numbers) / len(numbers) if numbers else 0.0
    return (cov, pair_share, missing, math.log1p(distinct), share, math.log1p(distinct - found),
            rare_missing, names_absent, numbers_absent, 1.0 if names else 0.0)  # fmt: skip


CLAIM_TERMS = st.lists(
    st.sampled_from(["grass", "green", "sky", "blue", "1889", "2", "tower", "x"]), max_size=12
)


@given(CLAIM_TERMS, CLAIM_TERMS, CLAIM_TERMS, st.lists(CLAIM_TERMS, max_size=4), st.booleans())
def test_support_features_with_kept_claim_parts_equal_the_reference(
    claim: list[str], cited: list[str], names: list[str], units: list[list[str]], with_source: bool
) -> None:
    stats = TermStats.from_units([claim, cited, *units])  # idf ties between terms of equal frequency
    terms = ClaimTerms.of(claim, stats, names)
    source = set(cited).union(*units) if with_source else None
    for _ in range(2):  # the claim's parts built on the first call, read on the second
        for seen in (cited, tuple(cited)):
            assert support_features(terms, seen, source) == _support_features_reference(terms, seen, source)


class _Key(str):
    """A str subclass as a metadata key."""


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.sampled_from(["ok", "bad \ud800 string", "", "x" * 40]),
)
FLAT_METADATA = st.dictionaries(
    st.text(max_size=5) | st.sampled_from(["title", "\udfff key"]) | st.text(max_size=3).map(_Key),
    SCALARS,
    max_size=6,
)


@given(FLAT_METADATA, st.sampled_from([10, 25, 10_000_000]))
@example({"a": "bad \ud800 string", "\udfff key": 1}, 10_000_000)  # the key's surrogate is reported first
def test_flat_metadata_check_equals_the_general_walk(metadata: dict[str, Any], limit: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_metadata, "MAX_METADATA_SIZE", limit)
        fast = _metadata.metadata_problem(metadata)
        patch.setattr(_metadata, "_SCALARS", frozenset())  # every dict takes the general walk
        assert fast == _metadata.metadata_problem(metadata)


@given(st.lists(st.lists(WORDS, max_size=20).map(" ".join).filter(str.strip), min_size=1, max_size=4))
def test_source_terms_are_every_term_of_every_unit(texts: list[str]) -> None:
    for source in number_sources([{"text": t, "document_id": "d"} for t in texts]):
        assert source_terms(source) == {t for unit in source_units(source) for t in unit.terms}


def _blocks_reference(plain: str, spans: list[tuple[int, int]], inserts: list[tuple[int, str]]) -> list:
    """The block texts and markers as the scan over every marker offset per span gave them."""
    at: dict[int, str] = {}
    for offset, shown in inserts:
        at[offset] = at.get(offset, "") + shown
    out = []
    for index, (start, end) in enumerate(spans):
        if index == 0 and start == 0 and end > 0 and 0 in at:
            out.append(("", at[0]))
        bounds = [start, *sorted(o for o in at if start < o < end), end]
        out.extend((plain[a:b], at.get(b, "")) for a, b in zip(bounds, bounds[1:]))
    return out


@given(st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=30), st.data())
def test_blocks_find_the_markers_inside_each_span_by_bisection(
    lengths: list[int], data: st.DataObject
) -> None:
    bounds = [0]
    for length in lengths:
        bounds.append(bounds[-1] + length)
    plain = "x" * bounds[-1]
    spans = list(zip(bounds, bounds[1:]))
    offsets = data.draw(st.lists(st.integers(min_value=0, max_value=bounds[-1]), max_size=40))
    inserts = [(offset, f" [{n}]") for n, offset in enumerate(sorted(offsets), start=1)]
    blocks = blocks_with_markers(plain, spans, {}, inserts)
    assert [(b.text, b.marker_text) for b in blocks] == _blocks_reference(plain, spans, inserts)


@given(st.text(st.sampled_from("#*_ \tSsRrCcBbWwFfoueinatdl参考文献来源引用出处xyz"), max_size=14))
@example("Sources c")
@example("## Ref")
@example("**WORKS CITED")
@example("参考")
def test_a_heading_prefix_is_found_by_one_set_lookup_as_by_a_scan_of_the_words(fragment: str) -> None:
    stripped = fragment.lstrip("#*_ \t").lower()
    scan = not stripped or any(word.startswith(stripped) for word in _HEADING_WORDS)
    assert _is_heading_prefix(fragment) == scan


LINE_PIECES = [
    *"abcdefghijklmnopqrstuvwxyzSRCBWFKſİ",
    *_HEADING_WORDS,
    " ",
    "\t",
    ":",
    "：",
    "#",
    "*",
    "_",
    "-",
    "1.",
    "\n",
]


@given(st.lists(st.sampled_from(LINE_PIECES), max_size=12).map("".join), st.booleans())
@example("So", False)
@example("Sources:", True)
@example("ſources", False)  # a long s: "s" to the heading pattern, which ignores case
@example("re", False)
@example("a", False)
@example("\n", False)
@example("\n\nSources:", True)
def test_the_line_start_shortcut_answers_what_the_whole_check_answers(line: str, eof: bool) -> None:
    titles = {1: ("nature", "https://example.org/n")}
    for text, pos in ((line, 0), ("x\n" + line, 2)):
        if pos < len(text):
            assert match_line_start(text, pos, eof, titles) == _line_opens(text, pos, eof, titles)
