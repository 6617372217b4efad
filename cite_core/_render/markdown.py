"""The answer as Markdown: the model's text, our markers, the notes and a reference list.

Safe by default: the model's text is Markdown that a renderer will turn into HTML, so everything in it
that could become markup or a link of its own is neutralised with character references, which every
CommonMark, GFM and python-markdown renderer shows as the character itself:

- ``<`` that could open a tag, comment, declaration or autolink (followed by a letter, ``/``, ``!``,
  ``?``) becomes ``&lt;``;
- ``]`` that would close a link or image text before a target that is not absolute http(s)
  (``[x](javascript:...)``, ``[x](data:...)``), or open a reference definition (``[x]: vbscript:...``),
  becomes ``&#93;``; so does the ``]`` of a definition of a number (``[1]: https://...``), which would
  turn our ``[1]`` markers (style ``plain``) into links.

This applies inside code spans and fences too (they then show ``&lt;``): deciding what is code is
where Markdown renderers disagree, and a disagreement would let HTML through. ``safe=False`` copies
the model's text as it is. Our own markers, notes and reference links are escaped or built from
``safe_url`` URLs in both modes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from .blocks import citations_by_reference, walk
from .labels import detect_lang, labels_for, one_line, page_text, pages_cited, short
from .notes import Note, answer_notes
from .urls import md_url, safe_url

if TYPE_CHECKING:
    from .._models import CitedAnswer

__all__ = ["escape_model_markdown", "render_markdown"]

_MD_SPECIAL = set("\\`*_[]<>()#|!~&$")
_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")
_HTTP = re.compile(r"<?https?://", re.IGNORECASE)
_LINK_CLOSE = re.compile(r"\](?=\s*\(\s*)")
_DEFINITION = re.compile(r"^([ \t]{0,3}\[(?!\^)([^\]\n]{0,999}))\](?=:)", re.MULTILINE)


def _md_escape(text: str) -> str:
    """Escape Markdown and inline-HTML syntax in a metadata string (one line, cut to the label length)."""
    return _escaped(short(text))


def _escaped(line: str) -> str:
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in line)


def _unsafe_target(text: str, after: int) -> bool:
    """Whether the link target that starts after ``after`` (at ``(`` or ``:``) is not absolute http(s)."""
    rest = text[after : after + 600].lstrip()[1:].lstrip()
    return not _HTTP.match(rest)


def escape_model_markdown(text: str) -> str:
    """``text`` with raw HTML and links to anything but http(s) neutralised (see the module docstring)."""
    text = _TAG_OPEN.sub("&lt;", text)
    text = _LINK_CLOSE.sub(lambda m: "&#93;" if _unsafe_target(text, m.end()) else "]", text)
    return _DEFINITION.sub(
        lambda m: (
            m.group(1) + ("&#93;" if m.group(2).strip().isdigit() or _unsafe_target(text, m.end()) else "]")
        ),
        text,
    )


def render_markdown(
    answer: CitedAnswer,
    *,
    style: Literal["links", "footnotes", "plain"] = "links",
    heading: str | None = None,
    quotes: bool = False,
    safe: bool = True,
    lang: str | None = None,
    notes: Sequence[Note] | None = None,
) -> str:
    """The answer's text with its markers, the notes as a quote, then a list of the cited sources only.

    ``links``: each ``[n]`` links to its entry (``#ref-n``); ``footnotes``: ``[^n]`` footnotes;
    ``plain``: ``[n]`` as written. With ``safe`` (the default) raw HTML and non-http(s) links in the
    model's text are neutralised; titles, authors and other metadata are always escaped, and only
    http(s) URLs from source metadata become links. ``quotes`` adds the cited text to each entry.
    ``lang`` (``en``, ``es``, ``zh``; guessed by default) words the heading and the notes.
    """
    lang = lang or detect_lang(answer.plain_text)
    labels = labels_for(lang)
    notes = answer_notes(answer, lang) if notes is None else notes
    clean = escape_model_markdown if safe else str
    pieces, run = [], []
    for piece in walk(answer):
        run.append(piece.text)
        if piece.markers:
            pieces += [clean("".join(run)), piece.lead, *(_marker(m.number, style) for m in piece.markers)]
            run = [piece.tail]
    pieces.append(clean("".join(run)))
    lines = ["".join(pieces).rstrip()]
    for i, note in enumerate(notes):
        lines += ["" if i == 0 else ">", f"> {_md_escape_note(note.text)}"]
    if answer.references:
        lines.append("")
        if style != "footnotes":
            lines += [f"**{_md_escape(heading or labels['references'])}**", ""]
        lines += _entries(answer, style, quotes, labels)
    return "\n".join(lines).strip("\n") + "\n"


def _md_escape_note(text: str) -> str:
    return _escaped(one_line(text))


def _marker(number: int, style: str) -> str:
    if style == "links":
        return f"[\\[{number}\\]](#ref-{number})"
    if style == "footnotes":
        return f"[^{number}]"
    return f"[{number}]"


def _entries(answer: CitedAnswer, style: str, quotes: bool, labels: dict[str, str]) -> list[str]:
    by_ref = citations_by_reference(answer)
    lines = []
    for ref in answer.references:
        source, cited = ref.source, by_ref.get(ref.number, [])
        title = _md_escape(source.label)
        url = safe_url(source.url)
        entry = f"[{title}]({md_url(url)})" if url else title
        if style == "footnotes" and not url and ":" in title.split(" ", 1)[0]:
            # Read by a renderer without footnotes, the definition is a link definition whose target is
            # the entry's first word: a word with a colon (``javascript:...``) is put in *emphasis*.
            entry = f"*{title}*"
        if source.author:
            entry += f", {_md_escape(source.author)}"
        pages = page_text(pages_cited(ref, cited), labels, ref.source.metadata.get("page_labels"))
        if pages:
            entry += f", {pages}"
        if quotes:
            entry += "".join(f" — “{_md_escape_note(q)}”" for q in dict.fromkeys(c.cited_text for c in cited))
        if style == "footnotes":
            lines.append(f"[^{ref.number}]: {entry}")
        elif style == "links":
            lines.append(f'{ref.number}. <a id="ref-{ref.number}"></a>{entry}')
        else:
            lines.append(f"{ref.number}. {entry}")
    return lines
