"""Dense similarity from the user's own embedding model, batched and cached per text (QUALITY-EMBED).

``DenseModel(embeddings)`` wraps anything ``embedding_scorer`` accepts (a LangChain ``Embeddings``, a
LlamaIndex embedding, or a function from a list of texts to a list of vectors). ``vectors(texts)``
returns unit-length vectors, embedding only the texts not yet in ``_cache.VECTORS`` (keyed by the model
and the text), all of them in one call. Sources are embedded lazily: only the units of a source that is
actually cited, the first time it is cited.
"""

from __future__ import annotations

import math
import operator
import threading
import weakref
from collections.abc import Sequence
from itertools import repeat
from typing import Any

from .._sources.cache import VECTORS
from .rescore import embed_function, model_vectors

__all__ = ["DenseModel", "cosine"]

_TOKENS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_PINNED: dict[int, tuple[Any, int]] = {}  # models that cannot be weakly referenced: kept alive
_LOCK = threading.Lock()
_NEXT = [0]


def _model_token(embeddings: Any) -> int:
    """A number naming this model object in the vector cache for as long as the object lives."""
    with _LOCK:
        try:
            token = _TOKENS.get(embeddings)
        except TypeError:  # not weakly referenceable: pinned by identity
            pinned = _PINNED.get(id(embeddings))
            if pinned is not None and pinned[0] is embeddings:
                return pinned[1]
            _NEXT[0] += 1
            _PINNED[id(embeddings)] = (embeddings, _NEXT[0])
            return _NEXT[0]
        if token is None:
            _NEXT[0] += 1
            token = _TOKENS[embeddings] = _NEXT[0]
        return token


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two unit-length vectors (their dot product; ``sum`` over ``map`` runs in C, 1.6x
    faster than ``math.fsum`` on 384 dimensions, and the rounding it adds, about 1e-16, is far below
    ``TIE``)."""
    return sum(map(operator.mul, a, b)) if a and b else 0.0


def _unit(vector: Sequence[float]) -> tuple[float, ...]:
    """``vector`` scaled to unit length (``math.hypot`` and ``map`` in C: 2.5x faster than generator
    expressions on 384 dimensions); an empty tuple for a zero or non-finite vector."""
    values = tuple(map(float, vector))
    norm = math.hypot(*values)
    return tuple(map(operator.truediv, values, repeat(norm))) if norm and math.isfinite(norm) else ()


class DenseModel:
    """An embedding model with its vectors cached per text."""

    def __init__(self, embeddings: Any) -> None:
        self._batch = embed_function(embeddings)
        # bound methods are new objects each time: name the model by the object that owns them
        self._token = _model_token(getattr(self._batch, "__self__", self._batch))
        self.calls = 0
        """How many times the model was called (one batch per call)."""

    def vectors(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        """Unit-length vectors of ``texts`` (an empty tuple for a text the model gave a zero vector)."""
        token = self._token
        found = [VECTORS.get((token, t)) for t in texts]
        missing = list(dict.fromkeys(t for t, v in zip(texts, found) if v is None))
        if missing:
            self.calls += 1
            got = model_vectors(self._batch(missing), len(missing))
            new = {t: VECTORS.put((token, t), _unit(v)) for t, v in zip(missing, got)}
            found = [v if v is not None else new[t] for t, v in zip(texts, found)]
        return found  # type: ignore[return-value]
