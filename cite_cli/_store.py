"""The Qdrant collection: sparse vectors (Qdrant's IDF modifier) with optional local dense embeddings.

Term ids are a stable hash of ``cite_core``'s lexical terms (words, CJK characters and bigrams), so the
index works offline, in any language, with no model. A dense model is used only when asked for and
already on disk (fastembed or sentence-transformers); nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import uuid
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cite_core._scoring import analyze

from ._documents import Chunk
from ._errors import CliError, require

__all__ = ["DEFAULT_COLLECTION", "DEFAULT_PATH", "Hit", "Store", "sparse_vector"]

DEFAULT_PATH = Path(".cite") / "qdrant"
DEFAULT_COLLECTION = "cite"
SPARSE = "text"
DENSE = "dense"
_META_ID = str(uuid.UUID("00000000-0000-4000-8000-00000000c17e"))
_K1 = 1.2


def term_id(term: str) -> int:
    """A stable 32-bit id for a term (the same in every process and on every machine)."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "little")


def sparse_vector(text: str, *, query: bool = False) -> tuple[list[int], list[float]]:
    """Indices and values of ``text``'s terms: saturated term frequency (documents) or 1.0 (queries)."""
    counts = Counter(term_id(t) for t in analyze(text))
    indices = sorted(counts)
    if query:
        return indices, [1.0] * len(indices)
    return indices, [counts[i] * (_K1 + 1) / (counts[i] + _K1) for i in indices]


@dataclass
class Hit:
    """A retrieved chunk with its payload."""

    score: float
    payload: dict[str, Any]


class Store:
    """One collection in an embedded (on-disk) Qdrant or on a Qdrant server."""

    def __init__(
        self,
        *,
        path: str | None = None,
        url: str | None = None,
        api_key: str | None = None,
        collection: str = DEFAULT_COLLECTION,
        create: bool = False,
    ) -> None:
        qdrant_client = require("qdrant_client", "The Qdrant index")
        self.collection = collection
        self.url = url
        self.where = url or str(path or DEFAULT_PATH)
        if url:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the version check warns when the server is down
                    self.client = qdrant_client.QdrantClient(url=url, api_key=api_key, timeout=10)
                self.client.get_collections()
            except Exception as exc:
                raise CliError(f"cannot reach Qdrant at {url}: {_reason(exc)}") from exc
        else:
            folder = Path(path or DEFAULT_PATH)
            if not create and not folder.exists():
                raise CliError(f"no index yet at {folder} (run `cite ingest PATH...` first)")
            try:
                folder.mkdir(parents=True, exist_ok=True)
                self.client = qdrant_client.QdrantClient(path=str(folder))
            except RuntimeError as exc:  # the folder is locked by another process
                raise CliError(f"cannot open the index at {folder}: {exc}") from exc
        if not create and not self.client.collection_exists(collection):
            self.client.close()
            raise CliError(
                f"no index yet: collection '{collection}' not found at {self.where} "
                "(run `cite ingest PATH...` first)"
            )

    def close(self) -> None:
        self.client.close()

    # -- writing ---------------------------------------------------------------------------------

    def ensure_collection(self, dense_model: str | None, dense_size: int | None) -> None:
        from qdrant_client import models

        if self.client.collection_exists(self.collection):
            existing = self.meta().get("dense_model")
            if existing != dense_model:
                raise CliError(
                    f"collection '{self.collection}' was built with dense model {existing!r}, not {dense_model!r}; "
                    "use the same --dense option or another --collection"
                )
            return
        vectors = (
            {DENSE: models.VectorParams(size=dense_size, distance=models.Distance.COSINE)}
            if dense_model
            else {}
        )
        self.client.create_collection(
            self.collection,
            vectors_config=vectors,
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        if self.url:  # payload indexes only exist on a server
            self.client.create_payload_index(self.collection, "document_id", models.PayloadSchemaType.KEYWORD)
        self.client.upsert(
            self.collection,
            [
                models.PointStruct(
                    id=_META_ID, vector={}, payload={"_cite_meta": True, "dense_model": dense_model}
                )
            ],
        )

    def meta(self) -> dict[str, Any]:
        points = self.client.retrieve(self.collection, [_META_ID], with_payload=True)
        return dict(points[0].payload or {}) if points else {}

    def replace_document(
        self, document_id: str, chunks: Sequence[Chunk], dense: Sequence[Sequence[float]] | None = None
    ) -> None:
        """Delete the document's old chunks, then store these ones."""
        from qdrant_client import models

        self.client.delete(
            self.collection,
            models.FilterSelector(
                filter=models.Filter(
                    must=[
                        models.FieldCondition(key="document_id", match=models.MatchValue(value=document_id))
                    ]
                )
            ),
        )
        points = []
        for i, chunk in enumerate(chunks):
            indices, values = sparse_vector(chunk.text)
            vector: dict[str, Any] = {SPARSE: models.SparseVector(indices=indices, values=values)}
            if dense is not None:
                vector[DENSE] = list(dense[i])
            points.append(
                models.PointStruct(
                    id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{document_id}#{chunk.index}")),
                    vector=vector,
                    payload={
                        "text": chunk.text,
                        "document_id": chunk.document_id,
                        "path": chunk.path,
                        "title": chunk.title,
                        "start_index": chunk.start,
                        "page": chunk.page,
                        "chunk": chunk.index,
                    },
                )
            )
        for i in range(0, len(points), 256):
            self.client.upsert(self.collection, points[i : i + 256])

    # -- reading ---------------------------------------------------------------------------------

    def search(self, question: str, *, limit: int, dense: Sequence[float] | None = None) -> list[Hit]:
        from qdrant_client import models

        indices, values = sparse_vector(question, query=True)
        sparse = models.SparseVector(indices=indices, values=values)
        if dense is None:
            if not indices:
                return []
            result = self.client.query_points(
                self.collection, query=sparse, using=SPARSE, limit=limit, with_payload=True
            )
        else:
            prefetch = [models.Prefetch(query=list(dense), using=DENSE, limit=limit * 3)]
            if indices:
                prefetch.append(models.Prefetch(query=sparse, using=SPARSE, limit=limit * 3))
            result = self.client.query_points(
                self.collection,
                prefetch=prefetch,
                query=models.FusionQuery(fusion=models.Fusion.RRF),
                limit=limit,
                with_payload=True,
            )
        return [
            Hit(p.score, dict(p.payload or {}))
            for p in result.points
            if not (p.payload or {}).get("_cite_meta")
        ]


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


class DenseEmbedder:
    """A local embedding model (fastembed or sentence-transformers) that is never downloaded."""

    def __init__(self, spec: str) -> None:
        backend, _, name = spec.partition(":")
        if not name:
            raise CliError(f"--dense expects fastembed:MODEL or st:MODEL, got {spec!r}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.spec = spec
        try:
            if backend == "fastembed":
                fastembed = require("fastembed", "--dense fastembed:MODEL")
                self._model = fastembed.TextEmbedding(model_name=name, local_files_only=True)
                self._embed = lambda texts: [list(map(float, v)) for v in self._model.embed(list(texts))]
            elif backend in ("st", "sentence-transformers"):
                st = require("sentence_transformers", "--dense st:MODEL")
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
