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

import errno
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._errors import CliError

if TYPE_CHECKING:
    from ._store import FileRecord, Store

__all__ = ["damaged", "missing_chunks", "require_whole", "storage_error"]

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


_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


def storage_error(where: str, collection: str, exc: BaseException) -> CliError:
    """What went wrong with the index's storage, and what to do: a full disk and a read-only index are
    named as such (the index is intact: deleting it would destroy a good index); only storage that
    cannot be read is called damaged."""
    detail = " ".join(str(exc).split()) or type(exc).__name__
    text = detail.lower()
    code = getattr(exc, "errno", None)
    keeps = "every file keeps its previous version or its new one"
    if code in _FULL or "full" in text or "no space" in text or "quota" in text:
        return CliError(
            f"cannot write the index at {where}: the disk is full; free some space and run the same "
            f"command again ({keeps})"
        )
    if code in _READ_ONLY or "readonly" in text or "read-only" in text or "permission denied" in text:
        return CliError(
            f"cannot write the index at {where}: it is read-only ({detail[:120]}); make it writable "
            f"(or use another --path) and run the same command again ({keeps})"
        )
    if isinstance(exc, OSError):
        return CliError(f"cannot use the index at {where}: {detail[:200]}")
    return damaged(where, collection, str(exc))


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
