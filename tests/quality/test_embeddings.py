"""QUALITY-EMBED: the user's embedding model mixed into localisation and support, batched and cached."""

from __future__ import annotations

import re

import pytest

from cite_core import CitationStream, CiteError, clear_caches, number_sources, parse_answer

# a toy embedding model that knows synonyms: each text is a bag of concepts
_CONCEPTS = {
    "lawn": "grass",
    "grass": "grass",
    "turf": "grass",
    "verdant": "green",
    "green": "green",
    "emerald": "green",
    "sky": "sky",
    "heavens": "sky",
    "blue": "blue",
    "azure": "blue",
    "cat": "cat",
    "cats": "cat",
    "feline": "cat",
    "purr": "purr",
    "purrs": "purr",
}
_AXES = sorted(set(_CONCEPTS.values())) + ["other"]


def concept_vectors(texts: list[str]) -> list[list[float]]:
    out = []
    for text in texts:
        vec = [0.0] * len(_AXES)
        for word in re.findall(r"\w+", text.lower()):
            vec[_AXES.index(_CONCEPTS.get(word, "other"))] += 1.0 if word in _CONCEPTS else 0.1
        out.append(vec)
    return out


class CountingModel:
    """A LangChain-style ``Embeddings``: ``embed_documents``; records every batch it gets."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return concept_vectors(texts)


class LlamaStyleModel:
    """A LlamaIndex-style embedding: ``get_text_embedding_batch``."""

    def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
        return concept_vectors(texts)


SOURCE = "The weather report said the heavens were azure all day. Verdant turf covers the park. Rain fell."
ANSWER = "The lawn was green [1]."


def test_a_paraphrase_is_localised_with_embeddings_and_not_without() -> None:
    clear_caches()
    sources = number_sources([SOURCE])
    lexical = parse_answer(ANSWER, sources).citations[0]
    hybrid = parse_answer(ANSWER, sources, embeddings=concept_vectors).citations[0]
    assert hybrid.cited_text == "Verdant turf covers the park."
    assert lexical.cited_text != hybrid.cited_text  # no shared word: lexical cannot find it


def test_support_rises_for_a_paraphrase_and_stays_low_for_an_unrelated_claim() -> None:
    sources = number_sources([SOURCE, "Cats purr when content."])
    answer = parse_answer("The lawn was green [1]. Felines purr [2]. The sky was azure [2].", sources)
    hybrid = parse_answer(
        "The lawn was green [1]. Felines purr [2]. The sky was azure [2].",
        sources,
        embeddings=concept_vectors,
    )
    assert hybrid.citations[0].support > answer.citations[0].support
    assert hybrid.citations[2].support < hybrid.citations[1].support


def test_without_embeddings_nothing_changes() -> None:
    sources = number_sources([SOURCE])
    assert parse_answer(ANSWER, sources, embeddings=None) == parse_answer(ANSWER, sources)


def test_a_whole_answer_embeds_only_cited_sources_in_one_call_and_caches_them() -> None:
    clear_caches()
    model = CountingModel()
    sources = number_sources([SOURCE, "Cats purr when content. Dogs bark.", "Never cited at all."])
    parse_answer("The lawn was green [1]. Cats purr [2].", sources, embeddings=model)
    assert len(model.batches) == 1  # the whole answer: every claim and cited source's units at once
    embedded = model.batches[0]
    assert "Never cited at all." not in embedded
    assert {"The lawn was green", "Cats purr", "Verdant turf covers the park.", "Dogs bark."} <= set(embedded)
    assert len(embedded) == len(set(embedded))  # nothing twice
    model.batches.clear()
    parse_answer("The lawn was green [1]. Cats purr [2].", sources, embeddings=model)
    assert model.batches == []  # every claim and unit vector came from the cache
    parse_answer("Felines purr [2].", sources, embeddings=model)
    assert model.batches == [["Felines purr"]]  # only the new claim


def test_a_stream_embeds_per_claim_and_ends_with_the_one_call_answer() -> None:
    clear_caches()
    model = CountingModel()
    sources = number_sources([SOURCE, "Cats purr when content. Dogs bark."])
    text = "The lawn was green [1]. Felines purr [2]. The sky is azure [1]."
    stream = CitationStream(sources, embeddings=model)
    for ch in text:
        stream.feed(ch)
    streamed = stream.finish()
    # streamed: a claim is cited as soon as it ends, so each new claim is its own call
    assert [len(b) for b in model.batches][1:] == [3, 1]  # claim + source 2's two units, then a claim
    clear_caches()
    model.batches.clear()
    assert parse_answer(text, sources, embeddings=model) == streamed
    assert len(model.batches) == 1


def test_llamaindex_style_models_are_accepted_and_give_the_same_answer() -> None:
    sources = number_sources([SOURCE])
    a = parse_answer(ANSWER, sources, embeddings=LlamaStyleModel())
    b = parse_answer(ANSWER, sources, embeddings=concept_vectors)
    assert a == b


def test_streaming_with_embeddings_equals_the_whole_parse() -> None:
    sources = number_sources([SOURCE, "Cats purr when content."])
    text = "The lawn was green [1]. Felines purr [2]."
    whole = parse_answer(text, sources, embeddings=concept_vectors)
    stream = CitationStream(sources, embeddings=concept_vectors)
    for ch in text:
        stream.feed(ch)
    assert stream.finish() == whole


def test_a_model_returning_the_wrong_number_of_vectors_is_a_clear_error() -> None:
    clear_caches()
    with pytest.raises(CiteError, match="returned 1 vectors for"):
        parse_answer(ANSWER, number_sources([SOURCE]), embeddings=lambda texts: [[1.0, 0.0]])


def test_something_that_is_not_a_model_is_refused() -> None:
    with pytest.raises(TypeError, match="embeddings must be"):
        parse_answer(ANSWER, number_sources([SOURCE]), embeddings=42)


def test_hybrid_support_does_not_let_an_orthogonal_vector_flag_a_clear_lexical_match() -> None:
    from cite_core._locate.localize import hybrid_support
    from cite_core._schema.support import SUPPORT_THRESHOLD

    assert hybrid_support(0.8, 0.0) >= SUPPORT_THRESHOLD  # words all found, the model unsure
    assert hybrid_support(0.2, 0.1) < SUPPORT_THRESHOLD  # neither reading supports it
    assert hybrid_support(0.35, 0.9) >= SUPPORT_THRESHOLD  # a paraphrase the model recognises
    assert hybrid_support(0.5, 0.8) > hybrid_support(0.5, 0.3)
