"""The three parts of the HTML answer, each built by its own function from ``answer.content``.

``markers_html``: the answer text with ``<sup>`` markers and CSS tooltips; ``references_html``: the
reference list with each cited passage in context; ``panel_html``: the side panel with every cited
source in full, cited spans in ``<mark data-c="ids">``. ``CitationIds`` numbers the distinct cited spans
once, so the three parts agree on the ids that link them. Every string from a source or the model is
escaped with :func:`esc`; links go only to :func:`safe_url` URLs.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .blocks import Marker, walk
from .labels import MAX_LABEL_CHARS, cited_pages, one_line, page_text, short, short_name
from .location import first_page, passage_link, reference_link, source_path
from .reveal import reveal_invisible

if TYPE_CHECKING:
    from .._schema.models import Citation, CitedAnswer, Reference, Source

__all__ = [
    "CONTEXT_CHARS",
    "MAX_TIP_QUOTE_CHARS",
    "CitationIds",
    "esc",
    "markers_html",
    "panel_html",
    "references_html",
]

CONTEXT_CHARS = 160
"""Characters of context shown on each side of a cited span in the reference list."""
MAX_TIP_QUOTE_CHARS = 600
"""A tooltip shows at most this many characters of a cited passage (the panel shows it whole)."""
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def esc(text: object) -> str:
    """``text`` HTML-escaped, quotes included (safe in text and in attribute values), its invisible
    characters shown (``‹U+202E›``: a title, an author or a source is as untrusted as the model's text,
    and a bidi override in one would make it read otherwise)."""
    return html.escape(reveal_invisible(str(text)), quote=True)


@dataclass
class CitationIds:
    """One id per distinct cited span ``(reference, start, end)``, in answer order."""

    answer: CitedAnswer
    ids: dict[tuple[int, int, int], int] = field(default_factory=dict)
    by_ref: dict[int, list[tuple[int, Citation]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for citation in self.answer.citations:
            key = (citation.reference, citation.source_start, citation.source_end)
            if key not in self.ids:
                self.ids[key] = len(self.ids) + 1
                self.by_ref.setdefault(citation.reference, []).append((self.ids[key], citation))

    def of(self, citation: Citation) -> int:
        """The id of ``citation``'s span."""
        return self.ids[(citation.reference, citation.source_start, citation.source_end)]

    def cited(self, number: int) -> list[Citation]:
        """The distinct cited spans of reference ``number``."""
        return [c for _, c in self.by_ref.get(number, [])]


def _link(href: str | None, text_html: str, cls: str) -> str:
    """An ``<a>`` to ``href`` (a :func:`reference_link`: an http(s) URL from the source's metadata, or a
    ``file:///`` URL built from a local path when file links are on), else the text alone."""
    if href is None:
        return f'<span class="{cls}">{text_html}</span>'
    attrs = f'href="{html.escape(href, quote=True)}" rel="noopener noreferrer nofollow" target="_blank"'
    return f'<a class="{cls}" {attrs}>{text_html}</a>'


def _title(source: Source) -> str:
    return esc(short_name(source.label))


def markers_html(answer: CitedAnswer, ids: CitationIds, labels: dict[str, str], p: str) -> str:
    """The answer text, each marker a ``<sup>`` with a link to its passage and a tooltip of the cited text."""
    refs = {ref.number: ref for ref in answer.references}
    body = []
    for piece in walk(answer):
        body.append(esc(piece.text))
        for marker in piece.markers:
            body.append(_marker_html(marker, refs[marker.number], ids, labels, p))
        body.append(esc(piece.tail))
    return "".join(body)


def _marker_html(marker: Marker, ref: Reference, ids: CitationIds, labels: dict[str, str], p: str) -> str:
    """One ``<sup>`` marker: a link to its first cited passage (else to its reference) and a tooltip."""
    citations, n = marker.citations, marker.number
    cids = list(dict.fromkeys(ids.of(c) for c in citations))
    quotes = "".join(
        f'<span class="cite-tip-quote">“{esc(short(q, MAX_TIP_QUOTE_CHARS))}”</span>'
        for q in dict.fromkeys(one_line(c.cited_text) for c in citations)
        if q  # a provider's citation of a web page it did not quote (from_native without sources)
    )
    # a marker's tip names the pages of its own citations: those of a paged source, or the printed
    # labels of the cited chunks (never the page range of a whole text source)
    paged = ref.source.kind == "pages" or "segment_page_labels" in ref.source.metadata
    pages = cited_pages(ref, citations, labels) if paged else None
    head = _title(ref.source) + (f" · {esc(pages)}" if pages else "")
    note = f'<span class="cite-tip-note">{esc(labels["weak"])}</span>' if marker.weak else ""
    key = str(cids[0]) if cids else f"r{n}"
    tip_id, target = f"{p}-tip-{key}", f"{p}-c-{cids[0]}" if cids else f"{p}-ref-{n}"
    weak = " cite-weak" if marker.weak else ""
    return (
        f'<sup class="cite-sup"><a class="cite-marker{weak}" id="{p}-m-{key}" href="#{target}" '
        f'data-ref="{n}" data-cites="{" ".join(map(str, cids))}" '
        f'aria-label="{esc(labels["reference"])} {n}" aria-describedby="{tip_id}">[{n}]</a>'
        f'<span class="cite-tip" role="tooltip" id="{tip_id}">'
        f'<span class="cite-tip-title">{head}</span>{quotes}{note}</span></sup>'
    )


def _source_meta(ref: Reference, citations: list[Citation], labels: dict[str, str]) -> str:
    source = ref.source
    bits = []
    path = source_path(source)
    if path and path != source.label:
        bits.append(f'<span class="cite-path">{esc(short_name(path))}</span>')
    if source.author:
        bits.append(esc(short_name(source.author)))
    pages = cited_pages(ref, citations, labels)
    if pages:
        bits.append(esc(pages))
    for key in ("date", "published", "year"):
        value = source.metadata.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            bits.append(esc(short(str(value))))
            break
    return f'<span class="cite-ref-meta">{" · ".join(bits)}</span>' if bits else ""


def _url_line(source: Source) -> str:
    """The URL as plain text under the title (always text: unsafe URLs are never links)."""
    if not source.url or source.url == source.label:
        return ""
    return f'<span class="cite-url">{esc(short(source.url))}</span>'


def _context(source: Source, start: int, end: int) -> tuple[str, str, str, int | None]:
    """Text before, the cited span, text after (within the span's segment), and its page."""
    text = source.text
    seg = next((s for s in source.segments if s.start <= start < s.end or (start == end == s.end)), None)
    lo, hi = (seg.start, seg.end) if seg else (0, len(text))
    hi = max(hi, end)
    a = max(lo, start - CONTEXT_CHARS)
    b = min(hi, end + CONTEXT_CHARS)
    before, after = text[a:start], text[end:b]
    if a > lo:
        cut = before.find(" ")
        before = "…" + (before[cut + 1 :] if 0 <= cut < 40 and not _CJK.search(before[:cut]) else before)
    if b < hi:
        cut = after.rfind(" ")
        after = (after[:cut] if cut > len(after) - 40 and not _CJK.search(after[cut:]) else after) + "…"
    return before, text[start:end], after, seg.page if seg else None


def _open_html(source: Source, citation: Citation, labels: dict[str, str], file_links: bool) -> str:
    """A ``↗`` link opening the source at this passage (its page, its sentence), when there is one."""
    href = passage_link(source, citation.cited_text, first_page(citation), file_links=file_links)
    if href is None:
        return ""
    attrs = f'href="{html.escape(href, quote=True)}" rel="noopener noreferrer nofollow" target="_blank"'
    return f'<a class="cite-open" {attrs} aria-label="{esc(labels["open"])}">↗</a>'


def _full_title(source: Source) -> str:
    """``data-title`` with the whole title when the displayed one is cut."""
    label = one_line(source.label)
    return f' data-title="{esc(label)}"' if len(label) > MAX_LABEL_CHARS else ""


def references_html(
    answer: CitedAnswer, ids: CitationIds, labels: dict[str, str], p: str, *, open_: bool, file_links: bool
) -> str:
    """``<details>`` with the reference list: title (a link for http(s) URLs), metadata and cited passages."""
    parts = [
        f'<details class="cite-refs"{" open" if open_ else ""}>',
        f"<summary>{esc(labels['references'])} ({len(answer.references)})</summary>",
        f'<ol class="cite-ref-list" aria-label="{esc(labels["references"])}">',
    ]
    for ref in answer.references:
        source, cited = ref.source, ids.by_ref.get(ref.number, [])
        link = reference_link(ref, ids.cited(ref.number), file_links=file_links)
        passages = []
        for cid, c in cited:
            before, span, after, page = _context(source, c.source_start, c.source_end)
            shown = page_text((page, page), labels, _printed(source)) if page is not None else None
            page_html = f'<span class="cite-passage-page">{esc(shown)}</span>' if page is not None else ""
            opener = _open_html(source, c, labels, file_links)
            passages.append(
                f'<li class="cite-passage" id="{p}-c-{cid}" tabindex="-1">{page_html}'
                f"{esc(before)}<mark>{esc(span)}</mark>{esc(after)}{opener}"
                f'<a class="cite-back" href="#{p}-m-{cid}" aria-label="{esc(labels["back"])}">↩</a></li>'
            )
        listed = f'<ul class="cite-passages" aria-label="{esc(labels["cited"])}">{"".join(passages)}</ul>'
        parts.append(
            f'<li class="cite-ref" id="{p}-ref-{ref.number}"{_full_title(source)}>'
            f'<span class="cite-ref-num">[{ref.number}]</span>'
            f'<div class="cite-ref-body">{_link(link, _title(source), "cite-ref-title")} '
            f"{_source_meta(ref, ids.cited(ref.number), labels)}{_url_line(source)}"
            f"{listed if passages else ''}</div></li>"
        )
    parts.append("</ol></details>")
    return "".join(parts)


def _source_body(source: Source, spans: list[tuple[int, int, int]], labels: dict[str, str]) -> str:
    """The whole source text, cited spans wrapped in ``<mark data-c="ids">`` (overlaps split).

    One sweep over the pieces in text order (the spans that have started and not ended, found through
    the spans sorted by start), not every span for every segment and piece: a paged source with many
    cited passages was quadratic."""
    out = []
    bounds = sorted(x for _, s, e in spans for x in (s, e))
    order = sorted(range(len(spans)), key=lambda i: spans[i][1])  # span indices by start
    sweep = _Sweep(spans, order)
    for index, seg in enumerate(source.segments):
        if seg.page is not None:
            text = page_text((seg.page, seg.page), labels, _printed(source))
            out.append(f'<span class="cite-page-label">{esc(text)}</span>')
        elif index:
            out.append('<span class="cite-page-label">…</span>')
        inside = bounds[bisect_right(bounds, seg.start) : bisect_left(bounds, seg.end)]
        points = sorted({seg.start, seg.end, *inside})
        for a, b in zip(points, points[1:]):
            piece = esc(source.text[a:b])
            cids = sweep.covering(a, b)
            out.append(f'<mark data-c="{" ".join(cids)}">{piece}</mark>' if cids else piece)
        if index < len(source.segments) - 1 and seg.page is None:
            out.append("\n")
    return "".join(out)


class _Sweep:
    """The ids of the spans covering pieces asked in increasing order (in the spans' own order)."""

    def __init__(self, spans: list[tuple[int, int, int]], order: list[int]) -> None:
        self.spans, self.order = spans, order
        self.next = 0  # in ``order``: the first span not yet started
        self.active: set[int] = set()
        self.last = -1

    def covering(self, a: int, b: int) -> list[str]:
        if a < self.last:  # segments out of text order: start again
            self.next, self.active = 0, set()
        self.last = a
        spans, order = self.spans, self.order
        while self.next < len(order) and spans[order[self.next]][1] < b:
            self.active.add(order[self.next])
            self.next += 1
        self.active = {i for i in self.active if spans[i][2] > a} if self.active else self.active
        return [str(spans[i][0]) for i in sorted(self.active) if spans[i][1] < spans[i][2]]


def panel_html(
    answer: CitedAnswer, ids: CitationIds, labels: dict[str, str], p: str, *, file_links: bool
) -> str:
    """The side panel (hidden until a marker is clicked): every cited source whole, cited spans marked."""
    parts = [
        f'<aside class="cite-panel" id="{p}-panel" role="dialog" aria-modal="false" ',
        f'aria-label="{esc(labels["sources"])}" tabindex="-1" hidden>',
        f'<div class="cite-panel-bar"><span class="cite-panel-label">{esc(labels["source"])}</span>',
        f'<button type="button" class="cite-close">{esc(labels["close"])} ✕</button></div>',
    ]
    for ref in answer.references:
        source, cited = ref.source, ids.by_ref.get(ref.number, [])
        spans = [(cid, c.source_start, c.source_end) for cid, c in cited]
        link = reference_link(ref, ids.cited(ref.number), file_links=file_links)
        parts.append(
            f'<section class="cite-source" data-ref="{ref.number}" hidden>'
            f'<h2 class="cite-source-head" tabindex="-1">[{ref.number}] '
            f"{_link(link, _title(source), 'cite-ref-title')}</h2>"
            f"{_source_meta(ref, ids.cited(ref.number), labels)}{_url_line(source)}"
            f'<div class="cite-source-body">{_source_body(source, spans, labels)}</div></section>'
        )
    parts.append("</aside>")
    return "".join(parts)


def _printed(source: Source) -> Any:
    """The source's printed page labels (physical page -> label), shown instead of the page number."""
    return source.metadata.get("page_labels")
