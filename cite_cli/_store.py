"""The Qdrant collections: chunks with sparse vectors, one record per file, a journal of changes in flight.

Collection ``NAME`` holds the chunks; ``NAME__files`` one record per file and a meta point (format, dense
model); ``NAME__journal`` the journals of changes in flight (usually none). Listing files never walks
the chunks, and finding interrupted changes walks only the journals. Three kinds of point (``kind``):

- ``chunk``: a piece of a file, with its sparse vector (and a dense one with ``--dense``) and the
  ``generation`` of the file version it belongs to. Its id is derived from (file, generation, index),
  so a file's chunks can be deleted by id, without a filter scan.
- ``file``: one per indexed file: its content hash, chunk count and current ``generation``. Writing this
  one point is the commit of a new version: a chunk is visible to search only when its generation is
  the one its file record names, so a reader sees every file either fully old or fully new.
- ``journal``: a file update in flight (the generation being written and the one it replaces), removed
  when the update is complete; ``recover()`` finishes or rolls back what an interrupted run left.

This module opens the store and reads and writes single points; ``_updates`` makes a file's change
atomic (journal, chunks, commit, recovery) and ``_search`` reads the visible chunks back.

Term ids are a stable hash of ``cite_core``'s lexical terms (words, CJK characters and bigrams), so the
index works offline, in any language, with no model.
"""

from __future__ import annotations

import hashlib
import re
import uuid
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._check import damaged, storage_error
from ._errors import CliError, require
from ._qdrant import fast_commits, quiet, reason

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_PATH",
    "DENSE",
    "LOCAL_LIMIT",
    "SPARSE",
    "FileRecord",
    "Hit",
    "Store",
    "chunk_id",
    "chunk_ids",
    "record_id",
]

DEFAULT_PATH = Path(".cite") / "qdrant"
DEFAULT_COLLECTION = "cite"
LOCAL_LIMIT = 20_000
"""Past this many points an embedded (on-disk) index gets slow: use a Qdrant server (``--qdrant-url``)."""
FORMAT = 4
SPARSE = "text"
DENSE = "dense"
_META_ID = str(uuid.UUID("00000000-0000-4000-8000-00000000c17e"))
_PAGE = 10_000


def _id(*parts: object) -> str:
    """``uuid5(NAMESPACE_URL, name)``, also for a name holding the escaped bytes of a file name that is
    not UTF-8 (``uuid5`` raises on them: an older version journalled such a name, then every later
    ingest crashed recovering it)."""
    name = "#".join(map(str, parts)).encode("utf-8", "surrogateescape")
    return str(uuid.UUID(bytes=hashlib.sha1(uuid.NAMESPACE_URL.bytes + name).digest()[:16], version=5))


def chunk_id(document_id: str, generation: str, index: int) -> str:
    """The point id of chunk ``index`` of one version of a file."""
    return _id(document_id, generation, index)


def chunk_ids(record: FileRecord) -> list[str]:
    """The point ids of every chunk of the file version ``record`` names."""
    return [chunk_id(record.document_id, record.generation, i) for i in range(record.chunks)]


def record_id(document_id: str) -> str:
    """The point id of a file's record."""
    return _id("file", document_id)


@dataclass
class Hit:
    """A retrieved chunk with its payload."""

    score: float
    payload: dict[str, Any]


@dataclass
class FileRecord:
    """What the index knows about one file (the payload of its ``file`` point)."""

    document_id: str
    sha256: str
    bytes: int
    chunks: int
    generation: str
    settings: str
    """Chunking settings and dense model the chunks were made with; a change re-indexes the file."""

    def payload(self) -> dict[str, Any]:
        return {"kind": "file", **self.__dict__}

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> FileRecord:
        return cls(**{k: payload[k] for k in cls.__dataclass_fields__})


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
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}", collection):
            raise CliError(
                "--collection must be 1 to 64 letters, digits, '_', '.' or '-' (not first), "
                f"got {collection!r}"
            )
        self.collection = collection
        self.records_collection = f"{collection}__files"
        self.journal_collection = f"{collection}__journal"
        self.url = url
        self.where = url or str(path or DEFAULT_PATH)
        if url:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the version check warns when the server is down
                    self.client = qdrant_client.QdrantClient(url=url, api_key=api_key, timeout=10)
                self.client.get_collections()
            except Exception as exc:
                raise CliError(f"cannot reach Qdrant at {url}: {reason(exc)}") from exc
        else:
            folder = Path(path or DEFAULT_PATH)
            if not create and not folder.exists():
                raise CliError(f"no index yet at {folder} (run `cite ingest PATH...` first)")
            try:
                folder.mkdir(parents=True, exist_ok=True)
                with quiet():
                    self.client = qdrant_client.QdrantClient(path=str(folder))
            except RuntimeError as exc:  # the folder is locked by another process
                raise CliError(f"cannot open the index at {folder}: {exc}") from exc
            except Exception as exc:  # read-only, full, or damaged (sqlite3, json, pickle errors)
                raise storage_error(self.where, collection, exc) from exc
        if not url:
            self._fast_commits()
        if not create and not self.client.collection_exists(collection):
            self.client.close()
            if not url and (Path(path or DEFAULT_PATH) / "collection" / collection).is_dir():
                raise damaged(self.where, collection, f"meta.json does not list collection '{collection}'")
            raise CliError(
                f"no index yet: collection '{collection}' not found at {self.where} "
                "(run `cite ingest PATH...` first)"
            )

    def close(self) -> None:
        self.client.close()

    def _collections(self) -> tuple[str, str, str]:
        """The chunks, file records and journal collections."""
        return (self.collection, self.records_collection, self.journal_collection)

    def _fast_commits(self) -> None:
        for name in self._collections():
            fast_commits(self.client, name)

    # -- collection ------------------------------------------------------------------------------

    def ensure_collection(self, dense_model: str | None, dense_size: int | None) -> None:
        """Create the collection, or check that it was built with the same dense model."""
        from qdrant_client import models

        if self.client.collection_exists(self.collection):
            meta = self.meta()
            self.check_format(meta)
            if meta.get("dense_model") != dense_model:
                raise CliError(
                    f"collection '{self.collection}' was built with dense model {meta.get('dense_model')!r}, "
                    f"not {dense_model!r}; use the same --dense option or another --collection"
                )
            return
        vectors = (
            {DENSE: models.VectorParams(size=dense_size, distance=models.Distance.COSINE)}
            if dense_model and dense_size
            else {}
        )
        self.client.create_collection(
            self.collection,
            vectors_config=vectors,
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        for name in (self.records_collection, self.journal_collection):
            if not self.client.collection_exists(name):
                self.client.create_collection(name, vectors_config={})
        if not self.url:
            self._fast_commits()
        else:  # payload indexes only exist on a server; the embedded mode never filters chunks by payload
            for field in ("document_id", "generation"):
                self.client.create_payload_index(self.collection, field, models.PayloadSchemaType.KEYWORD)
        meta = {"kind": "meta", "format": FORMAT, "dense_model": dense_model}
        self.upsert([models.PointStruct(id=_META_ID, vector={}, payload=meta)], records=True)

    def meta(self) -> dict[str, Any]:
        if not all(
            self.client.collection_exists(n) for n in (self.records_collection, self.journal_collection)
        ):
            return {}
        points = self.client.retrieve(self.records_collection, [_META_ID], with_payload=True)
        return dict(points[0].payload or {}) if points else {}

    def check_format(self, meta: dict[str, Any]) -> None:
        if not meta:  # every index since format 1 has a meta record: the records' storage lost it
            raise damaged(self.where, self.collection, "its file records are gone", server=bool(self.url))
        if meta.get("format") != FORMAT:
            raise CliError(
                f"collection '{self.collection}' at {self.where} was built by an older version of cite; "
                "delete it (or use another --collection) and ingest again"
            )

    def count(self) -> int:
        """Points in the collection (chunks and file records)."""
        return sum(int(self.client.count(name, exact=True).count) for name in self._collections())

    def size_hint(self) -> str | None:
        """One line advising a Qdrant server when an embedded index is past LOCAL_LIMIT points."""
        if self.url:
            return None
        points = self.count()
        if points <= LOCAL_LIMIT:
            return None
        return (
            f"hint: the embedded index holds {points:,} points; past {LOCAL_LIMIT:,} it gets slow: "
            "run a Qdrant server and use --qdrant-url URL (see docs/cli.md)"
        )

    # -- file records ----------------------------------------------------------------------------

    def scroll(self, collection: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(point id, payload)`` of every point of one of the three collections, a page at a time."""
        offset = None
        while True:
            points, offset = self.client.scroll(collection, limit=_PAGE, offset=offset, with_payload=True)
            for point in points:
                yield str(point.id), dict(point.payload or {})
            if offset is None:
                return

    def files(self) -> dict[str, FileRecord]:
        """Every indexed file by document id (its absolute path)."""
        records = (
            self._record(p) for _, p in self.scroll(self.records_collection) if p.get("kind") == "file"
        )
        return {r.document_id: r for r in records}

    def _record(self, payload: dict[str, Any]) -> FileRecord:
        try:
            return FileRecord.from_payload(payload)
        except (KeyError, TypeError) as exc:
            why = f"a file record lacks {exc}"
            raise damaged(self.where, self.collection, why, server=bool(self.url)) from exc

    def records(self, document_ids: Iterable[str]) -> dict[str, FileRecord]:
        """The file records of these documents (by id, no scan)."""
        ids = {record_id(d): d for d in dict.fromkeys(document_ids)}
        if not ids:
            return {}
        points = self.client.retrieve(self.records_collection, list(ids), with_payload=True)
        return {r.document_id: r for r in (self._record(p.payload) for p in points if p.payload)}

    # -- writing primitives (the updates module makes them atomic per file) --------------------------

    def _name(self, records: bool, journal: bool) -> str:
        return self.journal_collection if journal else self.records_collection if records else self.collection

    def upsert(self, points: list[Any], *, records: bool = False, journal: bool = False) -> None:
        """Write points to the chunks (default), the file records or the journal collection."""
        name = self._name(records, journal)
        with quiet():
            for i in range(0, len(points), 256):
                self.client.upsert(name, points[i : i + 256])

    def delete(self, ids: list[str], *, records: bool = False, journal: bool = False) -> None:
        """Delete points by id from the chunks (default), the file records or the journal collection."""
        name = self._name(records, journal)
        for i in range(0, len(ids), 1024):
            self.client.delete(name, ids[i : i + 1024])
