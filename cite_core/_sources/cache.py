"""Every cache the core keeps across queries, in one place, with one ``clear()``.

* ``CHUNKS``: the analysis of a chunk text (citable units, their term counts and lengths, their
  scoring index with its postings), shared read-only by every source whose chunk has that text.
* ``VECTORS``: embedding vectors of unit and claim texts, per embedding model (``QUALITY-EMBED``).
* the word table of ``_terms`` (each word's term), the terms of texts it analysed (``_analyze``) and the
  token counts of ``_tokens``.

Both bounded caches are least-recently-used, bounded by entry count and by a size (characters or
floats), thread-safe; a value is built outside the lock, so another thread may build the same value
at the same time (it is the same value).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, TypeVar

from .._schema.source import ChunkAnalysis
from . import terms as _terms
from . import tokens as _tokens
from .term_analyser import TERM_ANALYSER

__all__ = [
    "CHUNKS",
    "CHUNK_CACHE_CHARS",
    "CHUNK_CACHE_MAX_CHARS",
    "CHUNK_CACHE_SIZE",
    "VECTORS",
    "VECTOR_CACHE_FLOATS",
    "VECTOR_CACHE_SIZE",
    "LRUCache",
    "clear",
    "forget_chunks",
]

CHUNK_CACHE_SIZE = 1024
"""At most this many analysed chunk texts are kept across queries (the same chunks are retrieved
again and again), least recently used first out."""
CHUNK_CACHE_CHARS = 2_000_000
"""...and at most this many characters of them in all: their analyses take about 20 bytes per
character (sentence units, terms, counts, postings), so about 40 MB at most."""
CHUNK_CACHE_MAX_CHARS = 65536
"""Longer chunk texts are analysed every time rather than kept."""
VECTOR_CACHE_SIZE = 20_000
"""At most this many embedding vectors (unit and claim texts) are kept across queries..."""
VECTOR_CACHE_FLOATS = 8_000_000
"""...and at most this many numbers in all (about 64 MB as Python floats in tuples)."""


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRUCache(Generic[K, V]):
    """Least-recently-used values, bounded by count and by a total size; thread-safe."""

    def __init__(self, max_items: int, max_size: int, size: Callable[[K, V], int]) -> None:
        self.max_items, self.max_size = max_items, max_size
        self._size_of = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now most recently used), or None."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` (the value already kept wins); returns the value kept."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                return found
            self._entries[key] = value
            self._size += self._size_of(key, value)
            while len(self._entries) > self.max_items or self._size > self.max_size:
                old_key, old = self._entries.popitem(last=False)
                self._size -= self._size_of(old_key, old)
        return value

    def get_or_build(self, key: K, build: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``build()`` (outside the lock), kept."""
        found = self.get(key)
        return found if found is not None else self.put(key, build())

    def get_or_build_many(self, keys: Sequence[K], build: Callable[[list[K]], list[V]]) -> list[V]:
        """``get_or_build`` of each key in turn, the values missing built by one call of ``build`` (outside
        the lock) with their keys, each once; a key given again counts as a hit, as it would be then."""
        found: list[V | None] = []
        missing: dict[K, None] = {}
        with self._lock:
            entries = self._entries
            for key in keys:
                value = entries.get(key)
                if value is not None:
                    entries.move_to_end(key)
                    self.hits += 1
                elif key in missing:
                    self.hits += 1
                else:
                    self.misses += 1
                    missing[key] = None
                found.append(value)
        if not missing:
            return found  # type: ignore[return-value]  # every key was kept
        wanted = list(missing)
        built = {key: self.put(key, value) for key, value in zip(wanted, build(wanted))}
        return [built[key] if value is None else value for key, value in zip(keys, found)]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """The total size of the values kept (characters, floats: what ``size`` counts)."""
        return self._size


CHUNKS: LRUCache[tuple[str, bool], ChunkAnalysis] = LRUCache(
    CHUNK_CACHE_SIZE, CHUNK_CACHE_CHARS, lambda key, _: len(key[0])
)
"""Chunk analyses keyed by (chunk text, whether it is a block)."""
VECTORS: LRUCache[tuple[int, str], tuple[float, ...]] = LRUCache(
    VECTOR_CACHE_SIZE, VECTOR_CACHE_FLOATS, lambda _, vector: len(vector)
)
"""Unit-length embedding vectors keyed by (embedding model token, text)."""


def forget_chunks() -> None:
    """Forget analysed chunks and sentences, their vectors and their token counts, keeping the word table:
    what a long-running process meets when chunks it never saw, in words it has seen, are retrieved."""
    _tokens.clear_counts()
    CHUNKS.clear()
    VECTORS.clear()
    _terms._analyze.cache_clear()


def clear() -> None:
    """Forget every analysed chunk, sentence and word, every vector and every remembered token count
    (to measure first sight, or to give the memory back in a long-running process)."""
    forget_chunks()
    TERM_ANALYSER.clear()  # the word tables: Python's, and the extension's when it is in use
