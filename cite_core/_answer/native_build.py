"""A provider's citations, read into one neutral shape, made into a ``CitedAnswer``.

Every provider reader (``native_formats``) gives a ``NativeAnswer``: the answer text, the documents the
provider names (id, title, URL, the text it shows of them) and the citations (a code-point span of the
text and the documents it cites). ``build_native`` then does what is the same for all of them:

- each document becomes a numbered source: with the user's ``sources``, the one of the same id, else
  URL, else title, else the one whose text holds what the provider quotes; the quote is located in
  that source's text (exactly, else by the locator, as for a ``[n]`` answer), so ``cited_text`` and its
  offsets are the source's own. A document that matches none, or every document when no sources were
  given, becomes a source of what the provider said of it (title, URL, its quote as text), marked
  ``metadata["native_citation"]["quote_verified"] = False``: the reader is told the quote is unverified;
- the text is cut at each citation's end: the claim of a citation is its span, less what an earlier
  claim already holds (overlapping spans cite one after the other, never twice), and its display
  markers follow it, before its trailing whitespace, as for Claude's citations;
- references are numbered by first appearance; a citation naming no document (``[]`` in
  ``invalid_markers``), a document named by nothing the reader can show (no id, title, URL or quote),
  or one that the user's sources do not hold when only its id is known, goes to ``invalid_markers``,
  never linked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from .._locate.localize import Corpus
from .._locate.scoring import ClaimTerms, support
from .._schema.citations import DisplayNumbers, build_answer, citation_for_span, display_number
from .._schema.models import Citation, CitedAnswer, MarkerGroup, Segment, Source, TextBlock
from .._sources.analysis import source_terms
from .._sources.terms import analyze

__all__ = [
    "NATIVE_KEY",
    "NO_DOCUMENT",
    "NativeAnswer",
    "NativeCite",
    "NativeDoc",
    "build_native",
    "holds",
    "match_source",
    "unverified_source",
]

NO_DOCUMENT = "[]"
"""How ``invalid_markers`` lists a citation that names no document (an empty ``groundingChunkIndices``,
a Cohere citation without sources)."""

NATIVE_KEY = "native_citation"
"""The metadata key of a source made from what a provider said of a document (not the user's source)."""


@dataclass
class NativeDoc:
    """A document as a provider names it."""

    key: str | None = None
    """The provider's id of it (a file id, a document id, a reference id)."""
    title: str | None = None
    url: str | None = None
    quote: str | None = None
    """What the provider shows of the document (a snippet, a retrieved chunk, the document's text)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    position: int | None = None
    """The 0-based position of the document among those sent, when the provider names it so (Claude's
    ``document_index``): the given source at that position."""


@dataclass
class NativeCite:
    """A citation: ``text[start:end]`` (code points) is supported by the documents ``docs`` names."""

    start: int
    end: int
    docs: list[int]
    """Indices into ``NativeAnswer.docs``, or None for one that names no document (reported invalid)."""
    labels: list[str] = field(default_factory=list)
    """How each of ``docs`` was named, for ``invalid_markers`` (``[8]``, ``[ref 3]``)."""
    quote: str | None = None
    """What this citation quotes of its documents, when the provider says (else their ``quote``)."""
    at: tuple[int, int] | None = None
    """Where ``quote`` is in the source's text, when the provider says: used when the source holds it
    there (a quote found twice in a source is the one at ``at``, not the first)."""


@dataclass
class NativeAnswer:
    """A provider's response read: its text, documents, citations, and what could not be used."""

    provider: str
    text: str
    docs: list[NativeDoc] = field(default_factory=list)
    cites: list[NativeCite] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    """Citations that name nothing or whose span is not in the text, as ``[n]`` labels."""


def _norm(value: str | None) -> str:
    return " ".join(value.split()).casefold() if value else ""


def _url(value: str | None) -> str:
    return value.strip().rstrip("/").casefold() if value else ""


def holds(source: Source, quote: str) -> bool:
    """Whether ``source``'s text holds ``quote`` (each of its passages, whitespace aside)."""
    text = _norm(source.text)
    return all(_norm(part) in text for part in quote.split("\n\n") if part.strip())


def match_source(doc: NativeDoc, sources: Sequence[Source]) -> Source | None:
    """The source ``doc`` is: the one at its position (unless it does not hold the quote and another
    does: the position was of another list, a stale index), else of the same id, else URL, else
    title, else the one holding its quote."""
    if doc.position is not None:
        at = sources[doc.position] if 0 <= doc.position < len(sources) else None
        if at is None or not (doc.quote or "").strip() or holds(at, doc.quote or ""):
            return at
        return next((s for s in sources if holds(s, doc.quote or "")), at)
    quote = (doc.quote or "").strip()
    tests = []
    if doc.key:
        ids = ("id", "file_id")  # a metadata id may be an int (Mistral's reference ids)
        tests.append(lambda s: doc.key in (s.document_id, *(str(s.metadata.get(k)) for k in ids)))
    if doc.url:
        tests.append(lambda s: bool(s.url) and _url(s.url) == _url(doc.url))
    if doc.title:
        tests.append(lambda s: bool(s.title) and _norm(s.title) == _norm(doc.title))
    for test in tests:
        found = [s for s in sources if test(s)]
        if found:  # several of one title: the one holding the quote
            return next((s for s in found if quote and quote in s.text), found[0])
    if quote:
        return next((s for s in sources if quote in s.text), None)
    return None


def unverified_source(number: int, doc: NativeDoc, provider: str) -> Source:
    """A source of what a provider said of a document: its quote as text, marked unverified."""
    text = doc.quote or ""
    return Source(
        number=number,
        text=text,
        segments=(Segment(text=text, start=0),),
        title=doc.title,
        url=doc.url,
        document_id=doc.key,
        metadata={**doc.metadata, NATIVE_KEY: {"provider": provider, "quote_verified": False}},
    )


def _find(text: str, quote: str | None, at: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text``: at ``at`` when it is there, else its first occurrence."""
    if at is not None and quote and text[at[0] : at[1]].strip() == quote.strip():
        return at
    for needle in dict.fromkeys((quote or "", (quote or "").strip())):
        found = text.find(needle) if needle else -1
        if found >= 0:
            return found, found + len(needle)
    return None


class _Builder:
    def __init__(
        self,
        native: NativeAnswer,
        given: Sequence[Source] | None,
        threshold: float,
        display_numbers: Mapping[int, int] | None,
        first_new: int | None,
    ) -> None:
        self.native = native
        self.given = list(given or [])
        self.threshold = threshold
        self.numbers = DisplayNumbers(display_numbers, first_new)
        self.invalid = list(native.invalid)
        self.made: dict[tuple[Any, ...], Source] = {}
        self.resolved = [self._resolve(doc) for doc in native.docs]
        everything = [*self.given, *self.made.values()]
        self.by_number = {s.number: s for s in everything}
        self.corpus = Corpus(everything)

    def _resolve(self, doc: NativeDoc) -> Source | None:
        if doc.position is None and not (doc.key or doc.title or doc.url or doc.quote):
            return None  # it names nothing: no source to link, reported in invalid_markers
        if given := self.given:
            found = match_source(doc, given)
            if found is not None:
                return found
            if doc.position is not None or not (doc.title or doc.url or doc.quote):
                return None  # a position or an id no source has: a source that does not exist
        key = (doc.key, doc.title, doc.url, doc.quote)
        made = self.made.get(key)
        if made is None:
            number = max([0, *(s.number for s in self.given), *(s.number for s in self.made.values())]) + 1
            made = self.made[key] = unverified_source(number, doc, self.native.provider)
        return made

    def citation(
        self, source: Source, claim: str, quote: str | None, at: tuple[int, int] | None = None
    ) -> Citation:
        verified = NATIVE_KEY not in source.metadata
        span = _find(source.text, quote, at)
        if span is None and verified:  # no quote, or not in the source: located as for a [n] marker
            number = display_number(self.numbers, source.number)
            return self.corpus.cite(source, claim, reference=number)
        start, end = span if span is not None else (0, len(source.text))
        cited = source.text[start:end]
        score = support(ClaimTerms.from_text(claim, self.corpus.stats), analyze(cited), source_terms(source))
        number = display_number(self.numbers, source.number)
        return citation_for_span(source, start, end, reference=number, support=score)

    def build(self) -> CitedAnswer:
        text = self.native.text
        display: list[str] = []
        blocks: list[TextBlock] = []
        pos = 0
        cites = sorted(self.native.cites, key=lambda c: (c.end, c.start))
        for end, group in groupby(cites, key=lambda c: c.end):
            members = list(group)
            start = max(pos, min(c.start for c in members))
            while start < end and text[start].isspace():  # whitespace before a claim is not cited
                start += 1
            if start > pos:
                blocks.append(TextBlock(text=text[pos:start]))
                display.append(text[pos:start])
            claim = text[start:end]
            citations = self._citations(members, claim)
            if citations:
                self._add_claim(blocks, display, claim, citations)
            elif claim:
                blocks.append(TextBlock(text=claim))
                display.append(claim)
            pos = max(pos, end)
        if pos < len(text):
            blocks.append(TextBlock(text=text[pos:]))
            display.append(text[pos:])
        return build_answer(
            display, blocks, self.numbers, self.by_number, invalid=self.invalid, threshold=self.threshold
        )

    def _citations(self, members: list[NativeCite], claim: str) -> list[Citation]:
        citations: list[Citation] = []
        seen: set[tuple[int, int, int]] = set()
        for cite in members:
            if not cite.docs:  # a citation naming no document (no chunk index, no source): never linked
                self.invalid.extend(cite.labels or [NO_DOCUMENT])
            for index, label in zip(cite.docs, cite.labels or [f"[{i + 1}]" for i in cite.docs]):
                source = self.resolved[index] if 0 <= index < len(self.resolved) else None
                if source is None:
                    self.invalid.append(label)
                    continue
                quote = cite.quote or self.native.docs[index].quote
                citation = self.citation(source, claim, quote, cite.at if cite.quote else None)
                key = (citation.document_index, citation.source_start, citation.source_end)
                if key not in seen:
                    seen.add(key)
                    citations.append(citation)
        return citations

    @staticmethod
    def _add_claim(
        blocks: list[TextBlock], display: list[str], claim: str, citations: list[Citation]
    ) -> None:
        """The claim, its markers, then its trailing whitespace (a block of its own)."""
        body = claim.rstrip()
        numbers = list(dict.fromkeys(c.reference for c in citations))
        if not body and blocks and blocks[-1].citations:  # an empty claim: its markers join the last one
            last = blocks[-1]
            assert last.citations is not None
            added = [n for n in numbers if n not in last.marker_groups[0].numbers]
            group = last.marker_groups[0]
            group = group.model_copy(
                update={"numbers": group.numbers + added, "citations": group.citations + citations}
            )
            markers = group.text
            blocks[-1] = last.model_copy(
                update={
                    "citations": last.citations + citations,
                    "marker_text": markers,
                    "marker_groups": [group],
                }
            )
            display[-1] = last.text + markers
            if claim:
                blocks.append(TextBlock(text=claim))
                display.append(claim)
            return
        markers = " " + "".join(f"[{n}]" for n in numbers)
        group = MarkerGroup(numbers=numbers, citations=citations, lead=" ")
        blocks.append(TextBlock(text=body, citations=citations, marker_text=markers, marker_groups=[group]))
        display.append(body + markers)
        if len(body) < len(claim):
            blocks.append(TextBlock(text=claim[len(body) :]))
            display.append(claim[len(body) :])


def build_native(
    native: NativeAnswer,
    sources: Sequence[Source] | None,
    *,
    threshold: float,
    display_numbers: Mapping[int, int] | None = None,
    first_new: int | None = None,
) -> CitedAnswer:
    """The ``CitedAnswer`` of a provider's response read into ``native`` (see the module docstring)."""
    return _Builder(native, sources, threshold, display_numbers, first_new).build()
