"""Qdrant helpers for the CLI's store: sparse vectors of cite_core's terms, quiet warnings, fast commits."""

from __future__ import annotations

import contextlib
import hashlib
import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

from cite_core import analyze

__all__ = ["fast_commits", "quiet", "reason", "sparse_vector", "term_id"]

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


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Hide qdrant-client's local-mode size warning (the CLI prints its own hint, see LOCAL_LIMIT)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Local mode is not recommended")
        yield


def fast_commits(client: Any, collection: str) -> None:
    """Embedded mode commits each point in its own SQLite transaction with a full fsync (about 1 ms).

    Write-ahead logging with ``synchronous=NORMAL`` keeps each commit atomic and durable when the process
    is killed (only an OS crash may lose the last commits, never half of one), at a small share of the
    cost. This reaches into qdrant-client's local storage; if its layout changes, nothing is done.
    """
    local = getattr(client, "_client", None)
    for name, store in (getattr(local, "collections", None) or {}).items():
        connection = getattr(getattr(store, "storage", None), "storage", None)
        if name == collection and connection is not None and hasattr(connection, "execute"):
            with contextlib.suppress(Exception):
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")


def reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
