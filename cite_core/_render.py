"""Render a cited answer as Markdown or as safe, self-contained HTML."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from ._models import CitedAnswer, Reference

__all__ = ["render_html", "render_markdown", "safe_url"]


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL without spaces or control characters, else ``None``."""
    if not url or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def _reference_line(ref: Reference) -> str:
    source = ref.source
    parts = [source.label]
    if source.author:
        parts.append(source.author)
    pages = source.pages
    if pages:
        parts.append(f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}-{pages[-1]}")
    return ", ".join(parts)


def _md_escape(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


def render_markdown(
    answer: CitedAnswer, *, style: Literal["links", "footnotes", "plain"] = "links", heading: str = "References"
) -> str:
    """The answer's text with its markers, then a reference list of the cited sources only.

    ``links``: each ``[n]`` links to its entry (``#ref-n``); ``footnotes``: ``[^n]`` footnotes;
    ``plain``: ``[n]`` as written.
    """
    text = answer.text
    for ref in answer.references:
        n = ref.number
        marker = f"[{n}]"
        if style == "links":
            text = text.replace(marker, f"[\\[{n}\\]](#ref-{n})")
        elif style == "footnotes":
            text = text.replace(marker, f"[^{n}]")
    if not answer.references:
        return text
    lines = [text.rstrip(), "", f"**{heading}**" if style != "footnotes" else ""]
    for ref in answer.references:
        entry = _md_escape(_reference_line(ref))
        url = safe_url(ref.url)
        if url and ref.source.title:
            entry += f" <{url}>"
        if style == "footnotes":
            lines.append(f"[^{ref.number}]: {entry}")
        elif style == "links":
            lines.append(f'{ref.number}. <a id="ref-{ref.number}"></a>{entry}')
        else:
            lines.append(f"{ref.number}. {entry}")
    return "\n".join(line for line in lines if line is not None).rstrip() + "\n"


def render_html(answer: CitedAnswer, *, full_page: bool = False, title: str = "Answer") -> str:
    """Every string escaped; links only to http(s) URLs from source metadata, never from the model."""
    esc = html.escape
    parts = ['<div class="cited-answer"><p class="cited-text">']
    for block in answer.content:
        parts.append(esc(block.text).replace("\n", "<br>"))
        seen: set[int] = set()
        for citation in block.citations or []:
            if citation.reference in seen:
                continue
            seen.add(citation.reference)
            tip = esc(f"{citation.document_title or 'Source'}: {citation.cited_text}")
            parts.append(
                f'<sup class="cite"><a href="#ref-{citation.reference}" title="{tip}" '
                f'aria-label="Reference {citation.reference}">[{citation.reference}]</a></sup>'
            )
    parts.append("</p>")
    if answer.references:
        parts.append('<details class="references" open><summary>References</summary><ol>')
        for ref in answer.references:
            url = safe_url(ref.url)
            label = esc(_reference_line(ref))
            link = f'<a href="{esc(url)}" rel="noopener noreferrer">{label}</a>' if url else label
            parts.append(f'<li id="ref-{ref.number}" value="{ref.number}">{link}</li>')
        parts.append("</ol></details>")
    parts.append("</div>")
    body = "".join(parts)
    if not full_page:
        return body
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{esc(title)}</title></head><body>{body}</body></html>"
    )
