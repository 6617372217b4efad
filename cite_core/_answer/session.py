"""One numbering for a whole conversation: every retrieval, tool call, turn and reload of it.

A ``CitationSession`` is shared by every retrieval of a conversation (tool calls, sub-queries, turns).
Each item it is given becomes a source numbered after the numbers it already gave, except that an item
already seen keeps its number, and a new chunk of a document already seen (same ``document_id``) joins
that document's source. The model sees these numbers in tool results and writes them; the reader sees
the same ones: ``session.parse(text)`` keeps them (it does not renumber 1..k), so a streamed answer,
the parsed answer and its references agree. Numbers that earlier answers gave sources whose text the
session does not hold (a chain's turns, a reloaded conversation) are kept with ``remember``; see
docs/concepts.md "Conversations". Thread-safe: tools may run in parallel.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._args import MAX_NUMBER, check_flag, check_int, check_items, check_iterable, check_text, shown
from .._exceptions import ArgumentError, SourceError
from .._schema.models import CitedAnswer, Source
from .._sources.numbering import number_sources
from .._sources.prompt import PromptStyle, format_sources
from .conversation import marker_numbers, read_source_blocks, renumber_markers
from .native import from_native
from .native_build import NATIVE_KEY
from .parser import CitationStream, parse_answer
from .structured import CitedStructure, cite_structured

__all__ = ["SOURCES_RECORD_KEY", "CitationSession", "source_key"]

SOURCES_RECORD_KEY = "citation_sources"
"""Where a tool result written by the project keeps its record (``CitationSession.record``): the key of
a message dict, of a LangChain tool message's artifact documents' metadata, and so on. A reload reads
sources only from tool results that carry it (or from tools named as the project's own)."""


def _text_key(source: Source) -> str:
    return "text:" + hashlib.sha1(source.text.strip().encode("utf-8", "surrogatepass")).hexdigest()


def _references(references: Any) -> list[tuple[int, str]]:
    """``{"number": n, "key": k}`` entries as ``(n, k)`` pairs; ``ArgumentError`` naming a wrong one."""
    pairs = []
    for i, ref in enumerate(check_iterable(references, "references", "{'number', 'key'} mappings")):
        number, key = (ref.get("number"), ref.get("key")) if isinstance(ref, Mapping) else (None, None)
        if not isinstance(key, str) or isinstance(number, bool) or not isinstance(number, int):
            raise ArgumentError(
                f"references[{i}] must be a mapping with an int number and a str key, got {shown(ref)}"
            )
        if not 1 <= number <= MAX_NUMBER:
            raise ArgumentError(f"references[{i}] has the number {shown(number)}, not one in 1..{MAX_NUMBER}")
        pairs.append((number, key))
    return pairs


def source_key(source: Source) -> str:
    """What makes two retrievals the same source in a conversation: its document (``document_id``) or,
    without one, its text; also its text when it was one of several sources of its document in the call
    that numbered it (``number_sources(merge=False)``, or chunks whose metadata disagreed): the document
    would name them all. Cited messages keep it with each reference, so a later turn or a reloaded
    conversation knows which source an earlier number meant."""
    if not isinstance(source, Source):
        raise ArgumentError(f"source_key expects a Source, got {type(source).__name__}")
    if source.document_id is None or source._by_text:
        return _text_key(source)
    return f"doc:{source.document_id}"


def _record_keys(record: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """A tool result's record as number -> key (entries that are not ``{"number": int, "key": str}``
    are left out)."""
    keys = {}
    for entry in record:
        if isinstance(entry, Mapping):
            number, key = entry.get("number"), entry.get("key")
            if isinstance(number, int) and not isinstance(number, bool) and isinstance(key, str):
                keys[number] = key
    return keys


def check_names(names: Iterable[str]) -> frozenset[str]:
    """``tool_names`` as a set (``ArgumentError`` for a str or anything not a list of str)."""
    return frozenset(check_items(names, "tool_names", str, "tool names (str)"))


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
        self._chunks: dict[int, set[str]] = {}  # number -> text keys of its chunks (repeats add nothing)
        self._chunk_numbers: dict[tuple[str | None, str], int] = {}  # (document, chunk text) -> its number

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
        # this chunk's own number first (it may have been kept apart from its document's source: other
        # metadata), else its document's, else a new one
        number = self._chunk_numbers.get((doc_key, chunk_key)) if doc_key is not None else None
        if number is None:
            number = self._by_key.get(doc_key or chunk_key)
        if number is None and doc_key is not None:
            number = self._by_key.get(chunk_key)  # the same text, restored without its document id
            if number is not None:
                self._by_key[doc_key] = number
        if number is None:
            number = self.next_number
            self._by_key[doc_key or chunk_key] = number
        if chunk_key in self._chunks.get(number, ()) and number in self._sources:
            return number  # this source holds this chunk already (a chunk of another source does not count)
        members = self._members.setdefault(number, [])
        members.append(len(self._items))
        self._items.append(item)
        built = number_sources([self._items[i] for i in members], merge=self.merge)
        if len(built) != 1:  # chunks that cannot merge (e.g. mixed kinds): the newcomer gets its own number
            members.pop()
            number = self.next_number
            self._by_key[chunk_key] = number
            self._members[number] = [len(self._items) - 1]
            built = [single]
        self._chunks.setdefault(number, set()).add(chunk_key)
        self._chunk_numbers.setdefault((doc_key, chunk_key), number)
        source = built[0].model_copy(update={"number": number})
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
                raise SourceError(
                    f"the session has no source {shown(number)} (it holds 1..{len(self._sources)})"
                )
            return [self._items[i] for i in self._members[number]]

    def format(self, sources: Sequence[Source], *, style: PromptStyle = "markers") -> str:
        """The given sources as the model sees them (for a tool's output), with their session numbers."""
        return format_sources(sources, style=style)

    def parse(self, text: str, **options: Any) -> CitedAnswer:
        """Parse a final answer against every source of the session (options as for ``parse_answer``).

        The answer keeps the session's numbers (the ones the model saw in tool results and wrote),
        so what a chat UI streamed from the model is what the parsed answer and its references show."""
        sources = self.sources
        return parse_answer(text, sources, display_numbers={s.number: s.number for s in sources}, **options)

    def cite_structured(self, obj: Any, **options: Any) -> CitedStructure:
        """A structured answer (a pydantic model, a dict or a list: an agent's ``structured_response``)
        cited against every source of the session, keeping its numbers as ``parse`` does (options as for
        ``cite_core.cite_structured``)."""
        sources = self.sources
        return cite_structured(obj, sources, display_numbers={s.number: s.number for s in sources}, **options)

    def from_native(self, response: Any, **options: Any) -> CitedAnswer:
        """A provider's own citations (``from_native``) in the session's numbering: its documents are
        matched to the session's sources (id, URL, title, quote) and keep their numbers; a document the
        session does not hold (a web result) is added at the number the answer shows, so a later
        ``[n]`` answer, or the next native one citing the same URL, uses that number again."""
        sources = self.sources
        with self._lock:
            first_new = self.next_number
        answer = from_native(
            response,
            sources,
            display_numbers={s.number: s.number for s in sources},
            first_new=first_new,
            **options,
        )
        with self._lock:
            for ref in answer.references:
                if NATIVE_KEY in ref.source.metadata and ref.number not in self._sources:
                    self._adopt(ref.source.model_copy(update={"number": ref.number}))
        return answer

    def _adopt(self, source: Source) -> None:
        """Hold a source made of what a provider said of a document, at its number (its text may be
        empty: a web page the provider did not quote, known by its URL)."""
        number = source.number
        key = f"url:{source.url}" if source.url else _text_key(source)
        self._by_key.setdefault(key, number)
        self._members[number] = [len(self._items)]
        self._items.append(source)
        self._sources[number] = source

    def stream(self, **options: Any) -> CitationStream:
        """A ``CitationStream`` over every source of the session so far (keeping its numbers)."""
        sources = self.sources
        return CitationStream(sources, display_numbers={s.number: s.number for s in sources}, **options)

    # -- conversations: numbers the reader saw, earlier answers, reloads --------------------------

    def key(self, source: Source) -> str:
        """What makes two retrievals the same source for this session: its document (``document_id``,
        when chunks merge) or its text."""
        return source_key(source) if self.merge else _text_key(source)

    @property
    def next_number(self) -> int:
        """The number the next new source gets: after every number the conversation gave."""
        return max([0, *self._by_key.values(), *self._sources]) + 1

    def remember(self, references: Iterable[Mapping[str, Any]]) -> None:
        """Keep the numbers an earlier answer gave its sources (``{"number": n, "key": ...}`` entries, as
        in a cited message's metadata), so a source seen again gets the same number. A key or number
        the session already gives another source is left as it is (the first meaning wins). An entry
        that is not such a mapping is an ``ArgumentError`` naming it."""
        entries = _references(references)
        with self._lock:
            taken = {*self._by_key.values(), *self._sources}
            for number, key in entries:
                if key not in self._by_key and number not in taken:
                    self._by_key[key] = number
                    taken.add(number)

    def display_numbers(self, sources: Sequence[Source]) -> dict[int, int]:
        """For one call whose sources are numbered 1..N (a chain's prompt): source number -> the number
        the conversation gave it before, for the sources it has seen (``parse_answer(display_numbers=)``,
        with ``first_new=session.next_number``)."""
        sources = check_items(sources, "sources", Source, "sources (Source objects)")
        with self._lock:
            found: dict[int, int] = {}
            for source in sources:
                number = self._by_key.get(self.key(source))
                if number is not None and number not in found.values():
                    found[source.number] = number
            return found

    def named_numbers(self, text: str) -> list[int]:
        """The numbers the markers of ``text`` (a user's follow-up: "What else does [2] say?") name, in
        order of first appearance, found as the parser finds them (not in code); a chat engine resolves
        them to the sources the reader saw under them."""
        return marker_numbers(text)

    def rewrite(self, text: str, references: Iterable[Mapping[str, Any]], sources: Sequence[Source]) -> str:
        """An earlier answer shown in this call's numbering: each marker ``[k]`` of ``text`` (whose
        sources ``references`` name, as in its message metadata) becomes the number of the same source
        among ``sources``, or is removed when that source is not among them or is unknown. The model
        then never reads ``[k]`` meaning one source above ``<source number="k">`` meaning another."""
        check_text(text, "text")
        sources = check_items(sources, "sources", Source, "sources (Source objects)")
        by_key = {self.key(s): s.number for s in reversed(sources)}
        numbers = {number: by_key[key] for number, key in _references(references) if key in by_key}
        return renumber_markers(text, numbers)

    def record(self, sources: Sequence[Source]) -> list[dict[str, Any]]:
        """What a tool result of the project keeps beside its text (at ``SOURCES_RECORD_KEY``): the
        number and key of each source it shows. A reload reads only tool results that carry one, and
        only the numbers it names, so text from another tool (a web page that writes ``<source
        number="2" title="...">``) never becomes a source."""
        return [{"number": s.number, "key": self.key(s)} for s in sources]

    def numbering(self) -> list[dict[str, Any]]:
        """Every number the conversation gave so far (its sources and the numbers it remembers), as
        ``{"number", "key"}`` entries in number order. A cited message carries it, so that any suffix of
        the history (a node that passes only the last messages) restores the whole numbering."""
        with self._lock:
            found = {n: self.key(s) for n, s in self._sources.items()}
            for key, number in self._by_key.items():
                found.setdefault(number, key)
            return [{"number": n, "key": found[n]} for n in sorted(found)]

    def restore(self, text: str, record: Iterable[Mapping[str, Any]] | None = None) -> list[Source]:
        """Add the sources of a tool result as the model saw them (``<source number="n" ...>`` blocks
        of ``format``), each at its number, so a reloaded conversation keeps them. ``record`` (the
        tool result's ``record``): only blocks whose number it names are read, under its key; None
        trusts every block (text the project wrote itself, e.g. from a tool you name). Blocks whose
        number the session already gives another source are skipped. Returns the sources restored."""
        check_text(text, "text")
        keys = None if record is None else _record_keys(record)
        pairs = [(n, item) for n, item in read_source_blocks(text) if keys is None or n in keys]
        return self.restore_items(pairs, keys)

    def restore_items(
        self, pairs: Iterable[tuple[int, Any]], keys: Mapping[int, str] | None = None
    ) -> list[Source]:
        """Add items (anything ``number_sources`` accepts) at the numbers the model saw them under,
        ``(number, item)`` pairs in any order (parallel tool calls finish in any order); ``keys``: the
        key each number had live (``record``), for chunks that merged by document. Returns the sources
        restored; a pair whose number means another source here, or whose source has another number,
        is skipped."""
        restored = []
        for number, item in pairs:
            single = number_sources([item], merge=False)[0]
            with self._lock:
                key = self.key(single)
                live = (keys or {}).get(number)
                known = self._by_key.get(key, self._by_key.get(live) if live else None)
                if known is None and number in {*self._by_key.values(), *self._sources}:
                    continue  # the number means another source here
                if known is not None and known != number:
                    continue  # the source has another number here
                self._by_key[key] = number
                if live:
                    self._by_key.setdefault(live, number)
                self._place(item, single)
                if self._sources[number] not in restored:
                    restored.append(self._sources[number])
        return restored

    @classmethod
    def from_messages(
        cls, messages: Iterable[Mapping[str, Any]], *, tool_names: Iterable[str] = (), **options: Any
    ) -> CitationSession:
        """A session rebuilt from a saved conversation of ``{"role", "content"}`` messages: tool results
        (role ``tool``) of the project give their ``<source>`` blocks back at their numbers, and
        messages with ``"references"`` or ``"numbering"`` (``{"number", "key"}`` entries) the numbers
        their answers showed. A tool result is the project's when it carries its record (at
        ``"citation_sources"``: ``session.record(sources)``) or its ``"name"`` is one of ``tool_names``;
        any other tool's text is never read as sources."""
        names = check_names(tool_names)
        session = cls(**options)
        for i, message in enumerate(check_iterable(messages, "messages", "message dicts")):
            if not isinstance(message, Mapping):
                raise ArgumentError(
                    f"messages[{i}] must be a message dict (role, content), got {shown(message)}"
                )
            content = message.get("content")
            if message.get("role") == "tool" and isinstance(content, str):
                record = message.get(SOURCES_RECORD_KEY)
                if isinstance(record, list):
                    session._check_numbers(content, _record_keys(record), message.get("name"))
                    session.restore(content, record)
                elif message.get("name") in names:
                    session._check_numbers(content, None, message.get("name"))
                    session.restore(content)
            for field in ("references", "numbering"):
                refs = message.get(field)
                if isinstance(refs, list):
                    session.remember(r for r in refs if isinstance(r, Mapping))
        return session

    def _check_numbers(self, text: str, keys: Mapping[int, str] | None, tool: Any) -> None:
        """Raise when a saved tool result shows a number that an earlier one gave another source: the
        conversation's tools numbered into different sessions (each from 1), and restoring would keep
        one meaning of the number and drop the other without a word."""
        for number, item in read_source_blocks(text):
            held = self._sources.get(number)
            if held is None or (keys is not None and number not in keys):
                continue
            key = keys[number] if keys is not None else self.key(number_sources([item], merge=False)[0])
            if key != self.key(held) and self._by_key.get(key) != number:
                raise ArgumentError(
                    f"the saved result of tool {shown(tool)} shows [{number}] for another source than an "
                    f"earlier tool result did: the conversation's tools numbered into different "
                    "CitationSessions, so its numbers have two meanings; give every cited tool one session"
                )

    def __len__(self) -> int:
        return len(self._sources)
