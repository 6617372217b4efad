"""Reading the store back: the best visible chunks for a question (sparse, or hybrid with ``--dense``).

Only chunks of the version a file record names are visible; a chunk of a version being written or
replaced (an update in flight, see ``_updates``) is excluded and the query is asked again without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._qdrant import sparse_vector
from ._store import DENSE, SPARSE, Hit, Store, chunk_ids

__all__ = ["search", "visible_chunks"]

_ROUNDS = 8
"""Queries asked at most, each excluding the stale versions the previous one found."""


def visible_chunks(store: Store, document_id: str) -> list[dict[str, Any]]:
    """The chunks of a file that search can return (those of the version its record names)."""
    record = store.records([document_id]).get(document_id)
    if record is None:
        return []
    points = store.client.retrieve(store.collection, chunk_ids(record), with_payload=True)
    return sorted((dict(p.payload or {}) for p in points), key=lambda p: p["chunk"])


def search(store: Store, question: str, *, limit: int, dense: Sequence[float] | None = None) -> list[Hit]:
    """The best ``limit`` visible chunks for the question."""
    from qdrant_client import models

    indices, values = sparse_vector(question, query=True)
    if dense is None and not indices:
        return []
    stale: list[Any] = []
    hits: list[Hit] = []
    for _ in range(_ROUNDS):
        flt = models.Filter(must_not=stale) if stale else None
        points = _query(store, models, indices, values, dense, limit, flt)
        records = store.records((p.payload or {}).get("document_id", "") for p in points)
        hits, found = [], False
        for p in points:
            payload = dict(p.payload or {})
            record = records.get(payload.get("document_id", ""))
            if record is not None and record.generation == payload.get("generation"):
                hits.append(Hit(p.score, payload))
                continue
            found = True
            stale.append(
                models.Filter(
                    must=[
                        models.FieldCondition(
                            key="document_id", match=models.MatchValue(value=payload.get("document_id"))
                        ),
                        models.FieldCondition(
                            key="generation", match=models.MatchValue(value=payload.get("generation"))
                        ),
                    ]
                )
            )
        if not found or len(points) < limit:
            return hits
    return hits


def _query(
    store: Store, models: Any, indices: list[int], values: list[float], dense: Any, limit: int, flt: Any
) -> list[Any]:
    sparse = models.SparseVector(indices=indices, values=values)
    if dense is None:
        result = store.client.query_points(
            store.collection, query=sparse, using=SPARSE, limit=limit, with_payload=True, query_filter=flt
        )
    else:
        prefetch = [models.Prefetch(query=list(dense), using=DENSE, limit=limit * 3, filter=flt)]
        if indices:
            prefetch.append(models.Prefetch(query=sparse, using=SPARSE, limit=limit * 3, filter=flt))
        result = store.client.query_points(
            store.collection,
            prefetch=prefetch,
            query=models.FusionQuery(fusion=models.Fusion.RRF),
            limit=limit,
            with_payload=True,
        )
    return list(result.points)
