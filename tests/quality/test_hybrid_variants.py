"""The dense support variants of issue 13.2: what they record is what the library computed, and the
recording leaves the library as it was."""

from __future__ import annotations

import math

from bench.eval import hybrid_variants
from cite_core import clear_caches, number_sources, parse_answer
from cite_core._locate import dense as _dense
from cite_core._locate import localize as _localize
from cite_core._locate import scoring as _scoring
from cite_core._locate.dense import DenseModel, cosine
from cite_core._sources.analysis import source_units
from tests.fakes import hash_vectors

SOURCES = [
    "The river froze in January. Skaters crossed it daily. The mill stopped for a month.",
    "Wheat prices rose in the spring. Farmers sold early. The harvest was late.",
]
CLAIMS = ("Skaters crossed the frozen river in January", "Farmers sold their wheat early")
ANSWER = f"{CLAIMS[0]} [1]. {CLAIMS[1]} [2]."


def _records() -> list[hybrid_variants.Reading]:
    clear_caches()
    return hybrid_variants.citation_records(ANSWER, number_sources(SOURCES), hash_vectors)


def test_each_citation_records_the_inputs_of_its_support() -> None:
    records = _records()
    sources = number_sources(SOURCES)
    answer = parse_answer(ANSWER, sources, embeddings=hash_vectors)
    assert len(records) == len(answer.citations) == 2
    model = DenseModel(hash_vectors)
    for record, citation, claim in zip(records, answer.citations, CLAIMS):
        # the recorded lexical readings and span cosine give exactly the citation's support
        assert _localize.hybrid_support(max(record.lexical), record.span) == citation.support
        assert len(record.features) == len(record.lexical) >= 1
        source = sources[citation.document_index]
        units = [source.text[u.start : u.end] for u in source_units(source)]
        claim_vector, *vectors = model.vectors([claim, *units])
        cited = [
            v
            for u, v in zip(source_units(source), vectors)
            if citation.source_start <= u.start < citation.source_end
        ]
        assert math.isclose(record.span, cosine(claim_vector, _localize.mean_vector(cited)), abs_tol=1e-9)
        assert math.isclose(record.best_unit, max(cosine(claim_vector, v) for v in vectors), abs_tol=1e-9)
        assert -1.0 <= record.best_units <= 1.0


def test_recording_restores_the_library_functions() -> None:
    hooked = [
        (_localize, "support"),
        (_scoring, "support_features"),
        (_localize, "hybrid_support"),
        (_localize.Corpus, "_best"),
        (_dense.DenseModel, "vectors"),
    ]
    before = [getattr(owner, name) for owner, name in hooked]
    _records()
    assert [getattr(owner, name) for owner, name in hooked] == before
    assert hybrid_variants.citation_records(None, [], hash_vectors) == []


def test_variants_turn_citations_into_readings_of_one_shape() -> None:
    records = _records()
    today = hybrid_variants.VARIANTS["logit(lexical), span cosine"]
    p = min(max(*records[0].lexical, 1e-4), 1 - 1e-4)
    assert today(records[0]) == [(math.log(p / (1 - p)), records[0].span)]
    for variant in hybrid_variants.VARIANTS.values():
        shapes = {len(x) for r in records for x in variant(r)}
        assert len(shapes) == 1  # one logistic model: every reading has the same features
    sets = hybrid_variants.variant_sets(
        {"d": [("supported", records), ("not_supported", [])]}, hybrid_variants.VARIANTS["+ best unit cosine"]
    )
    assert [label for label, _ in sets["d"]] == ["supported", "not_supported"]
    assert len(sets["d"][0][1]) == 2 and sets["d"][1][1] == []
