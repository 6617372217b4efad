"""``cite ingest``: make the index equal to the files given, one atomic update per file.

1. Find the files; hash each one (SHA-256 of its bytes) and compare with the index's file records:
   unchanged files (same hash, same chunking settings) are skipped.
2. Read every new or changed file before the index is touched: a file that cannot be read is skipped
   and named (it keeps its previous version, if any; exit status 1), or with ``--strict`` stops the run.
3. Remove what is gone: files under a folder given that no longer exist there, files renamed (same
   content, old path missing on disk), and with ``--prune`` every file not under the paths given.
4. Write new versions in batches (small files share one batch): journal, chunks, then the file records
   (the commit), then the old chunks are deleted. An interruption leaves every file fully old or fully new.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cite_core import strip_controls

from ._check import missing_chunks
from ._documents import (
    Document,
    Unreadable,
    chunk_document,
    chunk_spans,
    find_files,
    open_regular,
    read_document,
)
from ._errors import CliError, os_reason, require, shown
from ._interrupt import is_interrupt
from ._store import FileRecord, Store
from ._updates import begin, commit, recover, remove, write_chunks

__all__ = ["BATCH", "EXIT_SKIPPED", "ingest"]

EXIT_SKIPPED = 1
"""``cite ingest`` indexed what it could read but skipped files it could not (named in its summary)."""

BATCH = 256
"""Chunks written per batch (one upsert); several small files share a batch."""
_NAMED = 10
"""Unreadable files named one by one in the summary; more are counted."""
_CACHE_BYTES = 64 * 1024 * 1024
"""Documents read in the checking pass are kept for writing up to this total, then read again."""


@dataclass
class _Update:
    path: Path
    new: FileRecord
    old: FileRecord | None
    doc: Document | None


def _say(line: str) -> None:
    print(strip_controls(line), file=sys.stderr)


def _sha256(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    try:
        with open_regular(path) as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
                size += len(block)
    except OSError as exc:
        raise Unreadable(path, os_reason(exc)) from exc
    return digest.hexdigest(), size


def _under(path: str, folders: list[Path]) -> bool:
    return any(Path(path).is_relative_to(folder) for folder in folders)


def _names(paths: list[str], limit: int = 3) -> str:
    named = ", ".join(shown(p) for p in paths[:limit])
    return named + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


class _Progress:
    """Bytes done of the bytes to index (rate and ETA from tqdm) and chunks written, with their rate."""

    def __init__(self, total: int, quiet: bool) -> None:
        tqdm = require("tqdm", "The progress bar").tqdm
        self.bar = tqdm(
            total=total,
            desc="ingest",
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            disable=quiet or None,
            file=sys.stderr,
            dynamic_ncols=True,
        )
        self.chunks = 0
        self.start = time.monotonic()

    def advance(self, nbytes: int, chunks: int, name: str) -> None:
        self.chunks += chunks
        rate = self.chunks / max(time.monotonic() - self.start, 1e-6)
        # a file name is untrusted text on a terminal (OSC 52 clipboard writes, OSC 0 titles): cleaned
        # whole, then cut, so the cut cannot leave half an escape sequence to the terminal
        name = strip_controls(shown(name))[:30]
        self.bar.set_postfix_str(f"{self.chunks:,} chunks, {rate:,.0f}/s, {name}", refresh=False)
        self.bar.update(nbytes)

    def close(self) -> None:
        self.bar.close()


def ingest(args: argparse.Namespace, open_store: Callable[..., Store], embedder: Any) -> int:
    """Run ``cite ingest``; returns the exit status."""
    if args.chunk_size < 100 or not 0 <= args.overlap < args.chunk_size:
        raise CliError("--chunk-size must be at least 100 and --overlap between 0 and the chunk size")
    found = find_files(args.paths)
    settings = (
        f"chunk-size={args.chunk_size} overlap={args.overlap} dense={embedder.spec if embedder else None}"
    )
    done: list[str] = []
    store = None
    try:
        store = open_store(create=True)
        store.ensure_collection(embedder.spec if embedder else None, embedder.size if embedder else None)
        recovered = recover(store)
        if recovered:
            kept = sum(1 for _, took in recovered if took)
            _say(
                f"cite: cleaned up an interrupted run: {kept} file(s) kept their new version, "
                f"{len(recovered) - kept} their previous one",
            )
        every = store.files()
        broken = {r.document_id for r in missing_chunks(store, every.values())}
        if found.folders or args.prune:
            records = every
        else:  # files given by name: their own records, all of them only to find a renamed file's old path
            records = {str(p): every[str(p)] for p in found.files if str(p) in every}
            if len(records) < len(found.files):
                records = every
        updates, unchanged, empty, unreadable = _plan(found.files, records, settings, broken, args.strict)
        if args.strict and found.unreadable:
            raise found.unreadable[0]
        unreadable = found.unreadable + unreadable
        repaired = [u.new.document_id for u in updates if u.new.document_id in broken]
        if repaired:
            lost = f"cite: the index had lost the chunks of {len(repaired)} file(s)"
            _say(f"{lost}, indexed again: {_names(repaired)}")
        wanted = {str(p) for p in found.files}
        unlisted = [u.path for u in found.unreadable]  # a folder that cannot be listed: its files are there
        new_hashes = {u.new.sha256 for u in updates if u.old is None}
        gone = [
            r
            for r in records.values()
            if r.document_id not in wanted
            and not _under(r.document_id, unlisted)
            and (
                args.prune
                or _under(r.document_id, found.folders)
                or (r.sha256 in new_hashes and not Path(r.document_id).exists())  # renamed
            )
        ]
        gone += [records[p] for p in empty if p in records]
        if gone:
            remove(store, gone)
        left = sorted(broken - set(repaired) - {r.document_id for r in gone})
        progress = _Progress(sum(u.new.bytes for u in updates), args.quiet)
        try:
            _write(store, updates, embedder, args, progress, done)
        finally:
            progress.close()
        hint = store.size_hint()
    except BaseException as exc:
        if not is_interrupt(exc):
            raise
        # Ctrl-C, or an error a library raised in its place (see _interrupt)
        _say(
            f"cite: interrupted: {len(done)} file(s) updated; every other file keeps its previous version "
            "(run the same command again to finish)",
        )
        return 130
    finally:
        if store is not None:
            store.close()
    chunks = sum(u.new.chunks for u in updates) + sum(records[p].chunks for p in unchanged)
    _say(
        f"indexed {len(updates) + len(unchanged)} file(s), {chunks} chunk(s) into {store.where} "
        f"(collection '{args.collection}'): {sum(u.old is None for u in updates)} new, "
        f"{sum(u.old is not None for u in updates)} changed, {len(unchanged)} unchanged, {len(gone)} removed",
    )
    if empty:
        _say(f"cite: not indexed, no text: {_names(empty)}")
    _skipped(unreadable, found.special, every)
    if found.ignored:
        kinds = sorted({p.suffix.lower() or "(none)" for p in found.ignored})
        _say(
            f"cite: skipped {len(found.ignored)} file(s) of other types ({', '.join(kinds)}): "
            "cite reads .txt, .md and .pdf",
        )
    if left:
        _say(
            f"cite: the index has lost the chunks of {len(left)} other file(s): {_names(left)} "
            "(run `cite ingest` on them, or `cite remove` them, to repair it)"
        )
    if hint:
        _say(hint)
    return EXIT_SKIPPED if unreadable else 0


def _skipped(unreadable: list[Unreadable], special: list[Path], indexed: dict[str, FileRecord]) -> None:
    """The summary's lines on the files that were not read: unreadable ones, then special ones."""
    if unreadable:
        kept = sum(1 for u in unreadable if str(u.path) in indexed)
        _say(
            f"cite: not indexed, cannot read {len(unreadable)} file(s): "
            + "; ".join(f"{shown(u.path)} ({u.why})" for u in unreadable[:_NAMED])
            + (f"; and {len(unreadable) - _NAMED} more" if len(unreadable) > _NAMED else "")
            + (f" ({kept} keep their previously indexed version)" if kept else "")
            + "; every other file was indexed (--strict stops instead)"
        )
    if special:
        _say(
            f"cite: skipped {len(special)} special file(s) (FIFOs, devices, sockets, broken links), "
            f"never read: {_names([str(p) for p in special], _NAMED)}"
        )


def _plan(
    files: list[Path], records: dict[str, FileRecord], settings: str, broken: set[str], strict: bool
) -> tuple[list[_Update], list[str], list[str], list[Unreadable]]:
    """New or changed files (read now, before the index is touched), unchanged ones, empty ones, and
    the ones that cannot be read (``strict``: the first of those stops the run).

    A file whose record has lost its chunks (``broken``) is indexed again even when unchanged."""
    updates: list[_Update] = []
    unchanged: list[str] = []
    empty: list[str] = []
    unreadable: list[Unreadable] = []
    cached = 0
    for path in files:
        try:
            sha, size = _sha256(path)
            old = records.get(str(path))
            if old is not None and old.sha256 == sha and old.settings == settings and str(path) not in broken:
                unchanged.append(str(path))
                continue
            doc = read_document(path)
        except Unreadable as exc:
            if strict:
                raise
            unreadable.append(exc)
            continue
        if not any(page.strip() for page in doc.pages):
            empty.append(str(path))
            continue
        keep = cached + size <= _CACHE_BYTES
        cached += size if keep else 0
        new = FileRecord(str(path), sha, size, 0, uuid.uuid4().hex, settings)
        updates.append(_Update(path, new, old, doc if keep else None))
    return updates, unchanged, empty, unreadable


def _write(
    store: Store,
    updates: list[_Update],
    embedder: Any,
    args: argparse.Namespace,
    progress: _Progress,
    done: list[str],
) -> None:
    group: list[tuple[_Update, list[Any]]] = []
    pending = 0

    def flush() -> None:
        nonlocal pending
        if not group:
            return
        journal = begin(store, [(u.new, u.old) for u, _ in group])
        write_chunks(store, [(u.new, 0, chunks, _embed(embedder, chunks)) for u, chunks in group])
        commit(store, [(u.new, u.old) for u, _ in group], journal)
        for u, chunks in group:
            done.append(u.new.document_id)
            progress.advance(u.new.bytes, len(chunks), u.path.name)
        group.clear()
        pending = 0

    for update in updates:
        doc = update.doc or read_document(update.path)
        update.doc = None
        spans = chunk_spans(doc, size=args.chunk_size, overlap=args.overlap)
        update.new.chunks = len(spans)
        if len(spans) <= BATCH:
            group.append((update, list(chunk_document(doc, spans=spans))))
            pending += len(spans)
            if pending >= BATCH:
                flush()
            continue
        flush()
        _write_large(store, update, doc, spans, embedder, progress)
        done.append(update.new.document_id)
    flush()


def _write_large(
    store: Store,
    update: _Update,
    doc: Document,
    spans: list[tuple[int, int, int]],
    embedder: Any,
    progress: _Progress,
) -> None:
    """A file of more than one batch: its chunks in batches, then its commit; progress within the file."""
    journal = begin(store, [(update.new, update.old)])
    sent = 0
    total = sum(len(p) for p in doc.pages) or 1
    for start in range(0, len(spans), BATCH):
        part = spans[start : start + BATCH]
        chunks = list(chunk_document(doc, spans=part))
        for offset, chunk in enumerate(chunks):
            chunk.index = start + offset
        write_chunks(store, [(update.new, start, chunks, _embed(embedder, chunks))])
        page, _, end = part[-1]
        reached = sum(len(p) for p in doc.pages[:page]) + end
        nbytes = update.new.bytes * reached // total - sent
        sent += nbytes
        progress.advance(nbytes, len(chunks), update.path.name)
    commit(store, [(update.new, update.old)], journal)
    progress.advance(update.new.bytes - sent, 0, update.path.name)


def _embed(embedder: Any, chunks: list[Any]) -> Any:
    return embedder.embed([c.text for c in chunks]) if embedder and chunks else None
