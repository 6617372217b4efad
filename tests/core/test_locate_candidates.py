"""A long source is located through its candidates (``cite_core/_locate/candidates.py``): the same
citations as scoring every unit while the candidates are not capped, the rarest claim terms first."""

from __future__ import annotations

import random

import pytest

from cite_core import number_sources, parse_answer
from cite_core._locate import localize as _localize
from cite_core._locate.candidates import MAX_CANDIDATES, candidates
from cite_core._locate.scoring import ClaimTerms, TermStats, build_postings
from cite_core._sources.analysis import source_units, unit_counts

WORDS = "river bridge council opened city rain hills winter quiet stone tower museum".split()


def _items(seed: int) -> list[object]:
    """Text, paged and block sources of many units: sentences, fragments (lines without end
    punctuation) and neighbours that extend a span, with shared and rare words."""
    rng = random.Random(seed)

    def sentence(i: int) -> str:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6)))
        end = rng.choice([".", ".", ".", "\n", "!"])
        return f"The {words} {rng.choice(['', str(i), 'Sydney'])}{end} "

    return [
        "".join(sentence(i) for i in range(60)),
        {"pages": ["".join(sentence(i) for i in range(p, p + 15)) for p in range(0, 45, 15)], "title": "P"},
        {"blocks": ["".join(sentence(i) for i in range(b, b + 3)) for b in range(0, 30, 3)]},
    ]


def _answer(seed: int) -> str:
    rng = random.Random(seed + 1)
    claims = []
    for i in range(30):
        words = " ".join(rng.choice([*WORDS, "unrelated", "zebra"]) for _ in range(rng.randint(1, 5)))
        claims.append(f"The {words} {rng.choice(['', str(i), 'Sydney'])} [{rng.randint(1, 3)}].")
    return " ".join([*claims, "Zebras never appear [1]."])


@pytest.mark.parametrize("seed", range(6))
def test_candidates_below_the_cap_give_the_citations_of_scoring_every_unit(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = _answer(seed)
    whole = parse_answer(answer, number_sources(_items(seed)))
    # every source takes the candidates' path; their cap (MAX_CANDIDATES) is above their units
    monkeypatch.setattr(_localize, "MAX_CANDIDATES", 4)
    sources = number_sources(_items(seed))
    assert all(4 < len(source_units(s)) < MAX_CANDIDATES for s in sources)
    located = parse_answer(answer, sources)
    assert located.citations == whole.citations and located == whole
    assert {c.support for c in located.citations} != {0.0}


def test_the_rarest_claim_terms_give_the_first_candidates() -> None:
    sentences = [f"Item {i} of the catalogue weighs {i * 7} grams." for i in range(3 * MAX_CANDIDATES)]
    source = number_sources([" ".join(sentences)])[0]
    units = source_units(source)
    counts, lengths = unit_counts(source)
    claim = ClaimTerms.from_text(
        "Item 700 of the catalogue weighs 4900 grams", TermStats.from_groups([counts], [lengths])
    )
    found = candidates(claim, build_postings(counts))
    assert len(found) == MAX_CANDIDATES and found == sorted(found) and 700 in found
    # rarest first: 4900 is in unit 700 only, then 700 is also unit 100's weight
    assert candidates(claim, build_postings(counts), cap=1) == [700]
    assert candidates(claim, build_postings(counts), cap=2) == [100, 700]
    assert len(units) == 3 * MAX_CANDIDATES


def test_a_claim_about_a_late_unit_of_a_long_source_cites_it() -> None:
    """Beyond the cap's first units in order: the claim's rare terms find it."""
    sentences = [f"Item {i} of the catalogue weighs {i * 7} grams." for i in range(3 * MAX_CANDIDATES)]
    answer = parse_answer(
        "Item 700 of the catalogue weighs 4900 grams [1]. Nothing here matches zebras [1].",
        number_sources([" ".join(sentences)]),
    )
    # a claim sharing no term cites the whole source, as before
    assert [c.cited_text for c in answer.citations] == [sentences[700], " ".join(sentences)]
