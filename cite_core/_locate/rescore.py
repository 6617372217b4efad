"""Bring your own verifier: replace the lexical support score of every citation with another score.

The built-in ``support`` is lexical (no model download). Where a semantic model is at hand (an NLI
cross-encoder, an embedding model, an LLM judge), ``rescore(answer, scorer, threshold=...)`` gives a copy
of the answer whose citations carry that model's score and whose ``unsupported_citations`` use the
threshold that fits it. ``embedding_scorer(embed)`` turns any embedding model (a LangChain
``Embeddings``, a LlamaIndex embedding, or a function from texts to vectors) into a scorer: the cosine
similarity of each claim and its cited text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .._args import check_callable, check_instance, check_number
from .._exceptions import ArgumentError, CiteError
from .._schema.models import CitedAnswer

__all__ = ["SupportScorer", "embed_function", "embedding_scorer", "rescore"]

SupportScorer = Callable[[Sequence[tuple[str, str]]], Sequence[float]]
"""Scores a batch of ``(claim, cited_text)`` pairs, one number in 0..1 per pair, in order."""


def rescore(answer: CitedAnswer, scorer: SupportScorer, *, threshold: float) -> CitedAnswer:
    """A copy of ``answer`` whose citations' ``support`` is ``scorer``'s and whose
    ``unsupported_threshold`` is ``threshold`` (choose it for that scorer on data of your own: the
    default one is calibrated for the lexical score only). The scorer is called once, with every
    ``(claim, cited_text)`` pair of the answer; the claim is the text block the citation supports."""
    check_instance(answer, "answer", CitedAnswer, "a CitedAnswer")
    check_callable(scorer, "scorer", "taking (claim, cited_text) pairs")
    check_number(threshold, "threshold")
    pairs = [(block.text, c.cited_text) for block in answer.content for c in block.citations or []]
    scores = list(scorer(pairs)) if pairs else []
    if len(scores) != len(pairs):
        raise CiteError(
            f"the scorer returned {len(scores)} scores for {len(pairs)} (claim, cited_text) pairs"
        )
    for i, score in enumerate(scores):
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
            raise CiteError(
                f"the scorer's score {i} for {pairs[i][0][:60]!r} is {score!r}; "
                "scores must be numbers in 0..1"
            )
    rescored = iter(float(s) for s in scores)
    content = [
        block.model_copy(
            update={"citations": [c.model_copy(update={"support": next(rescored)}) for c in block.citations]}
        )
        if block.citations
        else block
        for block in answer.content
    ]
    return answer.model_copy(update={"content": content, "unsupported_threshold": float(threshold)})


def embed_function(embed: Any) -> Callable[[list[str]], Sequence[Sequence[float]]]:
    """The batch function of an embedding model: ``embed_documents`` (LangChain ``Embeddings``),
    ``get_text_embedding_batch`` (LlamaIndex embedding) or ``embed`` itself (a function from a list of
    texts to a list of vectors)."""
    if hasattr(embed, "embed_documents"):
        return embed.embed_documents
    if hasattr(embed, "get_text_embedding_batch"):
        return embed.get_text_embedding_batch
    if callable(embed):
        return embed
    raise ArgumentError(
        "embeddings must be a LangChain Embeddings, a LlamaIndex embedding or a function from texts to "
        f"vectors, got {type(embed).__name__}"
    )


def embedding_scorer(embed: Any) -> SupportScorer:
    """A scorer from an embedding model: ``max(0, cosine(claim, cited_text))``, every distinct text
    embedded once per answer in one batch. ``embed`` is a LangChain ``Embeddings`` (``embed_documents``),
    a LlamaIndex embedding (``get_text_embedding_batch``) or a function from a list of texts to a list of
    vectors."""
    batch = embed_function(embed)

    def score(pairs: Sequence[tuple[str, str]]) -> list[float]:
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))
        vectors = list(batch(texts))
        if len(vectors) != len(texts):
            raise CiteError(f"the embedding model returned {len(vectors)} vectors for {len(texts)} texts")
        by_text = dict(zip(texts, vectors))
        return [max(0.0, min(1.0, _cosine(by_text[a], by_text[b]))) for a, b in pairs]

    return score


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        raise CiteError(f"embedding vectors differ in length ({len(a)} and {len(b)})")
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
