r"""Pydantic models of the numbered sources: ``Source`` and its ``Segment``\ s (chunks, pages, blocks),
and the typed record of what is derived from a source's text on first use (``SourceAnalysis``: its
citable ``Unit``\ s and their terms, computed by ``_analysis``; its astral characters, by ``_utf16``).

All character offsets in this library are 0-based and half-open: ``text[start:end]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_serializer,
    field_validator,
    model_validator,
)

from .built import built
from .metadata import metadata_json, metadata_problem

__all__ = [
    "IMAGE_KEY",
    "ChunkAnalysis",
    "Segment",
    "Source",
    "SourceAnalysis",
    "SourceKind",
    "Unit",
    "analysis_of",
]

IMAGE_KEY = "cite_image"
"""The ``Source.metadata`` key of a source that is an image (its ``url``, ``path``, ``mimetype``): its text
is the image's caption or alt text, and a citation of it cites that text whole (the location is the whole
image)."""

SourceKind = Literal["text", "pages", "blocks"]


class Unit(NamedTuple):
    """A citable unit of a source: a sentence or line (text, pages) or a whole block (blocks).

    A named tuple: immutable and cheap to build (a source of 1 KB has about ten units, built for every
    source of every query; docs/benchmarks.md)."""

    start: int
    end: int
    segment: int
    terms: tuple[str, ...]


@dataclass(slots=True)
class ChunkAnalysis:
    """The analysis of one chunk text (offsets into it, segment 0); read-only once cached."""

    units: Sequence[Unit]
    """The citable units, in order: a tuple, or of a chunk the extension analysed its
    ``_sources.chunk_analyser.NativeUnits`` (each unit made when read)."""
    counted: list[dict[str, int]] | None = field(compare=False)
    """Term -> count of each unit, once built (``counts``; left out of equality: the units' terms
    give them)."""
    lengths: list[int]
    """Number of terms of each unit."""
    index: object = None
    """The scoring index of the units once a source of this chunk was located (a
    ``_sources.unit_index.CountsIndex``: its term counts, BM25 postings and compiled twin; typed by what
    reads it, as this module comes first)."""
    fragments: list[bool] | None = None
    """Whether each unit is a fragment rather than a sentence (``_analysis.fragment_flags``), on first use."""
    native: Any = field(default=None, compare=False)
    """The analysis kept in Rust (``_native.ChunkIndex``) when the extension analysed the chunk: it gives
    the counts, the fragment flags, the chunk's terms, the compiled index and the corpus frequencies
    without a Python object per unit and term (``_sources.chunk_analyser``)."""

    @property
    def counts(self) -> list[dict[str, int]]:
        """Term -> count of each unit (its keys are the unit's distinct terms), in order of first
        occurrence: of a chunk the extension analysed, built on first read (two threads may both build
        them: the same value)."""
        counts = self.counted
        if counts is None:
            counts = self.counted = self.native.counts()
        return counts

    def __getstate__(self) -> tuple[object, ...]:
        # the Rust part does not pickle: what it would give is made Python objects first
        fragments = self.fragments
        if fragments is None and self.native is not None:
            fragments = self.native.fragments()
        return (tuple(self.units), self.counts, self.lengths, self.index, fragments)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.units, self.counted, self.lengths, self.index, self.fragments = state
        self.native = None


@dataclass(slots=True)
class SourceAnalysis:
    """What is derived from one source's text, each field None until first computed (by ``_analysis``
    unless said otherwise). It holds the text, segments and kind it was made for: ``analysis_of``
    starts a new one when a source no longer has them (a copy with new text, an assignment), so derived
    data never outlives the text it describes."""

    text: str
    segments: tuple[Segment, ...]
    kind: str
    units: Sequence[Unit] | None = None
    """The citable units of the source, in order (``source_units``): a list, or the ``NativeUnits`` of
    its one chunk."""
    lengths: list[int] | None = None
    """Number of terms of each unit (set with ``units``)."""
    chunks: tuple[ChunkAnalysis, ...] | None = None
    """The analysis of each segment's chunk text (set with ``units``)."""
    unit_counts: tuple[list[dict[str, int]], list[int]] | None = None
    """Term counts and number of terms of each unit (set with ``units`` when every chunk's counts were
    built, else on first read: ``unit_counts``)."""
    chunk: ChunkAnalysis | None = None
    """Of a one-chunk source once cited: its chunk's analysis, which keeps its index and fragment flags."""
    terms: set[str] | None = None
    """Every term of the source."""
    fragments: list[bool] | None = None
    """Whether each unit is a fragment rather than a sentence."""
    index: object = None
    """The scoring index of the units (a ``_sources.unit_index.CountsIndex``; of a one-chunk source the
    chunk's, shared)."""
    stats: object = None
    """The term statistics over the units (a ``_scoring.TermStats``, kept by ``_localize``: typed by
    what reads it there, as this module comes before scoring)."""
    astral: tuple[int, ...] | None = None
    """Offsets of the characters outside the Basic Multilingual Plane (``_utf16``)."""
    laid_out: bool = False
    """Whether ``segments`` are known to be pieces of ``text`` (``layout_problem`` found none, or
    ``built_source`` made them so): a stream's start then asks once per text and segments, not per stream
    (about 6,000 instructions a source of pydantic attribute reads, a fifth of a stream's set-up)."""


class Segment(BaseModel):
    """One contiguous piece of a source: a retrieved chunk, a page or a content block."""

    model_config = ConfigDict(frozen=True)

    text: str
    """The segment's text, exactly as given."""
    start: int
    """Offset of this segment in ``Source.text``."""
    doc_start: int | None = None
    """Offset of this segment in the original document, when the chunk knew it (a start index)."""
    page: int | None = None
    """1-based page number, for paged sources."""
    block: int | None = None
    """0-based content block index, for custom-content sources."""

    @property
    def end(self) -> int:
        """Offset just past this segment in ``Source.text``."""
        return self.start + len(self.text)


class Source(BaseModel):
    """A numbered source as the model sees it: ``number`` is the ``[n]`` the model writes."""

    number: int = Field(ge=1)
    """1-based number shown to the model; ``document_index == number - 1``."""
    text: str
    """The citable text: the segments joined by blank lines. ``title`` and ``context`` are not part of it."""
    kind: SourceKind = "text"
    """``text`` (cited by characters), ``pages`` (cited by pages) or ``blocks`` (cited by content blocks)."""
    segments: tuple[Segment, ...]
    """The pieces of ``text`` (chunks, pages or blocks) with their own offsets."""
    title: str | None = None
    url: str | None = None
    author: str | None = None
    document_id: str | None = None
    """Identifies the original document; chunks sharing it are merged into one source."""
    context: str | None = None
    """Shown to the model, never cited (as Anthropic's ``context``)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Any other metadata the item carried."""
    score: float | None = Field(default=None, allow_inf_nan=False)
    """The retriever's score, when one was given (finite: JSON has no NaN or infinity)."""

    _item_indices: tuple[int, ...] = PrivateAttr(default=())
    _segment_items: tuple[tuple[int, ...], ...] = PrivateAttr(default=())
    """Of a merged source: the indices of the items each segment holds (a budget trims by whole chunks)."""
    _by_text: bool = PrivateAttr(default=False)
    """Known in a conversation by its text, not its document: one of several sources of its document in
    the call that numbered it (chunks not merged, or chunks whose metadata disagreed), so the document
    alone would not say which (``source_key``)."""
    _analysis: SourceAnalysis | None = PrivateAttr(default=None)
    """Derived data (units, terms, ...) computed on first use, read through ``analysis_of``; not part
    of equality. None until first read (a ``default_factory`` costs an ``inspect.signature`` call per
    Source: 6x slower construction, 60% of ``number_sources`` for 10,000 items). A copy shares it
    until its text, segments or kind differ (``analysis_of`` checks)."""

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = metadata_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _check_layout(self) -> Source:
        problem = layout_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    @field_serializer("metadata", mode="wrap", when_used="json")
    def _metadata_json(self, value: dict[str, Any], handler: Any) -> Any:
        return metadata_json(value, handler)  # never fails: values JSON has no type for become text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Source):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    @property
    def item_indices(self) -> tuple[int, ...]:
        """0-based indices, into the items passed to ``number_sources``, of the input items merged into
        this source, in rank order (the best-ranked chunk first); empty for a Source built directly.
        Provenance of one call, so not part of equality or JSON (like a retriever's object identity)."""
        return self._item_indices

    @property
    def segment_item_indices(self) -> tuple[tuple[int, ...], ...]:
        """For each segment, the ``item_indices`` of the input items whose text it holds (several when
        overlapping chunks were coalesced into one segment); empty for a Source built directly. A
        citation's ``segment`` picks the chunks it was cited from."""
        if self._segment_items or not self._item_indices:
            return self._segment_items
        return (self._item_indices,) * len(self.segments)  # one item (or merged items in one layout)

    @property
    def document_coordinates(self) -> bool:
        """Whether citations give character offsets in the original document (every chunk knew its start)."""
        return self.kind == "text" and all(s.doc_start is not None for s in self.segments)

    @property
    def label(self) -> str:
        """A human-readable name: title, else URL, else document id, else ``Source n``."""
        return self.title or self.url or self.document_id or f"Source {self.number}"

    @property
    def pages(self) -> tuple[int, ...]:
        """Page numbers of a paged source, in order."""
        return tuple(s.page for s in self.segments if s.page is not None)


_ALL_FIELDS = frozenset(Source.model_fields)


def built_source(
    number: int,
    text: str,
    kind: SourceKind,
    segments: tuple[Segment, ...],
    fields: dict[str, str | None],
    metadata: dict[str, Any],
    score: float | None,
) -> Source:
    """The ``Source`` validation would build from these values, every field given, built without it:
    only for values already valid and of their field types (exact ``str``s, a fresh metadata dict with
    string keys that ``metadata_problem`` passes, segments that lie in ``text``, an ``int`` or finite
    ``float`` score), as ``number_sources`` makes them. Pydantic's validation and its private-attribute
    set-up cost about 5 µs a source (``tests/core/test_numbering_fast.py`` compares field by field)."""
    return built(
        Source,
        {
            "number": number,
            "text": text,
            "kind": kind,
            "segments": segments,
            "title": fields["title"],
            "url": fields["url"],
            "author": fields["author"],
            "document_id": fields["document_id"],
            "context": fields["context"],
            "metadata": metadata,
            "score": float(score) if type(score) is int else score,
        },
        set(_ALL_FIELDS),
        {
            "_item_indices": (),
            "_segment_items": (),
            "_by_text": False,
            # its segments are the pieces its text was joined from: no stream checks them again
            "_analysis": SourceAnalysis(text, segments, kind, laid_out=True),
        },
    )


def layout_problem(source: Source) -> str | None:
    """Why ``source``'s segments are not pieces of its text, or None: every citation's offsets and
    ``cited_text`` come from the segments, so a segment that is not ``text[start:end]`` (a hand-built
    Source, a ``model_copy(update={"text": ...})`` that kept the old segments) would cite other text."""
    text, segments = source.text, source.segments
    if not segments:
        return "a Source needs at least one segment (the whole text: Segment(text=text, start=0))"
    for i, seg in enumerate(segments):
        if seg.start < 0 or seg.start + len(seg.text) > len(text) or not text.startswith(seg.text, seg.start):
            return (
                f"segment {i} (start {seg.start}, {len(seg.text)} characters) is not the source's text there"
            )
    return None


def analysis_of(source: Source) -> SourceAnalysis:
    """The source's analysis, created empty on first use and again whenever the source's text, segments
    or kind are no longer those it was made for (``model_copy(update=...)`` copies private attributes,
    and a Source's fields can be assigned: a stale analysis would cite the old text's offsets)."""
    # pydantic's private-attribute slot, read directly: ``source._analysis`` goes through
    # ``BaseModel.__getattr__``, which costs microseconds, and this runs several times per citation
    private = source.__pydantic_private__
    analysis: SourceAnalysis | None = private["_analysis"]  # type: ignore[index]
    text, segments = source.text, source.segments
    if (
        analysis is None
        or analysis.text is not text
        or analysis.segments is not segments
        or analysis.kind != source.kind
    ):
        analysis = private["_analysis"] = SourceAnalysis(text, segments, source.kind)  # type: ignore[index]
    return analysis
