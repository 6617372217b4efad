"""``attribute(..., embeddings=)``: the user's embedding model reaches post-hoc attribution too."""

from __future__ import annotations

from cite_core import attribute, clear_caches, number_sources

from .test_embeddings import SOURCE, CountingModel


def test_a_paraphrase_is_attributed_with_embeddings_and_not_without() -> None:
    sources = number_sources([SOURCE, "Cats purr when content. Dogs bark at strangers."])
    text = "The lawn was green and verdant turf grew."
    assert attribute(text, sources).citations == []
    model = CountingModel()
    answer = attribute(text, sources, embeddings=model)
    assert answer.text == "The lawn was green and verdant turf grew [1]."
    assert [r.source.number for r in answer.references] == [1]
    assert answer.citations[0].cited_text == "Verdant turf covers the park."
    assert model.batches  # the model was asked, in batches


def test_every_sentence_and_source_is_embedded_in_one_call() -> None:
    clear_caches()
    sources = number_sources([SOURCE, "Cats purr when content. Dogs bark at strangers."])
    model = CountingModel()
    answer = attribute(
        "The lawn was green and verdant turf grew. Felines purr when content.", sources, embeddings=model
    )
    assert [r.source.number for r in answer.references] == [1, 2]
    assert len(model.batches) == 1  # two sentences against two sources, then the final parse: one call
    assert "Dogs bark at strangers." in model.batches[0]
