"""A local dense embedding model (fastembed or sentence-transformers) that is never downloaded."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ._errors import CliError, require

__all__ = ["DenseEmbedder"]


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


class DenseEmbedder:
    """``--dense fastembed:NAME`` or ``--dense st:NAME``: a model on disk (``cite-anything[dense]``)."""

    def __init__(self, spec: str) -> None:
        backend, _, name = spec.partition(":")
        if not name:
            raise CliError(f"--dense expects fastembed:MODEL or st:MODEL, got {spec!r}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.spec = spec
        try:
            if backend == "fastembed":
                fastembed = require("fastembed", "--dense fastembed:MODEL", "dense")
                self._model = fastembed.TextEmbedding(model_name=name, local_files_only=True)
                self._embed = lambda texts: [list(map(float, v)) for v in self._model.embed(list(texts))]
            elif backend in ("st", "sentence-transformers"):
                st = require("sentence_transformers", "--dense st:MODEL", "dense")
                self._model = st.SentenceTransformer(name, local_files_only=True)
                self._embed = lambda texts: self._model.encode(
                    list(texts), normalize_embeddings=True
                ).tolist()
            else:
                raise CliError(f"unknown --dense backend {backend!r} (use fastembed or st)")
        except CliError:
            raise
        except Exception as exc:
            raise CliError(
                f"dense model {name!r} is not available locally ({_reason(exc)}); "
                "nothing is downloaded: install it first or drop --dense"
            ) from exc
        self.size = len(self.embed(["size probe"])[0])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(texts)
