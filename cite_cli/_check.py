"""The index checks itself: file records against the chunks stored for them, and damaged storage.

A crash, a full disk or a bad copy can leave the embedded index with its file records but without
(some of) their chunks: ``cite list`` would still list every file while ``cite ask`` finds nothing and
``cite ingest`` skips every file as unchanged. So every command that opens the index compares the
records with the chunks: ``ingest`` re-indexes the files whose chunks are missing (the repair), ``ask``
and ``list`` stop with a ``cite: error:`` that says what to run. Storage that cannot be read at all
(a truncated or overwritten SQLite file, a damaged ``meta.json``, a missing meta record) is reported the
same way, never as a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._errors import CliError

if TYPE_CHECKING:
    from ._store import FileRecord, Store

__all__ = ["damaged", "missing_chunks", "require_whole"]

_BATCH = 1024


def damaged(where: str, collection: str, why: str, *, server: bool = False) -> CliError:
    """The error for storage that cannot be read: what is wrong and what to run."""
    fix = (
        f"delete collection '{collection}' on the server (or use another --collection) and run "
        "`cite ingest PATH...` again"
        if server
        else f"delete the folder {where} (or use another --path) and run `cite ingest PATH...` again"
    )
    return CliError(f"the index at {where} is damaged ({why}); {fix}")


def missing_chunks(store: Store, records: Iterable[FileRecord]) -> list[FileRecord]:
    """The records whose chunks are not all stored (the files a truncated storage file lost).

    A whole index has exactly the chunks its records name once no change is in flight, so one count
    answers the common case; the chunks are looked up by id only when the count disagrees."""
    from ._store import chunk_ids

    records = list(records)
    expected = sum(r.chunks for r in records)
    pending = store.client.count(store.journal_collection, exact=True).count
    if not pending and store.client.count(store.collection, exact=True).count == expected:
        return []
    broken = []
    for record in records:
        ids = chunk_ids(record)
        for i in range(0, len(ids), _BATCH):
            batch = ids[i : i + _BATCH]
            found = store.client.retrieve(store.collection, batch, with_payload=False, with_vectors=False)
            if len(found) < len(batch):
                broken.append(record)
                break
    return broken


def require_whole(store: Store, records: Iterable[FileRecord]) -> None:
    """Stop with what to run when some records have lost their chunks (``ask`` and ``list``)."""
    records = list(records)
    broken = missing_chunks(store, records)
    if not broken:
        return
    names = [r.document_id for r in broken]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    raise CliError(
        f"the index at {store.where} has lost the chunks of {len(broken)} of {len(records)} file(s) "
        f"({shown}); run `cite ingest PATH...` on them again to repair it"
    )
