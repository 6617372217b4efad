"""``python -m bench.eval``: every set an embedding model changes gets a hybrid row under its lexical row.

Run with a small fake embedding (no torch); the sets come from ../shared/data, a few records each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bench.eval import _data, flag, localisation, multilingual, posthoc, run, verification
from tests.fakes import hash_vector

pytestmark = pytest.mark.skipif(
    not _data.available("expertqa_domain_test_attributed_answers.jsonl"), reason="../shared/data not found"
)


class FakeModel:
    """A LangChain-style embedding model that records the texts it embeds."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [hash_vector(t, 32) for t in texts]


FEW = 8
"""Records per set (of each split), spread over the file so that both labels occur, to keep the test quick."""


def _few(records: list[Any], which: _data.Split) -> list[Any]:
    picked = _data.split(records, which)
    return picked[:: max(1, len(picked) // FEW)][:FEW]


@pytest.fixture(scope="module")
def results() -> Iterator[tuple[dict, dict, FakeModel]]:
    model = FakeModel()
    with pytest.MonkeyPatch.context() as patch:
        for module in (localisation, flag, verification, posthoc, multilingual):
            patch.setattr(module, "split", _few)
        yield run.run_all("dev", hybrid=False), run.run_all("dev", embeddings=model), model


def test_every_set_an_embedding_changes_has_hybrid_figures(results: tuple[dict, dict, FakeModel]) -> None:
    lexical, hybrid, model = results
    assert set(hybrid["hybrid"]) == set(run.HYBRID_SETS)
    for name in run.HYBRID_SETS:
        assert hybrid["hybrid"][name].keys() == hybrid[name].keys(), name
        assert hybrid[name] == lexical[name], name  # the lexical figures do not depend on the hybrid run
    assert model.texts  # the model was called
    assert lexical["hybrid"] == {"skipped": "not asked for (--no-hybrid)"}


def test_hybrid_rows_follow_their_lexical_rows_and_leave_them_unchanged(
    results: tuple[dict, dict, FakeModel],
) -> None:
    lexical, hybrid, _ = results
    plain, mixed = run.table(lexical), run.table(hybrid)
    without_hybrid = [row for row in mixed if row[0] != run.HYBRID_ROW]
    skipped = ("hybrid rows (every set)", "skipped", "not asked for (--no-hybrid)")
    assert [row for row in plain if row != skipped] == without_hybrid
    names = [row[0] for row in mixed]
    for name in (
        "QuoteSum cited span overlaps gold quote",
        "Cookbook: overlaps Claude's cited_text",
        "ES localisation top-1",
        "ZH localisation top-1",
        "AttributionBench AUROC",
        "attribute(): original citations recovered",
        "lexical: WiCE top-1, first sentence of the span",
    ):
        assert names[names.index(name) + 1] == run.HYBRID_ROW, name
    es = mixed[names.index("ES localisation top-1") + 1]
    assert es[1] == f"{hybrid['hybrid']['multilingual']['es']['top1']:.3f}" and "vs lexical" in es[2]


def test_without_a_model_the_hybrid_rows_say_skipped_and_why(
    monkeypatch: pytest.MonkeyPatch, results: tuple[dict, dict, FakeModel]
) -> None:
    lexical = results[0]
    why = "no embedding model (torch not installed; pip install -e '.[eval]')"
    monkeypatch.setattr(run, "load_embeddings", lambda: (None, why))
    monkeypatch.setattr(run, "_sections", lambda which, embeddings: {k: lexical[k] for k in run.HYBRID_SETS})
    result = run.run_all("dev")
    assert result["hybrid"] == {"skipped": why}
    rows = run.table(result)
    assert ("hybrid rows (every set)", "skipped", why) in rows
    assert all(row[0] != run.HYBRID_ROW for row in rows)
