"""The speed paths give exactly what the general ones give: chunk analyses shared across queries and
sources, the ASCII tokeniser, the ``[n]`` fast path of the marker lexer."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cite_core import clear_caches, number_sources, parse_answer
from cite_core._locate import localize as _localize
from cite_core._locate import scoring as _scoring
from cite_core._locate.scorer import PythonScorer
from cite_core._schema.source import ChunkAnalysis, SourceAnalysis
from cite_core._sources import analysis as _analysis
from cite_core._sources import cache as _cache
from cite_core._sources import terms as _terms
from cite_core._sources.analysis import source_units
from cite_core._sources.cache import CHUNK_CACHE_MAX_CHARS
from cite_core._sources.stopwords import SUFFIXES
from cite_core._sources.term_analyser import counts_of
from cite_core._sources.unit_index import POSTINGS_AFTER, CountsIndex, index_of
from cite_core._stream import markers as _markers
from tests.core.test_properties import PIECES  # (its import also loads the hypothesis profile)

CHUNKS = [
    "The grass is green. The sky is blue. Water is essential for life.",
    "Paris is the capital of France. It has many museums and the Louvre.",
    "Cats purr when content. Dogs bark at strangers. Birds sing at dawn.",
]
ANSWER = "The grass is green [1]. Paris has many museums [2]. Dogs bark at strangers [3]. Birds sing [3]."


def _dump(answer) -> str:  # type: ignore[no-untyped-def]
    return answer.model_dump_json()


def test_cached_analysis_gives_the_same_answer_as_a_cold_one() -> None:
    clear_caches()
    cold = _dump(parse_answer(ANSWER, number_sources(CHUNKS)))
    warm = _dump(parse_answer(ANSWER, number_sources(CHUNKS)))
    assert warm == cold
    assert _cache.CHUNKS.hits >= len(CHUNKS)


def test_a_chunk_shared_by_two_sources_keeps_each_sources_offsets() -> None:
    clear_caches()
    alone = number_sources([CHUNKS[1]])[0]
    # the same chunk text as the second chunk of a merged document: its units are shifted to it
    merged = number_sources(
        [
            {"text": CHUNKS[0], "document_id": "d", "start_index": 0},
            {"text": CHUNKS[1], "document_id": "d", "start_index": 500},
        ]
    )[0]
    units_alone = source_units(alone)
    units_merged = source_units(merged)
    second = merged.segments[1]
    shifted = [u for u in units_merged if u.segment == 1]
    assert [(u.start + second.start, u.end + second.start, 1, u.terms) for u in units_alone] == [
        tuple(u) for u in shifted
    ]
    for unit in units_merged:
        segment = merged.segments[unit.segment]
        assert segment.start <= unit.start < unit.end <= segment.end
        assert merged.text[unit.start : unit.end].strip() == merged.text[unit.start : unit.end]


def test_units_of_a_cached_chunk_are_not_shared_mutably_between_sources() -> None:
    a, b = number_sources([CHUNKS[0]]), number_sources([CHUNKS[0]])
    units_a = source_units(a[0])
    assert units_a is not source_units(b[0])
    # a caller mutating one source's list cannot change another's; the compiled analysis's units
    # (``NativeUnits``) cannot be mutated at all
    if isinstance(units_a, list):
        units_a.clear()
    else:
        assert not hasattr(units_a, "clear") and not hasattr(units_a, "__setitem__")
    assert len(source_units(b[0])) == 3


def test_very_long_chunks_are_analysed_but_not_kept() -> None:
    clear_caches()
    long_text = "The grass is green. " * (CHUNK_CACHE_MAX_CHARS // 20 + 10)
    answer = parse_answer("The grass is green [1].", number_sources([long_text]))
    assert answer.citations[0].cited_text == "The grass is green."
    assert len(_cache.CHUNKS) == 0


def test_clear_caches_forgets_every_analysis() -> None:
    parse_answer(ANSWER, number_sources(CHUNKS))
    clear_caches()
    assert len(_cache.CHUNKS) == 0
    assert _terms._analyze.cache_info().currsize == 0
    assert len(_terms._TABLES[0]) == 0  # the one word table


_UNICODE_WORDS = st.text(alphabet=st.characters(codec="ascii"), max_size=80)


@given(_UNICODE_WORDS)
def test_ascii_tokeniser_finds_the_unicode_tokeniser_tokens(text: str) -> None:
    lowered = text.lower()
    assert _terms._ASCII_TOKEN.findall(lowered) == _terms._TOKEN.findall(lowered)


@pytest.mark.parametrize(
    "word", ["nations", "realization", "fulness", "running", "is", "2019s", "studies", "ied"]
)
def test_stem_fast_path_matches_the_suffix_loop(word: str) -> None:
    expected = word
    if not (word.isdigit() or len(word) <= 3):
        for suffix in SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                stem = word[: -len(suffix)]
                expected = stem + "y" if suffix in ("ies", "ied") else stem
                break
    assert _terms._stem_word(word) == expected


_MARKERISH = st.lists(
    st.sampled_from(PIECES + ["[12]", "[3](", "[4]x", "[123456]", "[1234567]"]), max_size=12
).map("".join)


@given(_MARKERISH, st.booleans())
def test_simple_marker_fast_path_equals_the_general_lexer(text: str, eof: bool) -> None:
    positions = [i for i, c in enumerate(text) if c in "[【［〔(<"]
    fast = [_markers.match_marker(text, i, eof) for i in positions]
    original = _markers._SIMPLE
    _markers._SIMPLE = re.compile(r"(?!)")  # never matches: every marker takes the general path
    try:
        general = [_markers.match_marker(text, i, eof) for i in positions]
    finally:
        _markers._SIMPLE = original
    assert fast == general


def test_named_encoding_counts_are_remembered_and_equal_tiktokens() -> None:
    from cite_core import get_encoding, token_counter
    from cite_core._sources.tokens import COUNT_CACHE_MAX_CHARS

    count = token_counter("o200k_base")
    assert token_counter("o200k_base") is count
    count.cache_clear()  # type: ignore[attr-defined]
    encoding = get_encoding("o200k_base")
    for text in CHUNKS + ["", "中文的句子。", "x" * (COUNT_CACHE_MAX_CHARS + 1)]:
        assert count(text) == len(encoding.encode_ordinary(text))
        assert count(text) == len(encoding.encode_ordinary(text))
    info = count.cache_info()  # type: ignore[attr-defined]
    assert info.hits == len(CHUNKS) + 2 and info.currsize == len(CHUNKS) + 2  # the long text is not kept
    clear_caches()
    assert count.cache_info().currsize == 0  # type: ignore[attr-defined]


_TERMS = st.sampled_from(
    ["grass", "green", "sky", "blue", "water", "life", "pari", "museum", "2019", "草", "绿色"]
)


@given(
    st.lists(st.lists(_TERMS, max_size=12), min_size=1, max_size=15), st.lists(_TERMS, min_size=1, max_size=8)
)
def test_bm25_from_postings_equals_bm25_over_counts_to_the_last_bit(
    units: list[list[str]], claim: list[str]
) -> None:
    stats = _scoring.TermStats.from_units(units)
    claim_terms = _scoring.ClaimTerms.of(claim, stats)
    weights = claim_terms.weights
    counts = [counts_of(tuple(u)) for u in units]
    lengths = [len(u) for u in units]
    expected = []  # BM25 summed unit by unit over every claim term, as it was before postings
    k1, b = _scoring.BM25_K1, _scoring.BM25_B
    scale = b / stats.avg_len if stats.avg_len else 0.0
    for tf, length in zip(counts, lengths):
        score = 0.0
        if length:
            norm = k1 * (1 - b + scale * length)
            for term, idf in weights:
                f = tf.get(term)
                if f:
                    score += idf * f * (k1 + 1) / (f + norm)
        expected.append(score)
    postings = _scoring.build_postings(counts)
    assert _scoring.bm25(claim_terms, counts, lengths, stats.avg_len, postings) == expected
    assert _scoring.bm25(claim_terms, counts, lengths, stats.avg_len) == expected


def test_chunk_postings_are_built_after_some_uses_and_give_the_same_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_localize, "SCORER", PythonScorer())  # the reference, which keeps the postings
    clear_caches()
    first = parse_answer(ANSWER, number_sources(CHUNKS))
    entry = _cache.CHUNKS.get((CHUNKS[0], False))
    assert entry is not None and isinstance(entry.index, CountsIndex)  # kept with the chunk's analysis
    index = entry.index
    assert index._postings is None and index._uses == 1
    for _ in range(POSTINGS_AFTER - 1):
        assert parse_answer(ANSWER, number_sources(CHUNKS)) == first
    assert index._postings is not None
    assert parse_answer(ANSWER, number_sources(CHUNKS)) == first


def test_postings_of_a_merged_source_index_its_own_units() -> None:
    merged = number_sources(
        [
            {"text": CHUNKS[0], "document_id": "d", "start_index": 0},
            {"text": CHUNKS[2], "document_id": "d", "start_index": 900},
        ]
    )[0]
    units = source_units(merged)
    index = index_of(merged)
    assert index is index_of(merged)  # kept with the source's analysis
    for _ in range(POSTINGS_AFTER - 1):
        assert index.postings() is None  # the first uses score the counts directly
    postings = index.postings()
    assert postings is not None
    for term, entries in postings.items():
        for at, count in entries:
            assert units[at].terms.count(term) == count
    answer = parse_answer("Dogs bark at strangers [1].", [merged])
    assert answer.citations[0].cited_text == "Dogs bark at strangers."


def test_the_chunk_cache_is_bounded_by_count_and_by_characters() -> None:
    cache = _cache.LRUCache(max_items=3, max_size=110, size=lambda key, _: len(key[0]))

    def entry(text: str) -> ChunkAnalysis:
        return cache.get_or_build((text, False), lambda: _analysis._analyse_segment(text, False))

    for k in range(5):
        entry(f"Sentence number {k} is here.")  # 26-27 characters each
    assert len(cache) == 3 and cache.size <= 110
    entry("Sentence number 4 is here.")
    assert cache.hits == 1
    big = "A long sentence that fills the cache. " * 2  # 76 characters: evicts the oldest two
    entry(big)
    assert cache.size <= 110 and len(cache) == 2
    assert [key[0] for key in cache._entries] == ["Sentence number 4 is here.", big]
    cache.clear()
    assert len(cache) == 0 and cache.size == 0


def test_one_clear_forgets_chunks_vectors_words_and_token_counts() -> None:
    from cite_core._sources.tokens import token_counter

    count = token_counter("o200k_base")
    count("Some text to count.")
    parse_answer(ANSWER, number_sources(CHUNKS), embeddings=lambda texts: [[1.0, len(t)] for t in texts])
    assert len(_cache.CHUNKS) and len(_cache.VECTORS)
    _cache.clear()
    assert len(_cache.CHUNKS) == 0 and len(_cache.VECTORS) == 0
    assert _terms._analyze.cache_info().currsize == 0 and len(_terms._TABLES[0]) == 0
    assert count.cache_info().currsize == 0  # type: ignore[attr-defined]


def test_the_chunk_cache_gives_one_analysis_to_concurrent_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    clear_caches()
    texts = [f"{CHUNKS[k % 3]} Extra sentence {k}." for k in range(40)]
    expected = [_analysis._analyse_segment(t, False) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda t: _analysis._chunk(t, False), texts * 5))
    assert got == expected * 5
    assert len(_cache.CHUNKS) == 40


def test_values_built_in_one_call_are_kept_as_one_by_one() -> None:
    cache: _cache.LRUCache[str, str] = _cache.LRUCache(10, 100, lambda key, _: len(key))
    cache.get_or_build("b", lambda: "B")
    calls: list[list[str]] = []

    def build(keys: list[str]) -> list[str]:
        calls.append(keys)
        return [key.upper() for key in keys]

    assert cache.get_or_build_many(["a", "b", "a", "c"], build) == ["A", "B", "A", "C"]
    assert calls == [["a", "c"]]  # each missing key built once, in one call
    assert (cache.hits, cache.misses) == (2, 3)  # "a" again is a hit, as one by one
    assert list(cache._entries) == ["b", "a", "c"]
    assert cache.get_or_build_many(["c", "a"], build) == ["C", "A"] and len(calls) == 1


def test_a_corpus_analyses_its_sources_together_as_each_alone() -> None:
    clear_caches()
    items = [
        CHUNKS[0],
        {"text": CHUNKS[1], "document_id": "d", "start_index": 0},
        {"text": CHUNKS[2], "document_id": "d", "start_index": 900},  # one source of two segments
        {"text": CHUNKS[0], "document_id": "e"},  # the first one's text again: one analysis
    ]
    sources = number_sources(items)
    sources.append(sources[0].model_copy(update={"number": 9}))  # shares the first's analysis
    stats = _localize.Corpus(sources).stats
    counted = [_analysis.unit_counts(s) for s in sources]
    alone = _scoring.TermStats.from_groups([c for c, _ in counted], [n for _, n in counted])
    assert (stats.units, stats.avg_len) == (alone.units, alone.avg_len)
    assert {term: stats.df.get(term) for term in alone.df} == dict(alone.df)
    for source in sources:  # as each source's own analysis gives them
        alone_analysis = SourceAnalysis(source.text, source.segments, source.kind)
        assert _analysis._analyse_source(source, alone_analysis) == _analysis.source_units(source)
        assert alone_analysis.lengths == _analysis.unit_lengths(source)
