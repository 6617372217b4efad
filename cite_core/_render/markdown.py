"""The answer as Markdown: the model's text, our markers, the notes and a reference list.

Safe by default. Markdown renderers (CommonMark, GFM with its autolink and footnote extensions,
python-markdown) turn text into HTML and links, and they disagree at the edges (what is code, what a
label or a destination may hold, what a backslash escapes). So rather than recognising dangerous
constructs one by one, every character that could open a link, an image, a reference or footnote
definition, raw HTML or an autolink is written as a character reference (``&#91;``), which every one of
them shows as the character itself and none reads as syntax:

- in the model's text: every ``[``, ``]``, ``{`` and ``}`` (attribute lists: python-markdown's
  ``attr_list``, part of ``extra``, and markdown-it's ``attrs`` put ``{: onclick=...}`` on elements);
  ``<`` unless a space or ``=`` follows; the ``:`` of ``scheme://`` for any scheme but http(s) (GFM
  links ``ftp://``); the first ``/`` of ``//host`` (markdown-it's ``linkify`` makes it a
  protocol-relative link); a ``!`` or ``\\`` just before one
  of our markers and a ``(`` or ``:`` just after one (``[1](javascript:...)``, ``[1]: ...``). One
  construct is kept: a link ``[text](URL)`` whose URL ``safe_url`` accepts is rebuilt from its parts
  (text escaped as above, URL %-encoded);
- in metadata (titles, authors, cited passages, notes, the heading), which is one line and never
  starts one: every ``\\ ` * _ [ ] < > ( ) { } ^ | & ~``, the ``.`` of ``www.``, a ``:`` before
  ``/`` (GFM autolinks ``https://``) and a ``/`` before ``/`` (linkify's protocol-relative ``//host``);
- in the ``footnotes`` style, every entry ends in `` &#160;`` (a no-break space), so that a renderer
  without footnotes cannot read ``[^1]: //evil.example`` or ``[^1]: x "y"`` as a link definition for
  our ``[^1]``: a definition's destination and title must end the line.

Model text therefore keeps its emphasis, lists, headings, tables and code, but inside code spans and
fences the references show as written (``&#91;``): deciding what is code is where renderers disagree,
and a disagreement would let a link or HTML through. Invisible format characters are shown
(:func:`reveal_invisible`) in both modes, so ``[<U+202E>1]`` does not look like a marker.
``safe=False`` otherwise copies the model's text as it is. Our own markers, notes and reference links
are escaped or built from ``safe_url`` URLs in both modes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from .._args import check_choice, check_flag, check_text
from .blocks import citations_by_reference, walk
from .labels import cited_pages, detect_lang, labels_for, one_line, short, short_name
from .location import reference_link, source_path
from .notes import Note, answer_notes, check_render_args
from .reveal import reveal_invisible
from .urls import md_url, safe_url

if TYPE_CHECKING:
    from .._schema.models import Citation, CitedAnswer, Reference

__all__ = ["escape_metadata_markdown", "escape_model_markdown", "render_markdown"]

_META = {ord(c): f"&#{ord(c)};" for c in "\\`*_[]<>(){}^|&~"}
_META_IN_CONTEXT = re.compile(r"(?<=www)\.|:(?=/)|(?<!:)/(?=/)", re.IGNORECASE)
_SAFE_LINK = re.compile(
    r"(?<![!\\])\[([^\[\]\n\\`<>]{1,300})\]\((https?://[^\s()<>\[\]\"'`\\]{1,2000})\)", re.IGNORECASE
)
_MODEL = re.compile(
    r"[\[\]{}]|<(?![ \t\r\n=]|$)|(?<![Hh][Tt][Tt][Pp])(?<![Hh][Tt][Tt][Pp][Ss])(?<=\w):(?=//)"
    r"|(?<![:/])/(?=/[^\W_])"
)
"""What opens a construct in model text: ``[ ]``; ``{ }`` (attribute lists of python-markdown's
``attr_list``/``extra`` and markdown-it's ``attrs``: ``{: onclick=...}``, ``*x*{onmouseover=...}``); ``<``
before a tag; the ``:`` of a non-http ``scheme://``; the first ``/`` of a protocol-relative ``//host``
(markdown-it's ``linkify`` links it)."""


def _entity(match: re.Match[str]) -> str:
    char = match.group()
    return "&lt;" if char == "<" else f"&#{ord(char)};"


def _md_escape(text: str) -> str:
    """Metadata on one line, cut to the label length, with every construct opener escaped."""
    return escape_metadata_markdown(short(reveal_invisible(text)))


def escape_metadata_markdown(line: str) -> str:
    """``line`` (a title, author, note) with every character that could open Markdown syntax escaped."""
    return _META_IN_CONTEXT.sub(_entity, line.translate(_META))


def _escape_plain(text: str) -> str:
    return _MODEL.sub(_entity, text)


def escape_model_markdown(text: str) -> str:
    """``text`` with raw HTML and every link but http(s) ones neutralised (see the module docstring)."""
    out, last = [], 0
    for m in _SAFE_LINK.finditer(text):
        url = safe_url(m.group(2))
        if url is None:
            continue
        out += [_escape_plain(text[last : m.start()]), f"[{_escape_plain(m.group(1))}]({md_url(url)})"]
        last = m.end()
    out.append(_escape_plain(text[last:]))
    return "".join(out)


def _model_piece(text: str, safe: bool, after_marker: bool, before_marker: bool) -> str:
    """One run of model text between our markers: revealed, escaped, and fenced off from the markers."""
    text = reveal_invisible(text)
    if not safe:
        return text
    text = escape_model_markdown(text)
    if after_marker and text[:1] in ("(", ":"):
        text = f"&#{ord(text[0])};" + text[1:]
    if before_marker and text[-1:] in ("!", "\\"):
        text = text[:-1] + f"&#{ord(text[-1])};"
    return text


def render_markdown(
    answer: CitedAnswer,
    *,
    style: Literal["links", "footnotes", "plain"] = "links",
    heading: str | None = None,
    quotes: bool = True,
    safe: bool = True,
    lang: str | None = None,
    notes: Sequence[Note] | None = None,
    file_links: bool = False,
) -> str:
    """The answer's text with its markers, the notes as a quote, then a list of the cited sources only.

    ``links``: each ``[n]`` links to its entry (``#ref-n``); ``footnotes``: ``[^n]`` footnotes;
    ``plain``: ``[n]`` as written. With ``safe`` (the default) raw HTML and non-http(s) links in the
    model's text are neutralised; titles, authors and other metadata are always escaped, and only
    http(s) URLs from source metadata become links (with the cited sentence as a text fragment; a PDF
    URL at its page), and with ``file_links`` local files (``file:///``, a PDF at ``#page=N``). Each
    entry says where its text is (path, pages, URL) and quotes the cited text (``quotes=False``: not).
    ``lang`` (``en``, ``es``, ``zh``; guessed by default) words the heading and the notes.
    """
    notes = check_render_args(answer, lang, notes)
    check_text(heading, "heading", optional=True)
    check_flag(quotes, "quotes")
    check_flag(safe, "safe")
    check_flag(file_links, "file_links")
    check_choice(style, "style", ("links", "footnotes", "plain"))  # anything else rendered as plain
    lang = lang or detect_lang(answer.plain_text)
    labels = labels_for(lang)
    notes = answer_notes(answer, lang) if notes is None else notes
    pieces, run, after = [], [], False
    for piece in walk(answer):
        run.append(piece.text)
        if piece.markers:
            text = _model_piece("".join(run), safe, after, not piece.lead)
            pieces += [text, piece.lead, *(_marker(m.number, style) for m in piece.markers)]
            run, after = [piece.tail], True
    pieces.append(_model_piece("".join(run), safe, after, False))
    lines = ["".join(pieces).rstrip()]
    for i, note in enumerate(notes):
        lines += ["" if i == 0 else ">", f"> {_md_escape_note(note.text)}"]
    if answer.references:
        lines.append("")
        if style != "footnotes":
            lines += [f"**{_md_escape(heading or labels['references'])}**", ""]
        lines += _entries(answer, style, quotes, labels, file_links)
    return "\n".join(lines).strip("\n") + "\n"


_READABLE = {ord(c): "\\" + c for c in "\\`*_[](){}"}
_READABLE.update({ord(c): f"&#{ord(c)};" for c in "^|~"})
_READABLE_IN_CONTEXT = re.compile(
    r"(?<=www)\.|:(?=/)|(?<!:)/(?=/)|&(?=#?[A-Za-z0-9]+;)|<(?![ \t=]|$)", re.IGNORECASE
)
"""Notes, quoted passages and paths, which a reader often sees as raw Markdown (``cite ask --markdown``
in a terminal): a backslash escape where CommonMark, GFM and python-markdown all honour one (``\\[2\\]``
rather than ``&#91;2&#93;``), a character reference for the rest (as in metadata: the ``.`` of ``www.``,
a ``:`` before ``/`` and the first ``/`` of ``//host``, which markdown-it's ``linkify`` would make a
protocol-relative link; python-markdown has no ``\\/``), and ``&``, ``<`` only where they could start an
entity or a tag (``a & b``, ``a < b`` and a ``>`` in the middle of a line open nothing)."""


def _md_escape_note(text: str) -> str:
    """A note or a quoted passage on one line: as safe as :func:`escape_metadata_markdown`, more readable."""
    return _READABLE_IN_CONTEXT.sub(_entity, one_line(reveal_invisible(text)).translate(_READABLE))


def _marker(number: int, style: str) -> str:
    if style == "links":
        return f"[\\[{number}\\]](#ref-{number})"
    if style == "footnotes":
        return f"[^{number}]"
    return f"[{number}]"


def _entries(
    answer: CitedAnswer, style: str, quotes: bool, labels: dict[str, str], file_links: bool
) -> list[str]:
    by_ref = citations_by_reference(answer)
    lines = []
    # Markdown numbers an ordered list itself (CommonMark from the first item's number on, python-markdown
    # from 1): a conversation's references ([2] before [1], or [3] alone) would show other numbers than
    # the markers, so they are bullets that write the number as text ("3\." opens no list)
    counted = [ref.number for ref in answer.references] == list(range(1, len(answer.references) + 1))
    for ref in answer.references:
        item = f"{ref.number}." if counted else f"- {ref.number}\\."
        cited = by_ref.get(ref.number, [])
        entry = _entry(ref, cited, labels, file_links)
        if quotes:
            entry += "".join(f" — “{_md_escape_note(q)}”" for q in dict.fromkeys(c.cited_text for c in cited))
        if style == "footnotes":
            # Without the trailing &#160;, a renderer without footnotes may read a link definition.
            lines.append(f"[^{ref.number}]: {entry} &#160;")
        elif style == "links":
            lines.append(f'{item} <a id="ref-{ref.number}"></a>{entry}')
        else:
            lines.append(f"{item} {entry}")
    return lines


def _entry(ref: Reference, cited: list[Citation], labels: dict[str, str], file_links: bool) -> str:
    """Title (linked to the source at the first cited passage: the link is where its URL shows), path,
    author, pages."""
    source = ref.source
    title = _md_escape(short_name(source.label))
    link = reference_link(ref, cited, file_links=file_links)
    entry = f"[{title}]({md_url(link)})" if link else title
    path = source_path(source)
    if path and path != source.label:  # escaped readably (docs/my\_notes.md, not docs/my&#95;notes.md)
        entry += f", {_md_escape_note(short_name(path))}"
    # a printed page label is the document's text: escaped like every other bit
    bits = [source.author and short_name(source.author), cited_pages(ref, cited, labels)]
    return entry + "".join(f", {_md_escape(bit)}" for bit in bits if bit)
