"""Bring-your-own verifier: rescore() and embedding_scorer(), and the harness that measures any scorer."""

from __future__ import annotations

import math
import re

import pytest

from cite_core import CitedAnswer, CiteError, embedding_scorer, number_sources, parse_answer, rescore

SOURCES = number_sources(
    [
        "The grass is green. The sky is blue.",
        "Paris is the capital of France. It has many museums.",
    ]
)
ANSWER = parse_answer("The grass is green [1]. Paris has museums [2]. The sky is blue [1].", SOURCES)
WORD = re.compile(r"\w+")


def word_share(pairs):  # type: ignore[no-untyped-def]
    """A toy scorer: the share of the claim's words found in the cited text."""
    out = []
    for claim, cited in pairs:
        words = WORD.findall(claim.lower())
        have = set(WORD.findall(cited.lower()))
        out.append(sum(w in have for w in words) / len(words) if words else 0.0)
    return out


def make_word_share():  # type: ignore[no-untyped-def]
    return word_share


def test_rescore_replaces_every_support_and_the_threshold() -> None:
    calls = []

    def scorer(pairs):  # type: ignore[no-untyped-def]
        calls.append(list(pairs))
        return [0.9, 0.1, 0.6]

    result = rescore(ANSWER, scorer, threshold=0.5)
    assert len(calls) == 1  # one batch for the whole answer
    assert calls[0] == [
        ("The grass is green", "The grass is green."),
        ("Paris has museums", "Paris is the capital of France. It has many museums."),
        ("The sky is blue", "The sky is blue."),
    ]
    assert [c.support for c in result.citations] == [0.9, 0.1, 0.6]
    assert result.unsupported_threshold == 0.5
    assert [c.cited_text for c in result.unsupported_citations] == [ANSWER.citations[1].cited_text]
    # everything else is the same answer, and the original is untouched
    assert result.text == ANSWER.text and result.references == ANSWER.references
    assert [c.support for c in ANSWER.citations] != [0.9, 0.1, 0.6]
    assert CitedAnswer.model_validate_json(result.model_dump_json()) == result


def test_rescore_of_an_answer_without_citations_only_sets_the_threshold() -> None:
    answer = parse_answer("Nothing cited here.", SOURCES)
    called = []
    result = rescore(answer, lambda pairs: called.append(pairs) or [], threshold=0.3)
    assert called == [] and result.citations == [] and result.unsupported_threshold == 0.3


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([0.5, 0.5], "returned 2 scores for 3"),
        ([0.5, 1.5, 0.5], "scores must be numbers in 0..1"),
        ([0.5, math.nan, 0.5], "score 1"),
        ([0.5, "high", 0.5], "score 1"),
        ([True, 0.5, 0.5], "score 0"),
    ],
)
def test_a_scorer_giving_bad_scores_is_reported(scores: list, message: str) -> None:
    with pytest.raises(CiteError, match=message):
        rescore(ANSWER, lambda pairs: scores, threshold=0.5)


def test_bad_arguments_are_reported() -> None:
    with pytest.raises(TypeError, match="CitedAnswer"):
        rescore("text", word_share, threshold=0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="callable"):
        rescore(ANSWER, 0.5, threshold=0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="finite number"):
        rescore(ANSWER, word_share, threshold=math.inf)
    with pytest.raises(TypeError, match="Embeddings"):
        embedding_scorer(42)


def test_embedding_scorer_from_a_function_embeds_each_text_once() -> None:
    batches = []

    def embed(texts):  # type: ignore[no-untyped-def]
        batches.append(list(texts))
        return [[1.0, 0.0] if "green" in t or "blue" in t else [0.6, 0.8] for t in texts]

    result = rescore(ANSWER, embedding_scorer(embed), threshold=0.7)
    assert len(batches) == 1 and len(batches[0]) == len(set(batches[0])) == 6
    assert [round(c.support, 6) for c in result.citations] == [1.0, 1.0, 1.0]
    opposite = embedding_scorer(
        lambda texts: [[1.0, 0.0] if "[" in t or "green" in t else [-1.0, 0.0] for t in texts]
    )
    assert opposite([("green", "red")]) == [0.0]  # negative cosine is clipped to 0


def test_embedding_scorer_takes_langchain_and_llamaindex_models() -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from llama_index.core.embeddings import MockEmbedding

    lc = rescore(ANSWER, embedding_scorer(DeterministicFakeEmbedding(size=16)), threshold=0.5)
    assert all(0.0 <= c.support <= 1.0 for c in lc.citations)
    li = rescore(ANSWER, embedding_scorer(MockEmbedding(embed_dim=8)), threshold=0.5)
    assert [round(c.support, 6) for c in li.citations] == [1.0, 1.0, 1.0]  # constant vectors


def test_embedding_scorer_reports_a_model_returning_the_wrong_vectors() -> None:
    with pytest.raises(CiteError, match="vectors for"):
        rescore(ANSWER, embedding_scorer(lambda texts: [[1.0]]), threshold=0.5)
    with pytest.raises(CiteError, match="differ in length"):
        rescore(
            ANSWER,
            embedding_scorer(lambda texts: [[1.0] * (i % 2 + 1) for i, _ in enumerate(texts)]),
            threshold=0.5,
        )


def test_the_harness_measures_the_lexical_score_exactly_as_the_evaluation(shared_data) -> None:
    from bench.eval import verification
    from bench.eval._metrics import best_threshold
    from bench.eval.scorer import evaluate, load_scorer

    result = evaluate(load_scorer("lexical"))
    table = verification.run("test")
    dev = verification.attributionbench_pairs("dev")
    # the harness's threshold is the balanced one on AttributionBench dev (the flag's is lower by design)
    assert result["threshold"] == best_threshold([s for s, _, _ in dev], [y for _, y, _ in dev])[0]
    assert result["attributionbench"]["auroc"] == table["attributionbench"]["auroc"]
    assert result["expertqa"]["auroc"] == table["expertqa"]["auroc"]


def test_the_harness_measures_a_scorer_given_as_module_and_factory(shared_data) -> None:
    from bench.eval.scorer import main

    result = main(["--scorer", "tests.quality.test_rescore:make_word_share"])
    assert 0.0 <= result["threshold"] <= 1.0
    assert result["attributionbench"]["pairs"] == 331
    assert 0.5 < result["attributionbench"]["auroc"] < 1.0
