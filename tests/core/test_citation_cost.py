"""What a citation costs was cut without changing what it gives (issue 34, docs/benchmarks.md "The cost
of a citation"): each shortcut against the reference it stands for, in either mode (with the extension
and under CITE_PURE_PYTHON=1).

Run longer with ``HYPOTHESIS_PROFILE=long`` (10,000 examples per property).
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import number_sources
from cite_core._locate.localize import Corpus
from cite_core._sources.terms import analyze
from cite_core._stream.claims import claim_terms, precedes_its_claim

SOURCES = number_sources(["The grass is green. The sky is blue.", "Hydrogen fuses into helium in the Sun."])

PIECES = [
    *"The bridges were opened in 1932 by Sydney's council according to the report".split(),
    *("Ñandú", "café", "ΣΟΦΙΑΣ", "中文", "日本語", "\U0001f600", "—", "“q”", "\ud800", "x_y", "a-b"),
    *(" ", "\t", "\n", ".", ",", ":", "1.", "a)", "###", "**", "Some sources", "As noted in", "e.g."),
]
TEXT = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map(" ".join) | st.text(
    min_size=1, max_size=40
)


@given(TEXT)
@example("x")
@example("The grass")
@example("Ñandú runs")
@example("1932 \ud800")
def test_a_claims_terms_are_analyzes(text: str) -> None:
    assert tuple(claim_terms(text)) == tuple(analyze(text))
    assert precedes_its_claim(text) == precedes_its_claim(text, analyze)


@given(TEXT)
def test_the_corpus_keeps_the_terms_it_gives_for_the_citation(text: str) -> None:
    corpus = Corpus(SOURCES)
    assert corpus.claim_terms(text) == tuple(analyze(text))
    kept = corpus._claims[text]
    corpus.cite(SOURCES[0], text, reference=1)
    assert corpus._claims[text] is kept  # the citation read the same analysis, not a second one
