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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .._args import check_callable, check_instance, check_number, shown
from .._exceptions import ArgumentError, CiteError
from .._schema.models import CitedAnswer

__all__ = ["SupportScorer", "embed_function", "embedding_scorer", "model_vectors", "rescore"]

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
    scores = _rows(scorer(pairs), "the scorer", "scores") if pairs else []
    if len(scores) != len(pairs):
        raise CiteError(
            f"the scorer returned {len(scores)} scores for {len(pairs)} (claim, cited_text) pairs"
        )
    for i, score in enumerate(scores):
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
            raise CiteError(
                f"the scorer's score {i} for {pairs[i][0][:60]!r} is {shown(score)}; "
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


def _rows(got: Any, who: str, what: str) -> list[Any]:
    """What a model returned, as a list (a numpy array's ``tolist()``); ``CiteError`` when it is not a
    sequence (``None``, a number, a str, a dict)."""
    try:
        got = got.tolist() if hasattr(got, "tolist") else got
        if not isinstance(got, (str, bytes, Mapping)) and isinstance(got, Iterable):
            return list(got)
    except (TypeError, ValueError, AttributeError, RecursionError):
        pass  # an object whose tolist() or iteration fails is no list either
    raise CiteError(f"{who} returned {shown(got)}, not a list of {what}")


def _floats(values: list[Any]) -> tuple[float, ...] | None:
    """``values`` as floats, or None when one is a string or not a number a float can hold."""
    if any(isinstance(v, (str, bytes)) for v in values):
        return None
    try:
        return tuple(map(float, values))
    except (TypeError, ValueError, OverflowError):
        return None


def model_vectors(got: Any, count: int) -> list[tuple[float, ...]]:
    """What an embedding model returned for ``count`` texts as vectors of floats: ``CiteError`` naming
    what is wrong when it is not ``count`` vectors of one length, of finite numbers."""
    rows = _rows(got, "the embedding model", "vectors")
    if len(rows) != count:
        raise CiteError(f"the embedding model returned {len(rows)} vectors for {count} texts")
    vectors: list[tuple[float, ...]] = []
    for i, row in enumerate(rows):
        vector = _floats(_rows(row, f"the embedding model (vector {i})", "numbers"))
        if vector is None:
            raise CiteError(f"the embedding model's vector {i} holds other than numbers a float can hold")
        if vectors and len(vector) != len(vectors[0]):
            raise CiteError(
                f"the embedding model's vectors differ in length ({len(vectors[0])} and {len(vector)})"
            )
        vectors.append(vector)
    return vectors


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
        vectors = model_vectors(batch(texts), len(texts))
        by_text = dict(zip(texts, vectors))
        return [max(0.0, min(1.0, _cosine(by_text[a], by_text[b]))) for a, b in pairs]

    return score


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        raise CiteError(f"embedding vectors differ in length ({len(a)} and {len(b)})")
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
