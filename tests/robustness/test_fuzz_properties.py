"""Parser properties over hostile generated text: unicode, lone surrogates, CRLF, nested brackets, huge
numbers, sentence-style ``[n:a-b]`` markers and ``<CIT>`` tags, with markers split at every position.

Same profiles as tests/core/test_properties.py: ``HYPOTHESIS_PROFILE=long`` runs 10,000 examples each.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cite_core import number_sources, parse_answer, split_sentences
from tests.invariants import check_answer, check_stream_equals_whole, streamed

SOURCES = number_sources(
    [
        {
            "text": "The grass is green. The sky is blue.\r\nWater is wet.",
            "title": "My Document",
            "url": "https://example.org/d",
        },
        "Water is essential for life. 水是生命之源。",
        {"text": "Paris is the capital of France. It has many museums.", "title": "France"},
        {"pages": ["Cats purr. Cats sleep.", "Dogs bark."], "title": "Pets"},
        {"blocks": ["Tea is hot.", "Ice is cold."]},
        {
            "text": "Dr. Smith said so. ¿Qué pasa? El Sr. García llegó.",
            "document_id": "d6",
            "start_index": 10,
        },
    ]
)
VALID = range(1, len(SOURCES) + 1)

MARKERS = [
    "[1]",
    "[2]",
    "[6]",
    "[0]",
    "[7]",
    "[42]",
    "[2019]",
    "[99999999999999999999]",
    "[123456]",
    "[1234567]",
    "[1-3]",
    "[3-1]",
    "[1–99]",
    "[1-1000000]",
    "[1, 2]",
    "[1,2][3]",
    "[[1]]",
    "[[[2]]]",
    "[[1]",
    "[1]]",
    "【1】",
    "［2］",
    "〔3〕",
    "【1]",
    "[^1]",
    "[Source 1]",
    "(Source 2)",
    "[Doc 3]",
    "[ID:4]",
    "[ 5 ]",
    "[１]",
    "[１２]",
    "[1](https://example.org/x)",
    "[2](javascript:alert(1))",
    "[1:2]",
    "[2:1-3]",
    "[1:9-1]",
    "[3:0]",
    "[1:2][3:1]",
    "[1:99999999]",
    "<CIT chunk_id='1' sentences='1-2'>",
    "</CIT>",
    "<cit source=2>",
    '<CIT chunk_id="7">',
    "<CIT>",
    "</cit >",
    "<CIT chunk_id='3' sentences='2'>",
]
PIECES = MARKERS + [
    "a",
    " ",
    ".",
    "!",
    "?",
    "。",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "`",
    "```\n",
    "~~~\n",
    "\nSources:\n",
    "\n## References\n",
    "\n[1] My Document, https://example.org/d\n",
    "\n[^1]: note\n",
    "- [ ] ",
    "- [x] ",
    "The grass is green",
    "Paris ",
    "水是生命之源",
    "Dr. ",
    "e.g. ",
    "¿Qué? ",
    "\u200b",
    "\u202e",
    "\ufeff",
    "\U0001f600",
    "é",
    "e\u0301",
    "\x00",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
]
unicode_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=80)
texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    unicode_text,
    st.lists(st.one_of(st.sampled_from(PIECES), unicode_text), max_size=12).map("".join),
)


@given(texts, st.lists(st.integers(min_value=1, max_value=400), max_size=40))
def test_hostile_text_parses_and_streams_identically(text: str, cuts: list[int]) -> None:
    whole, events = check_stream_equals_whole(text, cuts, SOURCES)
    for event in events:  # every streamed claim range lies inside the streamed text
        if event.type == "citations_delta":
            assert 0 <= event.claim_start <= event.claim_end <= len(whole.plain_text)


@given(
    st.lists(st.sampled_from(MARKERS), min_size=1, max_size=6), st.sampled_from(["Grass is green", "水", ""])
)
def test_markers_split_at_every_position_equal_the_whole_parse(markers: list[str], claim: str) -> None:
    text = f"{claim} {''.join(markers)}. Next claim {markers[0]}"
    whole = parse_answer(text, SOURCES)
    for cut in range(1, len(text)):
        answer, deltas, _ = streamed(text, [cut], SOURCES)
        assert answer == whole and deltas == whole.plain_text, cut


@given(st.lists(st.integers(min_value=-3, max_value=10**12), min_size=1, max_size=10))
def test_references_are_exactly_the_valid_numbers_written(numbers: list[int]) -> None:
    text = " ".join(f"Claim {i} is here [{n}]." for i, n in enumerate(numbers))
    answer = parse_answer(text, SOURCES)
    valid = [n for n in numbers if n in VALID]
    assert [r.source.number for r in answer.references] == list(dict.fromkeys(valid))
    written_invalid = [f"[{n}]" for n in numbers if n >= 0 and n not in VALID and len(str(n)) <= 6]
    assert answer.invalid_markers == written_invalid
    check_answer(answer, SOURCES, text)


@given(
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=0, max_value=12),
)
def test_sentence_style_markers_cite_exact_sentences_or_are_invalid(source: int, lo: int, hi: int) -> None:
    from cite_core._sources.analysis import source_units

    answer = parse_answer(f"Some claim about water [{source}:{lo}-{hi}].", SOURCES)
    check_answer(answer, SOURCES)
    units = source_units(SOURCES[source - 1])
    first, last = min(lo, hi), max(lo, hi)
    if 1 <= first <= last <= len(units):
        # one citation per segment (chunk, page, block) the range crosses, in order
        parts = 1 + sum(units[n].segment != units[n - 1].segment for n in range(first, last))
        assert len(answer.citations) == parts
        assert all(c.document_index == source - 1 for c in answer.citations)
        assert answer.citations[0].source_start == units[first - 1].start
        assert answer.citations[-1].source_end <= units[last - 1].end
        assert answer.invalid_markers == []
    else:  # sentences the source does not have: reported, never a citation of something else
        assert answer.citations == [] and answer.invalid_markers == [f"[{source}:{lo}-{hi}]"]


@given(texts)
def test_source_text_markers_never_create_citations(text: str) -> None:
    text = text.replace("\ud800", "").replace("\udfff", "").replace("\ud83d\ude00", "")
    text = "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)
    if not text.strip():
        return
    sources = number_sources([text + " [1] [2](https://evil.example) Sources: [1] x", "Other."])
    answer = parse_answer("An answer that cites nothing.", sources)
    assert answer.citations == [] and answer.references == [] and answer.invalid_markers == []


@given(unicode_text | st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_sentence_spans_are_ordered_trimmed_and_cover_all_text(text: str) -> None:
    spans = split_sentences(text)
    previous = 0
    covered = set()
    for start, end in spans:
        assert previous <= start < end <= len(text)
        assert not text[start].isspace() and not text[end - 1].isspace()
        covered.update(range(start, end))
        previous = end
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())


HOLD_TOKENS = st.sampled_from(
    ["`", "``", "`" * 40, "~~~", "~" * 40, "\n", " ", "[1", "]", "(https://x.org/", "<thi", "nk>", "</think>"]
    + ["\nSources: ht", "tps://x", "<CIT chunk_id='1'", ">", "a", ".", "[^1]: "]
)


@given(st.lists(HOLD_TOKENS, max_size=80).map("".join))
def test_the_stream_holds_back_a_bounded_number_of_characters(text: str) -> None:
    from bench.fuzz_checks import HOLD_BOUND
    from cite_core import CitationStream

    stream = CitationStream(SOURCES)
    for char in text:
        stream.feed(char)
        assert stream.held <= HOLD_BOUND
    assert stream.finish() == parse_answer(text, SOURCES)


def test_measured_hold_back_per_construct_is_within_its_bound() -> None:
    from bench.fuzz_checks import measure_holdback
    from cite_core._stream.lexer_state import MAX_WS
    from cite_core._stream.line_starts import MAX_FENCE
    from cite_core._stream.markers import MAX_HOLD, MAX_URL
    from cite_core._stream.tags import MAX_THINK_TAG

    bounds = {
        "marker": MAX_HOLD,
        "link": MAX_HOLD + MAX_URL + 2,
        "cit_tag": MAX_HOLD,
        "think_tag": MAX_THINK_TAG,
        "spaces": MAX_WS + MAX_HOLD,
        "heading": MAX_HOLD,
        "reference_line": MAX_HOLD,
        "fence": MAX_FENCE + 3,
        "backticks": MAX_FENCE + 1,
        "tildes": MAX_FENCE + 3,
        "code_span_ticks": MAX_FENCE + 1,
    }
    measured = measure_holdback()
    assert set(measured) == set(bounds)
    assert all(measured[name] <= bounds[name] for name in bounds), measured
