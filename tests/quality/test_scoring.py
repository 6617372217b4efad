"""Scoring: terms, BM25, coverage and the calibrated support score."""

import math
from collections import Counter

from cite_core._locate.scoring import (
    SUPPORT_FEATURES,
    ClaimTerms,
    TermStats,
    bm25,
    build_postings,
    coverage,
    support,
    support_features,
)
from cite_core._schema.support import SUPPORT_THRESHOLD
from cite_core._sources.terms import analyze


def _stats(*texts: str) -> TermStats:
    return TermStats.from_units(analyze(t) for t in texts)


def _claim(text: str, stats: TermStats) -> ClaimTerms:
    return ClaimTerms.of(analyze(text), stats)


def test_analyze_drops_stop_words_and_stems() -> None:
    assert analyze("The cats were running") == ["cat", "runn"]


def test_analyze_cjk_gives_characters_and_bigrams() -> None:
    terms = analyze("阿Q正传")
    assert "正" in terms and "正传" in terms


def test_bm25_prefers_the_matching_unit() -> None:
    units = ["The sky is blue.", "The grass is green and lush.", "Water is wet."]
    stats = _stats(*units)
    terms = [analyze(u) for u in units]
    scores = bm25(
        _claim("grass green", stats), [Counter(t) for t in terms], [len(t) for t in terms], stats.avg_len
    )
    assert max(range(3), key=scores.__getitem__) == 1


def test_bm25_with_postings_equals_bm25_over_counts() -> None:
    units = [analyze(u) for u in ("a b c cats", "cats cats dogs", "")]
    stats = TermStats.from_units(units)
    claim = _claim("cats dogs", stats)
    counts, lengths = [Counter(u) for u in units], [len(u) for u in units]
    direct = bm25(claim, counts, lengths, stats.avg_len)
    assert bm25(claim, counts, lengths, stats.avg_len, build_postings(counts)) == direct
    assert direct[1] > direct[0] > direct[2] == 0.0


def test_claim_terms_hold_each_distinct_term_once_with_its_idf() -> None:
    stats = _stats("grass green", "sky blue")
    claim = _claim("green grass, green fields", stats)
    assert claim.terms == tuple(analyze("green grass, green fields"))
    assert sorted(t for t, _ in claim.weights) == sorted(set(claim.terms))
    assert all(idf == stats.idf(t) for t, idf in claim.weights)
    assert abs(claim.total - sum(idf for _, idf in claim.weights)) < 1e-12


def test_stats_over_groups_equal_stats_over_the_union() -> None:
    a, b = [analyze("grass is green"), analyze("sky blue")], [analyze("green sea"), analyze("blue whale")]
    groups = TermStats.from_groups(
        [[set(u) for u in a], [set(u) for u in b]], [[len(u) for u in a], [len(u) for u in b]]
    )
    whole = TermStats.from_units(a + b)
    for term in ("green", "blue", "whale", "absent"):
        assert abs(groups.idf(term) - whole.idf(term)) < 1e-12
    assert groups.units == whole.units and abs(groups.avg_len - whole.avg_len) < 1e-12


def test_coverage_is_idf_weighted_share() -> None:
    stats = _stats("grass green", "sky blue")
    assert coverage(_claim("grass green", stats), set(analyze("the grass is green"))) == 1.0
    assert coverage(_claim("grass green", stats), set(analyze("sky"))) == 0.0
    assert coverage(ClaimTerms.of([], stats), set(analyze("sky"))) == 0.0


def test_support_separates_supported_from_unsupported() -> None:
    source = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris."
    stats = _stats(source, "Paris is the capital of France.")
    good = support(_claim("The Eiffel Tower was completed in 1889.", stats), analyze(source))
    wrong_year = support(_claim("The Eiffel Tower was completed in 1925.", stats), analyze(source))
    unrelated = support(_claim("Bananas are rich in potassium.", stats), analyze(source))
    assert 0.0 <= unrelated < SUPPORT_THRESHOLD <= good <= 1.0
    assert wrong_year < good
    assert support(ClaimTerms.of([], stats), analyze(source)) == 0.0


def test_support_features_count_missing_numbers() -> None:
    stats = _stats("built in 1889")
    cov, _pairs, missing, length, share, absent, *_ = support_features(
        _claim("built in 1925", stats), analyze("built in 1889")
    )
    assert missing == 1.0 and 0 < cov < 1 and length > 0
    assert share == 0.5 and absent == math.log1p(1)


def test_support_features_count_terms_found_and_missing() -> None:
    stats = _stats("the grass is green and lush", "the sky is blue")
    claim = _claim("green grass grows tall", stats)  # green, grass, grow, tall
    feats = support_features(claim, analyze("The grass is green and lush."))
    assert feats[3] == math.log1p(4)  # distinct claim terms
    assert feats[4] == 0.5  # grass and green found, unweighted
    assert feats[5] == math.log1p(2)  # grow and tall missing
    assert feats[0] == coverage(claim, set(analyze("The grass is green and lush.")))


def test_support_features_match_the_weights() -> None:
    from cite_core._locate.scoring import SUPPORT_WEIGHTS

    stats = _stats("built in 1889")
    assert (
        len(support_features(_claim("built in 1889", stats), analyze("built in 1889")))
        == len(SUPPORT_WEIGHTS) - 1
    )


def test_support_falls_with_each_missing_term() -> None:
    source = "Amos Otis scored the final run in Municipal Stadium history."
    stats = _stats(source, "Kansas City Royals baseball.")
    cited = analyze(source)
    scores = [
        support(_claim(claim, stats), cited)
        for claim in (
            "Amos Otis scored the final run in Municipal Stadium history.",
            "Amos Otis scored the final run in Municipal Stadium history, batting third.",
            (
                "Amos Otis scored the final run in Municipal Stadium history, "
                "batting third against Detroit pitchers."
            ),
        )
    ]
    assert scores[0] >= SUPPORT_THRESHOLD
    assert scores[0] > scores[1] > scores[2]


# -- the weak-support flag and the graded signal (issue 13.2) ----------------------------------------


def test_support_levels_are_graded_around_the_flag_threshold() -> None:
    from cite_core._schema.support import SUPPORTED_LEVEL, support_level

    assert support_level(SUPPORT_THRESHOLD - 0.01) == "weak"
    assert support_level(SUPPORT_THRESHOLD) == "uncertain"
    assert support_level(SUPPORTED_LEVEL - 0.01) == "uncertain"
    assert support_level(SUPPORTED_LEVEL) == "supported"
    # a custom flag threshold moves the whole band with it
    assert support_level(0.55, threshold=0.5) == "uncertain"
    assert support_level(0.4, threshold=0.5) == "weak"


def test_the_answer_gives_each_citation_a_level_and_flags_exactly_the_weak_ones() -> None:
    from cite_core import number_sources, parse_answer

    sources = number_sources(["The grass is green.", "Paris is the capital of France."])
    answer = parse_answer("The grass is green [1]. Paris is in Spain and has a harbour [2].", sources)
    levels = [answer.support_level(c) for c in answer.citations]
    assert levels[0] == "supported" and levels[1] == "weak"
    assert answer.unsupported_citations == [c for c, lv in zip(answer.citations, levels) if lv == "weak"]


def test_a_long_claim_supported_by_several_sentences_of_its_source_is_not_flagged() -> None:
    from cite_core import number_sources, parse_answer

    text = (
        "Irene Hervey was born in Los Angeles in 1909.\n"
        "She appeared in more than fifty films.\n"
        "Later she worked in television series for two decades.\n"
        "Her stage work included a Broadway tour."
    )
    claim = (
        "Irene Hervey, born in 1909 in Los Angeles, appeared in over fifty films and "
        "television series and toured on Broadway [1]."
    )
    answer = parse_answer(claim, number_sources([text]))
    citation = answer.citations[0]
    assert "\n" not in citation.cited_text  # the span stays one line
    assert citation not in answer.unsupported_citations  # the source as a whole supports the claim


def test_attribute_keeps_its_own_sentence_level_threshold() -> None:
    from cite_core._answer.attribute import attribute
    from cite_core._schema.support import ATTRIBUTION_THRESHOLD

    assert ATTRIBUTION_THRESHOLD > SUPPORT_THRESHOLD
    answer = attribute("The grass is green. Paris hosts many museums.", ["The grass is green.", "Rome."])
    assert [c.document_index for c in answer.citations] == [0]
    assert answer.unsupported_threshold == SUPPORT_THRESHOLD


# -- the flag's features beyond term coverage (issue 13.2) --------------------------------------------


def test_claim_names_are_capitalised_words_inside_a_sentence() -> None:
    from cite_core._locate.scoring import claim_names

    assert claim_names("The tower in Paris was built by Gustave Eiffel.") == {"pari", "gustave", "eiffel"}
    assert claim_names("However, it rained.\nMost days were dry: Sunny ones too.") == set()
    assert claim_names("She said “Hello” to NASA staff") == {"nasa"}


def test_a_name_found_nowhere_in_the_source_lowers_support() -> None:
    source = "The bridge was opened in 1932 by the city council after six years of work."
    stats = _stats(source, "Rivers flow to the sea.")
    cited = analyze(source)
    plain = ClaimTerms.from_text("The bridge was opened in 1932 by the city council.", stats)
    named = ClaimTerms.from_text("The bridge was opened in 1932 by the mayor Jack Lang.", stats)
    other = ClaimTerms.from_text("The bridge was opened in 1932 by the council, said Jack Lang.", stats)
    feats = support_features(named, cited, set(cited))
    names_absent = feats[SUPPORT_FEATURES.index("names_absent_from_source")]
    assert names_absent == 1.0 and feats[SUPPORT_FEATURES.index("has_names")] == 1.0
    assert support(plain, cited, set(cited)) >= SUPPORT_THRESHOLD > support(named, cited, set(cited))
    # the same name present elsewhere in the source is not held against the cited sentence
    whole = set(cited) | {"jack", "lang"}
    assert support(other, cited, whole) > support(other, cited, set(cited))


def test_a_number_found_nowhere_in_the_source_counts_beyond_the_cited_text() -> None:
    source = "The bridge was opened in 1932 by the city council."
    stats = _stats(source, "Rivers flow to the sea.")
    claim = ClaimTerms.from_text("The bridge was opened in 1933 by the city council.", stats)
    cited = analyze(source)
    absent = support_features(claim, cited, set(cited))[SUPPORT_FEATURES.index("numbers_absent_from_source")]
    present = support_features(claim, cited, set(cited) | {"1933"})
    assert absent == 1.0 and present[SUPPORT_FEATURES.index("numbers_absent_from_source")] == 0.0
    assert support(claim, cited, set(cited)) < support(claim, cited, set(cited) | {"1933"})


def test_rare_terms_missing_is_the_share_of_the_rarest_third_not_cited() -> None:
    units = ["alpha beta gamma", "alpha beta", "alpha beta", "alpha delta", "alpha"]
    stats = _stats(*units)
    claim = ClaimTerms.of(analyze("alpha beta gamma delta epsilon zeta"), stats)
    # the rarest third (2 of 6 distinct terms, by idf): epsilon and zeta (never seen); neither cited
    rare = SUPPORT_FEATURES.index("rare_terms_missing")
    assert support_features(claim, analyze("alpha beta gamma delta"))[rare] == 1.0
    assert support_features(claim, analyze("epsilon zeta"))[rare] == 0.0


def test_claude_citations_read_names_against_the_whole_document_as_markers_do() -> None:
    from cite_core import from_anthropic_content, number_sources

    text = "Gustave Eiffel's company designed it. The tower was finished in 1889 for the fair."
    sources = number_sources([text])
    start = text.index("The tower")
    claim = "The tower of Gustave Eiffel was finished in 1889."
    block = {
        "type": "text",
        "text": claim,
        "citations": [
            {
                "type": "char_location",
                "cited_text": text[start:],
                "document_index": 0,
                "start_char_index": start,
                "end_char_index": len(text),
            }
        ],
    }
    citation = from_anthropic_content([block], sources).citations[0]
    stats = TermStats.from_units(analyze(u) for u in ("Gustave Eiffel's company designed it.", text[start:]))
    terms = ClaimTerms.from_text(claim, stats)
    # the names are in the document, only not in the cited sentence: not held against the citation
    assert citation.support > support(terms, analyze(text[start:]))
