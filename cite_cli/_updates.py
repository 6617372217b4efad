"""Atomic per-file updates of the store: journal, chunks, commit (the file record), recovery.

A change is journalled first (``begin``), the new version's chunks are written under a fresh generation
(``write_chunks``, invisible to search), then writing the file records makes them the visible version
(``commit``), and the old chunks and the journal are deleted. ``recover`` finishes or rolls back what an
interrupted run left, so every file is seen either fully old or fully new (see ``_store`` for the layout).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from ._qdrant import sparse_vector
from ._store import DENSE, SPARSE, FileRecord, Store, chunk_id, chunk_ids, record_id

__all__ = ["begin", "commit", "recover", "remove", "write_chunks"]


def begin(store: Store, updates: Sequence[tuple[FileRecord | None, FileRecord | None]]) -> str:
    """Journal these file changes (``(new, old)``, ``new`` None for a removal); returns the journal id."""
    from qdrant_client import models

    journal = str(uuid.uuid4())
    entries = [
        {"new": new.payload() if new else None, "old": old.payload() if old else None} for new, old in updates
    ]
    point = models.PointStruct(id=journal, vector={}, payload={"kind": "journal", "entries": entries})
    store.upsert([point], journal=True)
    return journal


def write_chunks(store: Store, items: Sequence[tuple[FileRecord, int, Sequence[Any], Any]]) -> None:
    """Store chunks of new file versions, ``(record, first index, chunks, dense vectors or None)`` each.

    They stay invisible to search until ``commit`` writes their file records."""
    from qdrant_client import models

    points = []
    for new, start, chunks, dense in items:
        for offset, chunk in enumerate(chunks):
            indices, values = sparse_vector(chunk.text)
            vector: dict[str, Any] = {SPARSE: models.SparseVector(indices=indices, values=values)}
            if dense is not None:
                vector[DENSE] = list(dense[offset])
            payload = {
                "kind": "chunk",
                "text": chunk.text,
                "document_id": new.document_id,
                "path": chunk.path,
                "title": chunk.title,
                "start_index": chunk.start,
                "page": chunk.page,
                "chunk": start + offset,
                "generation": new.generation,
            }
            point_id = chunk_id(new.document_id, new.generation, start + offset)
            points.append(models.PointStruct(id=point_id, vector=vector, payload=payload))
    if points:
        store.upsert(points)


def commit(store: Store, updates: Sequence[tuple[FileRecord, FileRecord | None]], journal: str) -> None:
    """Make these new versions the visible ones, then drop the old chunks and the journal."""
    from qdrant_client import models

    store.upsert(
        [
            models.PointStruct(id=record_id(new.document_id), vector={}, payload=new.payload())
            for new, _ in updates
        ],
        records=True,
    )
    store.delete([i for _, old in updates if old for i in chunk_ids(old)])
    store.delete([journal], journal=True)


def remove(store: Store, records: Sequence[FileRecord]) -> None:
    """Take files out of the index: the record first (they vanish from search), then the chunks."""
    journal = begin(store, [(None, r) for r in records])
    store.delete([record_id(r.document_id) for r in records], records=True)
    store.delete([i for r in records for i in chunk_ids(r)])
    store.delete([journal], journal=True)


def recover(store: Store) -> list[tuple[str, bool]]:
    """Finish or roll back interrupted changes: ``(document id, the change took effect)`` for each."""
    done = []
    for journal_id, journal in list(store.scroll(store.journal_collection)):
        for entry in journal["entries"]:
            done.append(_recover(store, entry))
        store.delete([journal_id], journal=True)
    return done


def _recover(store: Store, entry: dict[str, Any]) -> tuple[str, bool]:
    new = FileRecord.from_payload(entry["new"]) if entry.get("new") else None
    old = FileRecord.from_payload(entry["old"]) if entry.get("old") else None
    document_id = (new or old).document_id  # type: ignore[union-attr]
    current = store.records([document_id]).get(document_id)
    if new is None:  # a removal is always finished
        if current is not None and old is not None and current.generation == old.generation:
            store.delete([record_id(document_id)], records=True)
            current = None
        took, stale = True, [old] if old else []
    else:
        took = current is not None and current.generation == new.generation
        stale = [old] if took and old else [new] if not took else []
    for record in stale:
        if current is None or record.generation != current.generation:
            store.delete(chunk_ids(record))
    return document_id, took
