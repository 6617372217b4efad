"""Render a cited answer as Markdown or as safe, self-contained HTML.

Safety rules (see ``docs/rendering.md``):

- every string that came from a source, its metadata or the model is HTML-escaped (``html.escape``
  with quotes) before it reaches the output; the only markup is ours;
- links come only from a source's ``url`` metadata, never from the answer text, and only when
  :func:`safe_url` accepts them (absolute ``http``/``https``); anything else is shown as text;
- the only ``<style>`` and ``<script>`` are the constants ``STYLE`` and ``SCRIPT`` of this module; the
  full page carries a Content-Security-Policy that allows exactly those two (by hash) and nothing else.

The HTML works without script: markers are ``#`` links to the cited passage in the reference list
(highlighted with ``:target``), tooltips are CSS (``:hover``/``:focus-within``). The script adds the side
panel that shows the whole source with the cited span highlighted, Escape handling and focus return.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote, urlsplit

from .labels import LABELS, detect_lang, one_line, page_text, pages_cited
from .notes import Note, answer_notes
from .terminal import render_terminal, strip_controls

if TYPE_CHECKING:
    from .._models import Citation, CitedAnswer, Reference, Source

__all__ = [
    "PAGE_STYLE",
    "SCRIPT",
    "STYLE",
    "Note",
    "answer_notes",
    "content_security_policy",
    "render_html",
    "render_markdown",
    "render_terminal",
    "safe_url",
    "strip_controls",
]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,40}")
CONTEXT_CHARS = 160
"""Characters of context shown on each side of a cited span in the reference list."""


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL without spaces or control characters, else ``None``."""
    if not url or not isinstance(url, str) or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


# -- shared helpers (kept under their old names for callers not yet moved to the public API) -----

_LABELS = LABELS
_pages = pages_cited
_page_text = page_text
_one_line = one_line


def _is_cjk(text: str) -> bool:
    return detect_lang(text) == "zh"


# -- Markdown -------------------------------------------------------------------------------------

_MD_SPECIAL = set("\\`*_[]<>()#|!~&$")
_MARKER = re.compile(r"\[(\d+)\]")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")


def _md_escape(text: str) -> str:
    """Escape Markdown and inline-HTML syntax in a metadata string (one line)."""
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in _one_line(text))


def _md_url(url: str) -> str:
    """A URL safe inside Markdown ``(...)``: characters that could end or break the link are %-encoded."""
    return quote(url, safe="/:?#@!$&'*+,;=%-._~")


def _outside_code(text: str) -> Iterable[tuple[str, bool]]:
    """Split Markdown into ``(piece, is_code)``: fenced blocks and inline code spans are code."""
    lines = text.splitlines(keepends=True)
    fence = ""
    buf: list[str] = []
    for line in lines:
        m = _FENCE.match(line)
        if fence:
            buf.append(line)
            if (
                m
                and m.group(1)[0] == fence[0]
                and len(m.group(1)) >= len(fence)
                and not line.strip()[len(m.group(1)) :]
            ):
                yield "".join(buf), True
                buf, fence = [], ""
            continue
        if m:
            if buf:
                yield from _inline_code("".join(buf))
                buf = []
            fence = m.group(1)
            buf.append(line)
            continue
        buf.append(line)
    if buf:
        if fence:
            yield "".join(buf), True
        else:
            yield from _inline_code("".join(buf))


def _inline_code(text: str) -> Iterable[tuple[str, bool]]:
    pos = 0
    for m in re.finditer(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)", text):
        if m.start() > pos:
            yield text[pos : m.start()], False
        yield m.group(), True
        pos = m.end()
    if pos < len(text):
        yield text[pos:], False


def render_markdown(
    answer: CitedAnswer,
    *,
    style: Literal["links", "footnotes", "plain"] = "links",
    heading: str = "References",
    quotes: bool = False,
) -> str:
    """The answer's text with its markers, then a reference list of the cited sources only.

    ``links``: each ``[n]`` links to its entry (``#ref-n``); ``footnotes``: ``[^n]`` footnotes;
    ``plain``: ``[n]`` as written. The answer text is the model's Markdown and is passed through;
    titles, authors and other metadata are escaped, and only http(s) URLs from source metadata become
    links. With ``quotes``, each entry also quotes the cited text.
    """
    numbers = {ref.number for ref in answer.references}

    def marker(m: re.Match[str]) -> str:
        n = int(m.group(1))
        if n not in numbers:
            return m.group()
        if style == "links":
            return f"[\\[{n}\\]](#ref-{n})"
        if style == "footnotes":
            return f"[^{n}]"
        return m.group()

    text = "".join(
        piece if code else _MARKER.sub(marker, piece) for piece, code in _outside_code(answer.text)
    )
    if not answer.references:
        return text
    by_ref: dict[int, list[Citation]] = {}
    for citation in answer.citations:
        by_ref.setdefault(citation.reference, []).append(citation)
    lines = [text.rstrip(), ""]
    if style != "footnotes":
        lines += [f"**{_md_escape(heading)}**", ""]
    for ref in answer.references:
        source = ref.source
        title = _md_escape(source.label)
        url = safe_url(source.url)
        entry = f"[{title}]({_md_url(url)})" if url else title
        if source.author:
            entry += f", {_md_escape(source.author)}"
        pages = _page_text(_pages(ref, by_ref.get(ref.number, [])), _LABELS["en"])
        if pages:
            entry += f", {pages}"
        if quotes:
            cited = [c.cited_text for c in by_ref.get(ref.number, [])]
            entry += "".join(f" — “{_md_escape(q)}”" for q in dict.fromkeys(cited))
        if style == "footnotes":
            lines.append(f"[^{ref.number}]: {entry}")
        elif style == "links":
            lines.append(f'{ref.number}. <a id="ref-{ref.number}"></a>{entry}')
        else:
            lines.append(f"{ref.number}. {entry}")
    return "\n".join(lines).rstrip() + "\n"


# -- HTML -----------------------------------------------------------------------------------------

STYLE = """
.cite-answer{--c-fg:#1f2328;--c-muted:#59636e;--c-bg:#fff;--c-soft:#f6f8fa;--c-line:#d1d9e0;
--c-accent:#0b5cad;--c-accent-bg:#e7f0fb;--c-mark:#fff1a8;--c-mark-strong:#ffd43b;--c-tip:#1f2328;--c-tip-fg:#f6f8fa;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","PingFang SC","Hiragino Sans GB",
"Noto Sans CJK SC","Source Han Sans SC","Microsoft YaHei",sans-serif;color:var(--c-fg);line-height:1.65;
font-size:1rem;max-width:46rem;overflow-wrap:break-word}
.cite-answer:lang(zh),.cite-answer:lang(ja){line-height:1.8;line-break:strict}
@media (prefers-color-scheme:dark){.cite-answer{--c-fg:#e6edf3;--c-muted:#9198a1;--c-bg:#151b23;--c-soft:#1f2630;
--c-line:#3d444d;--c-accent:#6cb6ff;--c-accent-bg:#1c2d41;--c-mark:#5a4a00;--c-mark-strong:#8a6d00;--c-tip:#f0f3f6;
--c-tip-fg:#1f2328}}
.cite-answer *{box-sizing:border-box}
.cite-text{white-space:pre-line;margin:0 0 1rem}
.cite-sup{position:relative;line-height:0;font-size:.72em;vertical-align:super;white-space:nowrap;margin:0 .06em}
.cite-marker{display:inline;padding:.1em .32em;border-radius:.6em;text-align:center;
text-decoration:none;font-weight:600;line-height:1.2;color:var(--c-accent);background:var(--c-accent-bg);
font-variant-numeric:tabular-nums}
.cite-marker:hover{text-decoration:underline}
.cite-marker:focus-visible{outline:2px solid var(--c-accent);outline-offset:2px}
.cite-marker.cite-weak{background:transparent;border:1px dashed var(--c-accent)}
.cite-br{display:none}
.cite-tip{display:none;position:absolute;z-index:20;bottom:calc(100% + .55rem);left:50%;
transform:translateX(calc(-50% + var(--cite-shift,0px)));width:max-content;max-width:min(24rem,86vw);
padding:.6rem .75rem;border-radius:.5rem;background:var(--c-tip);color:var(--c-tip-fg);font-size:.86rem;
font-weight:400;line-height:1.5;text-align:left;white-space:normal;box-shadow:0 6px 24px rgba(0,0,0,.22)}
.cite-tip::after{content:"";position:absolute;top:100%;left:calc(50% - var(--cite-shift,0px));margin-left:-6px;
border:6px solid transparent;border-top-color:var(--c-tip)}
.cite-sup.cite-tip-below .cite-tip{bottom:auto;top:calc(100% + .55rem)}
.cite-sup.cite-tip-below .cite-tip::after{top:auto;bottom:100%;border-top-color:transparent;border-bottom-color:var(--c-tip)}
.cite-sup:hover .cite-tip,.cite-sup:focus-within .cite-tip,.cite-sup.cite-tip-measure .cite-tip{display:block}
.cite-sup.cite-tip-off .cite-tip{display:none}
.cite-tip-title{display:block;font-weight:600;margin-bottom:.25rem}
.cite-tip-quote{display:block;opacity:.92}
.cite-tip-quote+.cite-tip-quote{margin-top:.35rem}
.cite-tip-note{display:block;margin-top:.3rem;font-size:.78rem;opacity:.75}
.cite-note{color:var(--c-muted);font-size:.85rem;margin:.25rem 0}
.cite-refs{border-top:1px solid var(--c-line);padding-top:.5rem;margin-top:1rem}
.cite-refs>summary{cursor:pointer;font-weight:600;color:var(--c-muted);padding:.25rem 0}
.cite-refs>summary:focus-visible{outline:2px solid var(--c-accent);outline-offset:2px}
.cite-ref-list{list-style:none;margin:.25rem 0 0;padding:0}
.cite-ref{display:grid;grid-template-columns:2.2em 1fr;gap:0 .35rem;padding:.45rem 0;
border-bottom:1px solid var(--c-soft)}
.cite-ref:last-child{border-bottom:0}
.cite-ref-num{color:var(--c-accent);font-weight:600;font-variant-numeric:tabular-nums}
.cite-ref-body{min-width:0}
.cite-ref-title{font-weight:600;color:var(--c-fg)}
a.cite-ref-title{color:var(--c-accent);text-decoration:none}
a.cite-ref-title:hover{text-decoration:underline}
.cite-ref-meta{color:var(--c-muted);font-size:.88rem}
.cite-url{display:block;color:var(--c-muted);font-size:.8rem;overflow-wrap:anywhere}
.cite-passages{list-style:none;margin:.35rem 0 0;padding:0}
.cite-passage{margin:.3rem 0;padding:.4rem .6rem;border-left:3px solid var(--c-line);background:var(--c-soft);
border-radius:0 .35rem .35rem 0;font-size:.9rem;color:var(--c-muted);scroll-margin:4rem}
.cite-passage:target,.cite-passage.cite-current{border-left-color:var(--c-accent);color:var(--c-fg);
box-shadow:0 0 0 2px var(--c-accent-bg)}
.cite-passage mark,.cite-source mark{background:var(--c-mark);color:inherit;padding:0 .05em;border-radius:.15em}
.cite-passage:target mark,.cite-passage.cite-current mark,.cite-source mark.cite-active{background:var(--c-mark-strong)}
.cite-passage-page{font-size:.78rem;margin-right:.35rem}
.cite-back{margin-left:.35rem;text-decoration:none;color:var(--c-accent)}
.cite-panel{position:fixed;z-index:40;top:0;right:0;bottom:0;width:min(30rem,94vw);overflow:auto;
background:var(--c-bg);color:var(--c-fg);border-left:1px solid var(--c-line);box-shadow:-8px 0 32px rgba(0,0,0,.18);
padding:1rem 1.2rem 2rem}
.cite-panel[hidden],.cite-source[hidden]{display:none}
.cite-panel:focus{outline:none}
.cite-panel-bar{display:flex;justify-content:space-between;align-items:center;gap:.5rem;position:sticky;top:-1rem;
margin:-1rem -1.2rem .75rem;padding:.6rem 1.2rem;background:var(--c-bg);border-bottom:1px solid var(--c-line)}
.cite-panel-label{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--c-muted)}
.cite-close{font:inherit;font-size:.9rem;cursor:pointer;border:1px solid var(--c-line);background:var(--c-soft);
color:var(--c-fg);border-radius:.4rem;padding:.2rem .6rem}
.cite-close:focus-visible{outline:2px solid var(--c-accent);outline-offset:2px}
.cite-source-head{margin:0 0 .2rem;font-size:1.05rem;line-height:1.4}
.cite-source-head:focus{outline:none}
.cite-source-body{white-space:pre-wrap;font-size:.93rem;line-height:1.7;margin-top:.75rem}
.cite-page-label{display:block;margin:.9rem 0 .2rem;font-size:.75rem;color:var(--c-muted);font-weight:600;
text-transform:uppercase;letter-spacing:.05em}
.cite-source mark.cite-active{outline:2px solid var(--c-mark-strong)}
@media print{.cite-panel,.cite-tip{display:none!important}}
""".strip()

SCRIPT = """
(function(){
"use strict";
function init(root){
if(root.getAttribute("data-cite-ready"))return;
root.setAttribute("data-cite-ready","1");
var panel=root.querySelector(".cite-panel");
var opener=null,returning=false;
function tipFor(sup){return sup.querySelector(".cite-tip");}
function place(sup){
var tip=tipFor(sup);if(!tip||returning)return;
sup.classList.remove("cite-tip-off","cite-tip-below");
sup.classList.add("cite-tip-measure");
tip.style.setProperty("--cite-shift","0px");
var r=tip.getBoundingClientRect(),w=document.documentElement.clientWidth,s=0;
sup.classList.remove("cite-tip-measure");
if(r.top<8)sup.classList.add("cite-tip-below");
if(r.left<8)s=8-r.left;else if(r.right>w-8)s=w-8-r.right;
tip.style.setProperty("--cite-shift",s+"px");
}
function close(){
if(!panel||panel.hidden)return;
panel.hidden=true;
if(opener){returning=true;opener.focus();returning=false;opener=null;}
}
function open(marker){
if(!panel)return false;
var ref=marker.getAttribute("data-ref"),ids=(marker.getAttribute("data-cites")||"").split(" ");
var src=null,list=panel.querySelectorAll(".cite-source");
for(var i=0;i<list.length;i++){var hit=list[i].getAttribute("data-ref")===ref;list[i].hidden=!hit;if(hit)src=list[i];}
if(!src)return false;
var marks=panel.querySelectorAll("mark.cite-active");
for(i=0;i<marks.length;i++)marks[i].classList.remove("cite-active");
var first=null;
marks=src.querySelectorAll("mark[data-c]");
for(i=0;i<marks.length;i++){
var own=(marks[i].getAttribute("data-c")||"").split(" ");
for(var j=0;j<ids.length;j++){if(ids[j]&&own.indexOf(ids[j])>=0){marks[i].classList.add("cite-active");if(!first)first=marks[i];break;}}
}
opener=marker;
var sup=marker.closest(".cite-sup");if(sup)sup.classList.add("cite-tip-off");
panel.hidden=false;
var head=src.querySelector(".cite-source-head");
if(head)head.focus({preventScroll:true});else panel.focus({preventScroll:true});
if(first)first.scrollIntoView({block:"center"});
return true;
}
var sups=root.querySelectorAll(".cite-sup");
for(var i=0;i<sups.length;i++){(function(sup){
var a=sup.querySelector(".cite-marker");
sup.addEventListener("mouseenter",function(){place(sup);});
sup.addEventListener("mouseleave",function(){if(sup.contains(document.activeElement))sup.classList.add("cite-tip-off");});
a.addEventListener("focus",function(){place(sup);});
a.addEventListener("click",function(e){if(e.ctrlKey||e.metaKey||e.shiftKey)return;if(open(a))e.preventDefault();});
if(panel)a.setAttribute("aria-controls",panel.id);
})(sups[i]);}
root.addEventListener("keydown",function(e){
if(e.key!=="Escape")return;
if(panel&&!panel.hidden){close();e.preventDefault();return;}
var sup=e.target&&e.target.closest&&e.target.closest(".cite-sup");
if(sup){sup.classList.add("cite-tip-off");e.preventDefault();}
});
if(panel){var b=panel.querySelector(".cite-close");if(b)b.addEventListener("click",close);}
}
function all(){var roots=document.querySelectorAll(".cite-answer");for(var i=0;i<roots.length;i++)init(roots[i]);}
if(document.readyState==="loading")document.addEventListener("DOMContentLoaded",all);else all();
})();
""".strip()


PAGE_STYLE = (
    "body{margin:0;background:#fff}@media (prefers-color-scheme:dark){body{background:#151b23}}"
    ".cite-page{max-width:48rem;margin:0 auto;padding:2rem 1.25rem 4rem}"
    '.cite-page-title{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Noto Sans CJK SC",'
    '"Microsoft YaHei",sans-serif;font-size:1.35rem;line-height:1.4;margin:0 0 1rem;color:#1f2328}'
    "@media (prefers-color-scheme:dark){.cite-page-title{color:#e6edf3}}"
)
"""The extra style of the full page (around the fragment)."""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(*, script: bool = True, extra_styles: Iterable[str] = ()) -> str:
    """The CSP that allows exactly this module's inline style and script (by hash) and nothing else.

    Send it (or merge it into yours) when you embed ``render_html`` fragments in your own pages;
    ``extra_styles`` are the texts of other inline ``<style>`` elements to allow.
    """
    styles = " ".join(_hash(text) for text in (STYLE, *extra_styles))
    parts = [
        "default-src 'none'",
        f"style-src {styles}",
        f"script-src {_hash(SCRIPT)}" if script else "script-src 'none'",
        "img-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    return "; ".join(parts)


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _link(url: str | None, text_html: str, cls: str) -> str:
    """An ``<a>`` to ``url`` when it is http(s), else the text alone (the URL shown as text elsewhere)."""
    safe = safe_url(url)
    if safe is None:
        return f'<span class="{cls}">{text_html}</span>'
    return f'<a class="{cls}" href="{_esc(safe)}" rel="noopener noreferrer nofollow" target="_blank">{text_html}</a>'


def _source_meta(ref: Reference, citations: list[Citation], labels: dict[str, str]) -> str:
    source = ref.source
    bits = []
    if source.author:
        bits.append(_esc(_one_line(source.author)))
    pages = _page_text(_pages(ref, citations), labels)
    if pages:
        bits.append(_esc(pages))
    for key in ("date", "published", "year"):
        value = source.metadata.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            bits.append(_esc(_one_line(str(value))))
            break
    return f'<span class="cite-ref-meta">{" · ".join(bits)}</span>' if bits else ""


def _url_line(source: Source) -> str:
    """The URL as plain text under the title (always text: unsafe URLs are never links)."""
    if not source.url or source.url == source.label:
        return ""
    return f'<span class="cite-url">{_esc(_one_line(source.url))}</span>'


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


def _source_body(source: Source, spans: list[tuple[int, int, int]], labels: dict[str, str]) -> str:
    """The whole source text, cited spans wrapped in ``<mark data-c="ids">`` (overlaps split)."""
    out = []
    for index, seg in enumerate(source.segments):
        if seg.page is not None:
            out.append(
                f'<span class="cite-page-label">{_esc(_page_text((seg.page, seg.page), labels))}</span>'
            )
        elif index:
            out.append('<span class="cite-page-label">…</span>')
        cuts = {seg.start, seg.end}
        for cid, s, e in spans:
            for x in (s, e):
                if seg.start < x < seg.end:
                    cuts.add(x)
        points = sorted(cuts)
        for a, b in zip(points, points[1:]):
            piece = _esc(source.text[a:b])
            ids = [str(cid) for cid, s, e in spans if s < b and e > a and s < e]
            out.append(f'<mark data-c="{" ".join(ids)}">{piece}</mark>' if ids else piece)
        if index < len(source.segments) - 1 and seg.page is None:
            out.append("\n")
    return "".join(out)


def _prefix(answer: CitedAnswer, id_prefix: str | None) -> str:
    if id_prefix is not None:
        if not _PREFIX.fullmatch(id_prefix):
            raise ValueError(f"id_prefix must match {_PREFIX.pattern}, got {id_prefix!r}")
        return id_prefix
    digest = hashlib.sha1(answer.model_dump_json().encode("utf-8")).hexdigest()[:8]
    return f"cite-{digest}"


def render_html(
    answer: CitedAnswer,
    *,
    full_page: bool = False,
    title: str = "Answer",
    lang: str | None = None,
    id_prefix: str | None = None,
    script: bool = True,
    style: bool = True,
    references_open: bool = True,
) -> str:
    """Safe HTML of the answer with citation markers, tooltips, a reference list and a source panel.

    Every string is escaped; links go only to http(s) URLs from source metadata, never from the model.
    ``full_page`` returns a self-contained document with a Content-Security-Policy allowing only the
    inline style and script of this module; otherwise a fragment (``<div class="cite-answer">``) that
    carries its own ``<style>`` and ``<script>`` (``style``/``script`` to leave them out) and works
    without script. ``lang`` is ``"en"`` or ``"zh"`` for the labels (detected from the text by
    default); ``id_prefix`` makes element ids unique when several answers share a page.
    """
    if lang is None:
        lang = "zh" if _is_cjk(answer.plain_text or answer.text) else "en"
    labels = _LABELS.get(lang.split("-")[0].lower(), _LABELS["en"])
    p = _prefix(answer, id_prefix)

    # Citation ids: one per distinct (reference, span); each marker lists the ids it shows.
    cids: dict[tuple[int, int, int], int] = {}
    by_ref: dict[int, list[tuple[int, Citation]]] = {}
    for citation in answer.citations:
        key = (citation.reference, citation.source_start, citation.source_end)
        if key not in cids:
            cids[key] = len(cids) + 1
            by_ref.setdefault(citation.reference, []).append((cids[key], citation))
    refs = {ref.number: ref for ref in answer.references}
    threshold = answer.unsupported_threshold

    body = []
    for block in answer.content:
        body.append(_esc(block.text))
        groups: dict[int, list[Citation]] = {}
        for citation in block.citations or []:
            if citation.reference in refs:
                groups.setdefault(citation.reference, []).append(citation)
        for number, citations in groups.items():
            ref = refs[number]
            ids = list(dict.fromkeys(cids[(c.reference, c.source_start, c.source_end)] for c in citations))
            weak = all(c.support < threshold for c in citations)
            quotes = "".join(
                f'<span class="cite-tip-quote">“{_esc(q)}”</span>'
                for q in dict.fromkeys(_one_line(c.cited_text) for c in citations)
            )
            pages = _page_text(_pages(ref, citations), labels) if ref.source.kind == "pages" else None
            head = _esc(_one_line(ref.source.label)) + (f" · {_esc(pages)}" if pages else "")
            note = f'<span class="cite-tip-note">{_esc(labels["weak"])}</span>' if weak else ""
            tip_id = f"{p}-tip-{ids[0]}"
            body.append(
                f'<sup class="cite-sup"><a class="cite-marker{" cite-weak" if weak else ""}" id="{p}-m-{ids[0]}" '
                f'href="#{p}-c-{ids[0]}" data-ref="{number}" data-cites="{" ".join(map(str, ids))}" '
                f'aria-label="{_esc(labels["reference"])} {number}" aria-describedby="{tip_id}">[{number}]</a>'
                f'<span class="cite-tip" role="tooltip" id="{tip_id}">'
                f'<span class="cite-tip-title">{head}</span>{quotes}{note}</span></sup>'
            )
    parts = [
        f'<div class="cite-answer" id="{p}" lang="{_esc(lang)}">',
        f"<style>{STYLE}</style>" if style else "",
        f'<div class="cite-text">{"".join(body)}</div>',
    ]
    for note in answer_notes(answer, lang):
        parts.append(f'<p class="cite-note cite-note-{note.kind}">{_esc(note.text)}</p>')
    if answer.references:
        parts.append(
            f'<details class="cite-refs"{" open" if references_open else ""}>'
            f"<summary>{_esc(labels['references'])} ({len(answer.references)})</summary>"
            f'<ol class="cite-ref-list" aria-label="{_esc(labels["references"])}">'
        )
        for ref in answer.references:
            cited = by_ref.get(ref.number, [])
            source = ref.source
            passages = []
            for cid, c in cited:
                before, span, after, page = _context(source, c.source_start, c.source_end)
                page_html = (
                    f'<span class="cite-passage-page">{_esc(_page_text((page, page), labels))}</span>'
                    if page is not None
                    else ""
                )
                passages.append(
                    f'<li class="cite-passage" id="{p}-c-{cid}" tabindex="-1">{page_html}'
                    f"{_esc(before)}<mark>{_esc(span)}</mark>{_esc(after)}"
                    f'<a class="cite-back" href="#{p}-m-{cid}" aria-label="{_esc(labels["back"])}">↩</a></li>'
                )
            title_html = _esc(_one_line(source.label))
            parts.append(
                f'<li class="cite-ref" id="{p}-ref-{ref.number}"><span class="cite-ref-num">[{ref.number}]</span>'
                f'<div class="cite-ref-body">{_link(source.url, title_html, "cite-ref-title")} '
                f"{_source_meta(ref, [c for _, c in cited], labels)}{_url_line(source)}"
                + (
                    f'<ul class="cite-passages" aria-label="{_esc(labels["cited"])}">{"".join(passages)}</ul>'
                    if passages
                    else ""
                )
                + "</div></li>"
            )
        parts.append("</ol></details>")
        if script:
            parts.append(
                f'<aside class="cite-panel" id="{p}-panel" role="dialog" aria-modal="false" '
                f'aria-label="{_esc(labels["sources"])}" tabindex="-1" hidden>'
                f'<div class="cite-panel-bar"><span class="cite-panel-label">{_esc(labels["source"])}</span>'
                f'<button type="button" class="cite-close">{_esc(labels["close"])} ✕</button></div>'
            )
            for ref in answer.references:
                source = ref.source
                cited = by_ref.get(ref.number, [])
                spans = [(cid, c.source_start, c.source_end) for cid, c in cited]
                title_html = _esc(_one_line(source.label))
                parts.append(
                    f'<section class="cite-source" data-ref="{ref.number}" hidden>'
                    f'<h2 class="cite-source-head" tabindex="-1">[{ref.number}] '
                    f"{_link(source.url, title_html, 'cite-ref-title')}</h2>"
                    f"{_source_meta(ref, [c for _, c in cited], labels)}{_url_line(source)}"
                    f'<div class="cite-source-body">{_source_body(source, spans, labels)}</div></section>'
                )
            parts.append("</aside>")
    if script and answer.references:
        parts.append(f"<script>{SCRIPT}</script>")
    parts.append("</div>")
    fragment = "".join(parts)
    if not full_page:
        return fragment
    csp = content_security_policy(script=script, extra_styles=(PAGE_STYLE,))
    return (
        f'<!DOCTYPE html><html lang="{_esc(lang)}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{_esc(csp)}">'
        f"<title>{_esc(_one_line(title))}</title><style>{PAGE_STYLE}</style></head>"
        f'<body><main class="cite-page"><h1 class="cite-page-title">{_esc(_one_line(title))}</h1>'
        f"{fragment}</main></body></html>"
    )
