"""Pydantic models: sources, citations, references, cited answers and stream events.

All character offsets in this library are 0-based and half-open: ``text[start:end]``.
Page numbers are 1-based with an exclusive end, as in Anthropic's Citations API.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from .source import Segment, Source, SourceKind
from .support import SupportLevel, support_level
from .utf16 import utf16_length
from .verdicts import Verdict, Verification

__all__ = [
    "CharLocation",
    "Citation",
    "CitationsDelta",
    "CitedAnswer",
    "Claim",
    "ContentBlockLocation",
    "DisplayDelta",
    "PageLocation",
    "Reference",
    "Segment",
    "Source",
    "SourceKind",
    "StreamEvent",
    "TextBlock",
    "TextDelta",
    "ThinkingDelta",
]


class _CitationBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cited_text: str
    """Exact text copied from the source (never generated)."""
    document_index: int = Field(ge=0)
    """0-based index of the source: ``source.number - 1``."""
    document_title: str | None = None
    reference: int = Field(default=0, ge=0, exclude=False)
    """Display number of the reference this citation points to (1..k, by first appearance)."""
    support: float = 0.0
    """How well ``cited_text`` supports the claim, 0..1 (lexical score)."""
    source_start: int = 0
    """Offset of ``cited_text`` in ``Source.text`` (always source coordinates)."""
    source_end: int = 0
    """End offset (exclusive) of ``cited_text`` in ``Source.text``."""
    segment: int | None = None
    """Index in ``Source.segments`` of the segment (chunk, page, block) holding ``cited_text``; None when
    unknown (a citation built by hand). Not part of ``to_anthropic()``."""
    source_start_utf16: int | None = None
    """``source_start`` counted in UTF-16 code units (a browser's string offsets)."""
    source_end_utf16: int | None = None
    """``source_end`` counted in UTF-16 code units."""

    def to_anthropic(self, *, utf16: bool = False) -> dict[str, Any]:
        """This citation in the exact shape of Anthropic's Citations API; ``utf16`` adds the UTF-16
        offsets of a character location (``start_char_index_utf16``, ``end_char_index_utf16``)."""
        data = self.model_dump()
        fields = self._api_fields()
        if utf16 and "start_char_index" in fields:
            fields += ("start_char_index_utf16", "end_char_index_utf16")
        return {k: data[k] for k in fields}

    def _api_fields(self) -> tuple[str, ...]:
        raise NotImplementedError  # overridden by every concrete location type


class CharLocation(_CitationBase):
    """A citation of a character range in a plain-text source."""

    type: Literal["char_location"] = "char_location"
    start_char_index: int = Field(ge=0)
    end_char_index: int = Field(ge=0)
    start_char_index_utf16: int | None = None
    """``start_char_index`` in UTF-16 code units; None when the offsets are in document coordinates
    (the source does not hold the document text before its chunk)."""
    end_char_index_utf16: int | None = None
    """``end_char_index`` in UTF-16 code units (None as ``start_char_index_utf16``)."""
    coordinates: Literal["document", "source"] = "source"
    """What ``start_char_index``/``end_char_index`` index: ``"document"``, the original document (every
    chunk of the source knew where it starts there, so ``document_text[start:end] == cited_text``), or
    ``"source"``, ``Source.text`` (a single chunk's own text). Not part of ``to_anthropic()``."""

    def _api_fields(self) -> tuple[str, ...]:
        return (
            "type",
            "cited_text",
            "document_index",
            "document_title",
            "start_char_index",
            "end_char_index",
        )


class PageLocation(_CitationBase):
    """A citation of a page range (1-based, end exclusive) in a paged source such as a PDF."""

    type: Literal["page_location"] = "page_location"
    start_page_number: int = Field(ge=1)
    end_page_number: int = Field(ge=2)

    def _api_fields(self) -> tuple[str, ...]:
        return (
            "type",
            "cited_text",
            "document_index",
            "document_title",
            "start_page_number",
            "end_page_number",
        )


class ContentBlockLocation(_CitationBase):
    """A citation of a range of content blocks (0-based, end exclusive) in a custom-content source."""

    type: Literal["content_block_location"] = "content_block_location"
    start_block_index: int = Field(ge=0)
    end_block_index: int = Field(ge=1)

    def _api_fields(self) -> tuple[str, ...]:
        return (
            "type",
            "cited_text",
            "document_index",
            "document_title",
            "start_block_index",
            "end_block_index",
        )


Citation = Annotated[CharLocation | PageLocation | ContentBlockLocation, Field(discriminator="type")]


class MarkerGroup(BaseModel):
    """A run of display markers that follows a block in ``CitedAnswer.text``, as the parser found it:
    ``lead + "".join(f"[{n}]" for n in numbers) + tail`` (``" [2][1]"``, ``" [2],"`` after a lead-in)."""

    numbers: list[int]
    """The display numbers of its markers, in the order shown."""
    citations: list[Citation] = Field(default_factory=list)
    """The citations these markers stand for (each one's ``reference`` is in ``numbers``)."""
    lead: str = ""
    """The whitespace before the first marker."""
    tail: str = ""
    """What the display text shows after the markers (the comma of a lead-in, ``According to [2],``)."""

    @property
    def text(self) -> str:
        """The group as shown in ``CitedAnswer.text``."""
        return self.lead + "".join(f"[{n}]" for n in self.numbers) + self.tail


class TextBlock(BaseModel):
    """A block of answer text (markers removed) with the citations that support it."""

    type: Literal["text"] = "text"
    text: str
    citations: list[Citation] | None = None
    marker_text: str = ""
    """The display markers that follow this block in ``CitedAnswer.text`` (``" [1][2]"``, ``""`` when
    none): ``"".join(b.text + b.marker_text for b in answer.content) == answer.text``. Not part of
    ``to_anthropic()``."""
    marker_groups: list[MarkerGroup] = Field(default_factory=list)
    """The same markers as data (``"".join(g.text for g in marker_groups) == marker_text``): each group's
    display numbers and the citations they stand for, so that nothing re-reads ``marker_text``. Not
    part of ``to_anthropic()``."""

    def to_anthropic(self, *, utf16: bool = False) -> dict[str, Any]:
        """This block in the exact shape of Anthropic's Citations API (no ``citations`` key when uncited)."""
        block: dict[str, Any] = {"type": "text", "text": self.text}
        if self.citations:
            block["citations"] = [c.to_anthropic(utf16=utf16) for c in self.citations]
        return block


class Claim(BaseModel):
    """A cited claim located in the display text (``answer.text[start:end] == text``) and in the plain
    text (``answer.plain_text[plain_start:plain_end] == text``)."""

    start: int
    """Offset of the claim in ``CitedAnswer.text`` (display coordinates, markers included before it)."""
    end: int
    """End offset (exclusive); the claim's display markers follow at ``end``."""
    text: str
    citations: list[Citation]
    """The citations supporting this claim."""
    plain_start: int
    """Offset of the claim in ``CitedAnswer.plain_text`` (no markers)."""
    plain_end: int
    """End offset (exclusive) in ``CitedAnswer.plain_text``."""
    verdict: Verdict | None = None
    """A judge's verdict on this claim against the passages it cites (``verify``), None when not verified."""
    start_utf16: int | None = None
    """``start`` counted in UTF-16 code units (``end_utf16``, ``plain_start_utf16``, ``plain_end_utf16``
    likewise): the offsets a browser's JavaScript strings use."""
    end_utf16: int | None = None
    plain_start_utf16: int | None = None
    plain_end_utf16: int | None = None


class Reference(BaseModel):
    """One entry of the reference list: a cited source with its display number."""

    number: int = Field(ge=1)
    """Display number, 1..k in order of first appearance in the answer."""
    source: Source
    """The cited source; ``source.number`` is the number the model wrote."""

    @property
    def title(self) -> str:
        return self.source.label

    @property
    def url(self) -> str | None:
        return self.source.url


class CitedAnswer(BaseModel):
    """A parsed answer: normalised text, Anthropic-shaped content, and the reference list."""

    text: str
    """The answer with marker groups normalised to display numbers: ``... [1][2].``"""
    content: list[TextBlock]
    """Anthropic-shaped blocks; their texts concatenated give the answer without markers."""
    references: list[Reference]
    """Cited sources only, deduplicated, in order of first appearance."""
    invalid_markers: list[str] = Field(default_factory=list)
    """Raw markers that pointed at no source (``[0]``, ``[7]`` of 5, ``[2019]``), in order of appearance."""
    removed_reference_list: str | None = None
    """A reference list the model wrote despite instructions, removed from ``text`` and ``content``."""
    unsupported_threshold: float = 0.0
    """Citations whose ``support`` is below this are listed in ``unsupported_citations``."""
    reasoning: str = ""
    """The model's thinking (``<think>``, ``<thinking>``, ``<reasoning>`` sections, the text before a
    lone ``</think>`` that starts an answer, and reasoning fed separately), kept out of ``text``,
    ``content`` and the citations."""
    stopped_in_reasoning: bool = False
    """The output ended inside a thinking section (cut off, e.g. at the token limit, before the model
    closed it): the answer is what came before, usually nothing. The notes say so."""
    truncated: bool = False
    """The output was cut off before the model finished (its token limit, ``finish_reason="length"``, a
    dropped connection), as the caller said (``parse_answer(truncated=True)``,
    ``CitationStream.finish(truncated=True)``): an unfinished marker at the end was dropped, not shown
    as text. The notes say so."""
    left_out: list[str] = Field(default_factory=list)
    """What the caller gave that was not shown to the model or cannot be cited (an image without a
    caption for a model that reads no images, a node the core rejected), one label each
    (``Image chart.png (no caption)``): reported by the ``left_out`` note, never dropped silently. Left
    out of the JSON form while empty, so answers that leave nothing out dump as before."""
    no_model_asked: Literal["no_sources", "no_text"] | None = None
    """Why no model was asked for this (empty) answer, as its caller knows: ``no_sources``, nothing was
    retrieved; ``no_text``, the caller asked for the sources only (LlamaIndex's ``response_mode="no_text"``).
    Its note says so instead of claiming the model's reply was empty; left out of the JSON form while None."""
    _verification: Verification | None = PrivateAttr(default=None)

    @model_serializer(mode="wrap")
    def _without_empty_left_out(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.left_out:
            data.pop("left_out", None)
        if self.no_model_asked is None:
            data.pop("no_model_asked", None)
        return data

    @property
    def verification(self) -> Verification | None:
        """How the claims were verified (``verify``: the judge, its calls, each claim's verdict, what
        could not be read), None when not verified. Kept beside the answer's JSON, not in it."""
        private = self.__pydantic_private__  # None on an answer built without validation
        return private.get("_verification") if private else None

    @property
    def verdicts(self) -> list[Verdict | None]:
        """The judge's verdict of each cited claim (``claims``), in order: None where none was given
        (not verified, or the judge's reply could not be read)."""
        count = sum(1 for block in self.content if block.citations)
        verification = self.verification
        found = verification.verdicts if verification is not None else ()
        return list(found) if len(found) == count else [None] * count

    @property
    def citations(self) -> list[Citation]:
        """Every citation, in answer order."""
        return [c for block in self.content for c in (block.citations or [])]

    @property
    def unsupported_citations(self) -> list[Citation]:
        """Citations whose cited text barely supports their claim (``support < unsupported_threshold``)."""
        return [c for c in self.citations if c.support < self.unsupported_threshold]

    def support_level(self, citation: Citation) -> SupportLevel:
        """A graded signal for a citation: ``"weak"`` (below ``unsupported_threshold``: flagged, in
        ``unsupported_citations``), ``"uncertain"`` or ``"supported"`` (see docs/quality.md)."""
        return support_level(citation.support, self.unsupported_threshold)

    @property
    def claims(self) -> list[Claim]:
        """The cited blocks with their spans in ``text`` (display coordinates) and in ``plain_text``, in
        answer order."""
        claims, offset, plain, offset16, plain16 = [], 0, 0, 0, 0
        verdicts = iter(self.verdicts)
        for block in self.content:
            size16 = utf16_length(block.text)
            if block.citations:
                claims.append(
                    Claim(
                        start=offset,
                        end=offset + len(block.text),
                        text=block.text,
                        citations=block.citations,
                        plain_start=plain,
                        plain_end=plain + len(block.text),
                        verdict=next(verdicts),
                        start_utf16=offset16,
                        end_utf16=offset16 + size16,
                        plain_start_utf16=plain16,
                        plain_end_utf16=plain16 + size16,
                    )
                )
            offset += len(block.text) + len(block.marker_text)
            offset16 += size16 + utf16_length(block.marker_text)
            plain += len(block.text)
            plain16 += size16
        return claims

    @property
    def plain_text(self) -> str:
        """The answer without markers: the concatenated block texts."""
        return "".join(block.text for block in self.content)

    def to_anthropic(self, *, utf16: bool = False) -> dict[str, Any]:
        """``{"content": [...]}`` exactly in the shape of a Citations API response; ``utf16=True`` adds
        ``start_char_index_utf16`` / ``end_char_index_utf16`` to character citations (for a web page)."""
        return {"content": [b.to_anthropic(utf16=utf16) for b in self.content if b.text or b.citations]}

    def to_markdown(
        self,
        *,
        style: Literal["links", "footnotes", "plain"] = "links",
        heading: str | None = None,
        lang: str | None = None,
        safe: bool = True,
    ) -> str:
        """The answer with its markers, its notes and a reference list of the cited sources only.

        ``safe`` (default) neutralises raw HTML and non-http(s) links in the model's text."""
        from .._render import render_markdown

        return render_markdown(self, style=style, heading=heading, lang=lang, safe=safe)

    def to_html(self, *, full_page: bool = False, title: str = "Answer", lang: str | None = None) -> str:
        """Safe HTML: markers with tooltips of the cited text, notes, references, sources with highlights."""
        from .._render import render_html

        return render_html(self, full_page=full_page, title=title, lang=lang)


class TextDelta(BaseModel):
    """Answer text (markers removed) as it streams."""

    type: Literal["text_delta"] = "text_delta"
    text: str


class CitationsDelta(BaseModel):
    """A citation resolved while streaming; it supports ``plain_text[claim_start:claim_end]``."""

    type: Literal["citations_delta"] = "citations_delta"
    citation: Citation
    claim_start: int
    """Offset of the claim in the concatenated text deltas."""
    claim_end: int


class DisplayDelta(BaseModel):
    """Answer text as shown, markers renumbered to their final display numbers (``CitationStream(...,
    display=True)``): the concatenated display deltas equal ``CitedAnswer.text``."""

    type: Literal["display_delta"] = "display_delta"
    text: str


class ThinkingDelta(BaseModel):
    """Reasoning text (a thinking section or reasoning fed separately) as it streams."""

    type: Literal["thinking_delta"] = "thinking_delta"
    thinking: str


class AnswerReset(BaseModel):
    """The text streamed so far was the model's reasoning, not its answer: a closing thinking tag came
    before any opening one (the chat template opened it: R1 distills, QwQ). Discard the text, display
    and citation events before this one; a ``ThinkingDelta`` with that reasoning follows."""

    type: Literal["answer_reset"] = "answer_reset"


StreamEvent = Annotated[
    TextDelta | CitationsDelta | ThinkingDelta | DisplayDelta | AnswerReset, Field(discriminator="type")
]
