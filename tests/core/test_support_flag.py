"""The weak-support flag: an attribution lead-in ("According to X,") is not looked for in the source,
names after it still are, and the graded signal follows the flag threshold."""

from __future__ import annotations

import pytest

from cite_core import number_sources, parse_answer
from cite_core._scoring import (
    SUPPORT_THRESHOLD,
    SUPPORTED_LEVEL,
    TermStats,
    analyze,
    claim_names,
    support,
    support_level,
    support_terms,
)

SOURCE = "The Millbrook bridge opened to traffic in 1932 after four years of work."


def _stats(*texts: str) -> TermStats:
    return TermStats.from_units(analyze(t) for t in texts)


def test_claim_names_from_an_offset_skip_the_words_before_it() -> None:
    text = "According to the Daily Planet, the bridge in Millbrook opened."
    assert claim_names(text) == set(analyze("Daily Planet Millbrook"))
    assert claim_names(text, text.index(",")) == set(analyze("Millbrook"))


@pytest.mark.parametrize(
    "lead",
    ["According to the Daily Planet, ", "Based on the given sources, ", "As reported by Reuters in 2019, "],
)
def test_support_reads_the_claim_without_its_attribution_lead_in(lead: str) -> None:
    stats = _stats(SOURCE, "Ferries crossed the river before.")
    bare = "the Millbrook bridge opened in 1932."
    cited = analyze(SOURCE)
    led = support_terms(lead + bare, stats)
    assert led.terms == tuple(analyze(bare))
    assert led.names == set(analyze("Millbrook"))  # the name after the lead-in still has to be found
    assert support(led, cited, set(cited)) == support(support_terms(bare, stats), cited, set(cited))


def test_a_lead_in_alone_or_inside_the_sentence_is_kept() -> None:
    stats = _stats(SOURCE)
    whole = support_terms("According to the survey, ", stats)
    assert whole.terms == tuple(analyze("According to the survey, "))
    inside = support_terms("The bridge, according to locals, opened in 1932.", stats)
    assert "local" in inside.terms


def test_a_claim_attributed_to_a_named_outlet_is_not_flagged_when_the_source_supports_it() -> None:
    sources = number_sources([SOURCE, "Ferries crossed the river before the bridge."])
    led = parse_answer("According to the Daily Planet, the Millbrook bridge opened in 1932 [1].", sources)
    bare = parse_answer("The Millbrook bridge opened in 1932 [1].", sources)
    assert led.citations[0].support == bare.citations[0].support >= SUPPORT_THRESHOLD
    assert led.unsupported_citations == []


def test_an_unsupported_claim_behind_a_lead_in_is_still_flagged() -> None:
    sources = number_sources([SOURCE, "Ferries crossed the river before the bridge."])
    answer = parse_answer("According to the Daily Planet, Oakhurst tunnel collapsed in 1987 [1].", sources)
    assert answer.unsupported_citations == answer.citations
    assert answer.support_level(answer.citations[0]) == "weak"


def test_support_level_bands() -> None:
    assert support_level(SUPPORT_THRESHOLD - 0.01) == "weak"
    assert support_level(SUPPORT_THRESHOLD) == "uncertain"
    assert support_level(SUPPORTED_LEVEL) == "supported"
    assert SUPPORT_THRESHOLD < SUPPORTED_LEVEL


def test_claude_citations_read_the_claim_without_its_lead_in_too() -> None:
    from cite_core import from_anthropic_content

    sources = number_sources([SOURCE, "Ferries crossed the river before the bridge."])

    def block(text: str) -> dict[str, object]:
        cited = {"type": "char_location", "cited_text": SOURCE, "document_index": 0}
        return {
            "type": "text",
            "text": text,
            "citations": [{**cited, "start_char_index": 0, "end_char_index": len(SOURCE)}],
        }

    led = from_anthropic_content(
        [block("According to the Daily Planet, the Millbrook bridge opened in 1932.")], sources
    )
    bare = from_anthropic_content([block("The Millbrook bridge opened in 1932.")], sources)
    assert led.citations[0].support == bare.citations[0].support
    assert led.unsupported_citations == []
