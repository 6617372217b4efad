"""The Qdrant collections: chunks with sparse vectors, one record per file, and atomic per-file updates.

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

Term ids are a stable hash of ``cite_core``'s lexical terms (words, CJK characters and bigrams), so the
index works offline, in any language, with no model.
"""

from __future__ import annotations

import re
import uuid
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import CliError, require
from ._qdrant import fast_commits, quiet, reason, sparse_vector

__all__ = ["DEFAULT_COLLECTION", "DEFAULT_PATH", "LOCAL_LIMIT", "FileRecord", "Hit", "Store", "sparse_vector"]

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
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "#".join(map(str, parts))))


def chunk_id(document_id: str, generation: str, index: int) -> str:
    """The point id of chunk ``index`` of one version of a file."""
    return _id(document_id, generation, index)


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
            except (OSError, ValueError) as exc:
                raise CliError(f"cannot open the index at {folder}: {reason(exc)}") from exc
        if not url:
            fast_commits(self.client, collection)
            fast_commits(self.client, self.records_collection)
            fast_commits(self.client, self.journal_collection)
        if not create and not self.client.collection_exists(collection):
            self.client.close()
            raise CliError(
                f"no index yet: collection '{collection}' not found at {self.where} "
                "(run `cite ingest PATH...` first)"
            )

    def close(self) -> None:
        self.client.close()

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
            fast_commits(self.client, self.collection)
            fast_commits(self.client, self.records_collection)
            fast_commits(self.client, self.journal_collection)
        else:  # payload indexes only exist on a server; the embedded mode never filters chunks by payload
            for field in ("document_id", "generation"):
                self.client.create_payload_index(self.collection, field, models.PayloadSchemaType.KEYWORD)
        meta = {"kind": "meta", "format": FORMAT, "dense_model": dense_model}
        self._upsert([models.PointStruct(id=_META_ID, vector={}, payload=meta)], records=True)

    def meta(self) -> dict[str, Any]:
        if not all(
            self.client.collection_exists(n) for n in (self.records_collection, self.journal_collection)
        ):
            return {}
        points = self.client.retrieve(self.records_collection, [_META_ID], with_payload=True)
        return dict(points[0].payload or {}) if points else {}

    def check_format(self, meta: dict[str, Any]) -> None:
        if meta.get("format") != FORMAT:
            raise CliError(
                f"collection '{self.collection}' at {self.where} was built by an older version of cite; "
                "delete it (or use another --collection) and ingest again"
            )

    def count(self) -> int:
        """Points in the collection (chunks and file records)."""
        return sum(
            int(self.client.count(name, exact=True).count)
            for name in (self.collection, self.records_collection, self.journal_collection)
        )

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

    def _scroll(self, collection: str) -> Iterator[tuple[str, dict[str, Any]]]:
        offset = None
        while True:
            points, offset = self.client.scroll(collection, limit=_PAGE, offset=offset, with_payload=True)
            for point in points:
                yield str(point.id), dict(point.payload or {})
            if offset is None:
                return

    def files(self) -> dict[str, FileRecord]:
        """Every indexed file by document id (its absolute path)."""
        return {
            p["document_id"]: FileRecord.from_payload(p)
            for _, p in self._scroll(self.records_collection)
            if p.get("kind") == "file"
        }

    def records(self, document_ids: Iterable[str]) -> dict[str, FileRecord]:
        """The file records of these documents (by id, no scan)."""
        ids = {_id("file", d): d for d in dict.fromkeys(document_ids)}
        if not ids:
            return {}
        points = self.client.retrieve(self.records_collection, list(ids), with_payload=True)
        return {p.payload["document_id"]: FileRecord.from_payload(p.payload) for p in points if p.payload}

    # -- writing ---------------------------------------------------------------------------------

    def _name(self, records: bool, journal: bool) -> str:
        return self.journal_collection if journal else self.records_collection if records else self.collection

    def _upsert(self, points: list[Any], *, records: bool = False, journal: bool = False) -> None:
        name = self._name(records, journal)
        with quiet():
            for i in range(0, len(points), 256):
                self.client.upsert(name, points[i : i + 256])

    def _delete(self, ids: list[str], *, records: bool = False, journal: bool = False) -> None:
        name = self._name(records, journal)
        for i in range(0, len(ids), 1024):
            self.client.delete(name, ids[i : i + 1024])

    def begin(self, updates: Sequence[tuple[FileRecord | None, FileRecord | None]]) -> str:
        """Journal these file changes (``(new, old)``, ``new`` None for a removal); returns the journal id."""
        from qdrant_client import models

        journal = str(uuid.uuid4())
        entries = [
            {"new": new.payload() if new else None, "old": old.payload() if old else None}
            for new, old in updates
        ]
        point = models.PointStruct(id=journal, vector={}, payload={"kind": "journal", "entries": entries})
        self._upsert([point], journal=True)
        return journal

    def write_chunks(self, items: Sequence[tuple[FileRecord, int, Sequence[Any], Any]]) -> None:
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
            self._upsert(points)

    def commit(self, updates: Sequence[tuple[FileRecord, FileRecord | None]], journal: str) -> None:
        """Make these new versions the visible ones, then drop the old chunks and the journal."""
        from qdrant_client import models

        self._upsert(
            [
                models.PointStruct(id=_id("file", new.document_id), vector={}, payload=new.payload())
                for new, _ in updates
            ],
            records=True,
        )
        self._delete([i for _, old in updates if old for i in _chunk_ids(old)])
        self._delete([journal], journal=True)

    def remove(self, records: Sequence[FileRecord]) -> None:
        """Take files out of the index: the record first (they vanish from search), then the chunks."""
        journal = self.begin([(None, r) for r in records])
        self._delete([_id("file", r.document_id) for r in records], records=True)
        self._delete([i for r in records for i in _chunk_ids(r)])
        self._delete([journal], journal=True)

    def recover(self) -> list[tuple[str, bool]]:
        """Finish or roll back interrupted changes: ``(document id, the change took effect)`` for each."""
        done = []
        for journal_id, journal in list(self._scroll(self.journal_collection)):
            for entry in journal["entries"]:
                done.append(self._recover(entry))
            self._delete([journal_id], journal=True)
        return done

    def _recover(self, entry: dict[str, Any]) -> tuple[str, bool]:
        new = FileRecord.from_payload(entry["new"]) if entry.get("new") else None
        old = FileRecord.from_payload(entry["old"]) if entry.get("old") else None
        document_id = (new or old).document_id  # type: ignore[union-attr]
        current = self.records([document_id]).get(document_id)
        if new is None:  # a removal is always finished
            if current is not None and old is not None and current.generation == old.generation:
                self._delete([_id("file", document_id)], records=True)
                current = None
            took, stale = True, [old] if old else []
        else:
            took = current is not None and current.generation == new.generation
            stale = [old] if took and old else [new] if not took else []
        for record in stale:
            if current is None or record.generation != current.generation:
                self._delete(_chunk_ids(record))
        return document_id, took

    # -- reading ---------------------------------------------------------------------------------

    def visible_chunks(self, document_id: str) -> list[dict[str, Any]]:
        """The chunks of a file that search can return (those of the version its record names)."""
        record = self.records([document_id]).get(document_id)
        if record is None:
            return []
        points = self.client.retrieve(self.collection, _chunk_ids(record), with_payload=True)
        return sorted((dict(p.payload or {}) for p in points), key=lambda p: p["chunk"])

    def search(self, question: str, *, limit: int, dense: Sequence[float] | None = None) -> list[Hit]:
        """The best ``limit`` visible chunks for the question."""
        from qdrant_client import models

        indices, values = sparse_vector(question, query=True)
        if dense is None and not indices:
            return []
        stale: list[Any] = []
        for _ in range(8):  # each round excludes the versions found stale (updates in flight)
            flt = models.Filter(must_not=stale) if stale else None
            points = self._query(models, indices, values, dense, limit, flt)
            records = self.records((p.payload or {}).get("document_id", "") for p in points)
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
        self, models: Any, indices: list[int], values: list[float], dense: Any, limit: int, flt: Any
    ) -> list[Any]:
        sparse = models.SparseVector(indices=indices, values=values)
        if dense is None:
            result = self.client.query_points(
                self.collection, query=sparse, using=SPARSE, limit=limit, with_payload=True, query_filter=flt
            )
        else:
            prefetch = [models.Prefetch(query=list(dense), using=DENSE, limit=limit * 3, filter=flt)]
            if indices:
                prefetch.append(models.Prefetch(query=sparse, using=SPARSE, limit=limit * 3, filter=flt))
            result = self.client.query_points(
                self.collection,
                prefetch=prefetch,
                query=models.FusionQuery(fusion=models.Fusion.RRF),
                limit=limit,
                with_payload=True,
            )
        return list(result.points)


def _chunk_ids(record: FileRecord) -> list[str]:
    return [chunk_id(record.document_id, record.generation, i) for i in range(record.chunks)]
