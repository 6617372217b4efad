"""Numbering that stays stable across several retrievals: one run of an agent, one chat turn.

A ``CitationSession`` is shared by every retrieval of a run (tool calls, sub-queries). Each item it is
given becomes a source numbered after the ones it already holds, except that an item already seen
keeps its number, and a new chunk of a document already seen (same ``document_id``) joins that
document's source. ``session.parse(text)`` then parses the final answer against every source of the
run, so its references cover every call. Thread-safe: tools may run in parallel.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from ._args import check_flag, check_int, check_items
from ._exceptions import SourceError
from ._models import CitedAnswer, Source
from ._parser import CitationStream, parse_answer
from ._prompt import PromptStyle, format_sources
from ._sources import number_sources

__all__ = ["CitationSession"]


def _text_key(source: Source) -> str:
    return "text:" + hashlib.sha1(source.text.encode("utf-8", "surrogatepass")).hexdigest()


class CitationSession:
    """Sources numbered 1..N across several retrievals; a document keeps its number for the whole session."""

    def __init__(self, *, merge: bool = True) -> None:
        self.merge = check_flag(merge, "merge")
        """Whether a new chunk of a document already seen (same ``document_id``) joins its source."""
        self._lock = threading.Lock()
        self._items: list[Any] = []
        self._members: dict[int, list[int]] = {}  # number -> indices into self._items, in arrival order
        self._sources: dict[int, Source] = {}
        self._by_key: dict[str, int] = {}  # "doc:<id>" or "text:<sha1>" -> number
        self._seen_chunks: set[str] = set()  # text keys of every chunk added (repeats add nothing)

    def add(self, items: Iterable[Any]) -> list[Source]:
        """Number ``items`` (anything ``number_sources`` accepts) and return their sources, in the
        order of the items' first appearance, without repeats; each has its session-wide number."""
        items = check_items(items, "items", error=SourceError)
        singles = number_sources(items, merge=False)  # validates every item before anything changes
        with self._lock:
            touched: list[int] = []
            for item, single in zip(items, singles):
                number = self._place(item, single)
                if number not in touched:
                    touched.append(number)
            return [self._sources[n] for n in touched]

    def _place(self, item: Any, single: Source) -> int:
        chunk_key = _text_key(single)
        doc_key = f"doc:{single.document_id}" if self.merge and single.document_id is not None else None
        number = self._by_key.get(doc_key or chunk_key)
        if number is None:
            number = len(self._sources) + 1
            self._by_key[doc_key or chunk_key] = number
        if chunk_key in self._seen_chunks and number in self._sources:
            return number
        self._seen_chunks.add(chunk_key)
        members = self._members.setdefault(number, [])
        members.append(len(self._items))
        self._items.append(item)
        built = number_sources([self._items[i] for i in members], merge=self.merge)
        if len(built) != 1:  # chunks that cannot merge (e.g. mixed kinds): the newcomer gets its own number
            members.pop()
            number = len(self._sources) + 1
            self._by_key[chunk_key] = number
            self._members[number] = [len(self._items) - 1]
            built = [single]
        source = built[0].model_copy(update={"number": number})
        source._cache = {}
        self._sources[number] = source
        return number

    @property
    def sources(self) -> list[Source]:
        """Every source of the session, by number."""
        with self._lock:
            return [self._sources[n] for n in sorted(self._sources)]

    def items_for(self, number: int) -> list[Any]:
        """The original items (``Document``\\ s, nodes, dicts) that source ``number`` was built from."""
        check_int(number, "number")
        with self._lock:
            if number not in self._members:
                raise SourceError(f"the session has no source {number} (it holds 1..{len(self._sources)})")
            return [self._items[i] for i in self._members[number]]

    def format(self, sources: Sequence[Source], *, style: PromptStyle = "markers") -> str:
        """The given sources as the model sees them (for a tool's output), with their session numbers."""
        return format_sources(sources, style=style)

    def parse(self, text: str, **options: Any) -> CitedAnswer:
        """Parse a final answer against every source of the session (options as for ``parse_answer``)."""
        return parse_answer(text, self.sources, **options)

    def stream(self, **options: Any) -> CitationStream:
        """A ``CitationStream`` over every source of the session so far."""
        return CitationStream(self.sources, **options)

    def __len__(self) -> int:
        return len(self._sources)
