"""Fast rule-based sentence segmentation with exact character spans (English, Spanish, Chinese).

``split_sentences`` returns half-open ``(start, end)`` spans into the original text, trimmed of
surrounding whitespace, so that citations can point at exact substrings. One compiled regex finds
candidate boundaries (runs of terminal punctuation plus closing quotes/brackets, and newlines); cheap
checks on the token before a candidate and the character after it then accept or reject it:

* ``.`` after a known abbreviation ("Dr.", "Sra.", "Fig. 3", "pág. 12"), a capital initial ("J. R. R.")
  or a list marker at the start of a line ("1.") is not a boundary;
* ``. ! ?`` followed by a lowercase word (after opening quotes, ``¿ ¡`` or a dash) on the same line is not
  a boundary (a line ending in one of them ends its sentence even before a lowercase line: "eMOTIVe");
  an ellipsis ends a sentence only before a letter that is not lowercase;
* ``.'`` closes a quotation only when a single quote is open on its line; else the ``'`` is a
  possessive and the ``.`` an abbreviation's ("Warner Bros.' 2020 film");
* Chinese ``。！？`` end a sentence without needing a space, except inside ``《…》`` titles;
* a blank line always ends a sentence; a single newline does when its line is a Markdown heading, a
  list item or a short title-like line not followed by a lowercase word, or when the next line starts a
  list item or heading; otherwise it is a line wrap inside a paragraph.

Only dots followed by whitespace (or CJK text) are candidates, so decimals, URLs and e-mail addresses
are never split. Every pattern runs in linear time (lookbehinds stop retries inside a punctuation run;
no nested quantifiers over the same characters) and works with Python 3.10's ``re``.
"""

from __future__ import annotations

import re

from .._args import check_text
from .._brackets import WIDE_CLOSERS, WIDE_OPENERS
from .._text import CJK_WIDE

__all__ = ["WRAP_MIN", "split_lines", "split_sentences"]

_LATIN_TERM = ".!?…"
_CJK_TERM = "。！？"
_TERM = _LATIN_TERM + _CJK_TERM
_CLOSE = "\"'”’»」』）)\\]}》〉" + WIDE_CLOSERS
# Characters that may directly follow a Latin terminal without a space (CJK text and opening brackets).
_CJK_NEXT = CJK_WIDE + "「『（《〈" + WIDE_OPENERS

_TAIL = rf"(?:[{_CLOSE}]|\[\d+(?:,[ ]?\d+)*\])*"  # closing quotes/brackets and glued [1] or [2, 3]
# Candidate boundaries. The pattern starts with one character class so that `re` can skip ahead to
# candidates quickly; lookbehinds then make sure a punctuation run is only tried from its first char.
_EVENT = re.compile(
    rf"""[\n{_TERM}](?:
        (?<=\n)(?:[^\S\n]*\n)?                                  # newline, or blank line
      | (?<![{_TERM}].)(?:
            (?<=[{_LATIN_TERM}])[{_LATIN_TERM}]*{_TAIL}(?=\s|\Z|[{_CJK_NEXT}])  # Latin run + space
          | (?P<cjk>(?<=[{_CJK_TERM}])[{_TERM}]*{_TAIL}                 # run with a CJK terminal
                   |[{_LATIN_TERM}]*[{_CJK_TERM}][{_TERM}]*{_TAIL})))""",
    re.X,
)
_WS = re.compile(r"\s*")
# First significant character after a boundary, skipping opening quotes, brackets, ¿ ¡ and dashes.
_NEXT_CHAR = re.compile(r"\s*[\"'“‘«(\[{¿¡—–]*(.)", re.S)
# A list item or Markdown heading at the start of a line.
_ITEM_RE = r"[^\S\n]*(?:#{1,6}|[-*+•◦▪‣●○■–—]|\d{1,3}[.)]|[A-Za-z]\))[^\S\n]"
_ITEM = re.compile(_ITEM_RE)
_HEADING = re.compile(r"[^\S\n]*#{1,6}[^\S\n]")
# The next line: group 1 is set when it is a list item or heading, else group 2 is its first character.
_NEXT_LINE = re.compile(rf"({_ITEM_RE})?[^\S\n]*(.)", re.S)
_LIST_MARKER = re.compile(r"\d{1,3}|[A-Za-z]|[IVX]{1,5}")
_LIST_MARKER_MAX = 5  # the longest token _LIST_MARKER matches
_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_OPENERS = "\"'“‘«([{¿¡"
# A single quote that opens a quotation (after a space, a bracket or a double quote; before a non-space)
# and one that closes one or marks a possessive (after a non-space; not before a letter: "O'Neill").
_SINGLE_OPEN = re.compile(r"(?<![^\s\"“«(\[{—–-])['‘](?=[^\s'‘])")
_SINGLE_CLOSE = re.compile(r"(?<=\S)['’](?![^\W\d_])")
_HEADING_MAX = 50  # a single line up to this long, followed by a non-lowercase line, is a title

# Abbreviations that never end a sentence (titles before names, "EE. UU.", "e.g.", "vs.").
_ABBREV = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "drs",
        "prof",
        "rev",
        "hon",
        "st",
        "mt",
        "ft",
        "gen",
        "col",
        "capt",
        "cmdr",
        "lt",
        "sgt",
        "gov",
        "sen",
        "rep",
        "pres",
        "messrs",
        "e.g",
        "i.e",
        "vs",
        "cf",
        "viz",
        "sr",
        "sra",
        "sras",
        "srta",
        "sres",
        "dra",
        "dras",
        "lic",
        "ing",
        "arq",
        "dña",
        "ud",
        "uds",
        "vd",
        "vds",
        "ee",
        "av",
        "avda",
        "ej",
    ]
)
# Abbreviations that do not end a sentence when a number follows ("No. 5", "Fig. 3", "Jan. 5").
_NUM_ABBREV = frozenset(
    [
        "no",
        "nos",
        "nº",
        "núm",
        "num",
        "fig",
        "figs",
        "eq",
        "eqs",
        "vol",
        "vols",
        "ch",
        "chap",
        "sec",
        "art",
        "p",
        "pp",
        "pág",
        "págs",
        "pag",
        "cap",
        "tab",
        "ref",
        "refs",
        "approx",
        "ca",
        "op",
        "ex",
        "tel",
        "jan",
        "feb",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "ene",
        "abr",
        "ago",
        "dic",
    ]
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return the ``(start, end)`` spans of the sentences of ``text``, in order and trimmed."""
    check_text(text, "text", surrogates=True)
    spans: list[tuple[int, int]] = []
    start = _WS.match(text).end()  # type: ignore[union-attr]  # \s* always matches; the pending sentence
    boundary = 0  # end of the last sentence boundary
    line_start = 0
    has_titles = "《" in text
    for m in _EVENT.finditer(text):
        s, e = m.span()
        if text[s] == "\n":
            if start < s and (e - s > 1 or _line_ends_sentence(text, boundary, line_start, s, e)):
                spans.append((start, start + len(text[start:s].rstrip())))
                boundary = e
                start = _WS.match(text, e).end()  # type: ignore[union-attr]  # \s* always matches
            line_start = e
            continue
        if m.group("cjk") is None and not _latin_boundary(text, s, e, line_start):
            continue
        if has_titles and _inside_title(text, start, s):
            continue
        spans.append((start, e))
        boundary = e
        if text[e : e + 1] == " " and text[e + 1 : e + 2] in _ASCII_ALNUM:
            start = e + 1  # the usual case, what _WS would find
        else:
            start = _WS.match(text, e).end()  # type: ignore[union-attr]  # \s* always matches
    if start < len(text):
        spans.append((start, start + len(text[start:].rstrip())))
    return spans


WRAP_MIN = 50
"""A line at least this long that runs on into a lowercase line is a wrapped line of a paragraph;
shorter lines (headlines, menu entries, list items, table rows, dates) are units of their own."""

_NEWLINE = re.compile(r"\n\s*")
"""A line break and the blank space after it; the spaces before it are found by ``rstrip`` (a leading
``[^\\S\\n]*`` was tried at every space of a long run without a line break: quadratic)."""
_CONTINUES = (",", ";", "-", "–", "(", "/", "&")
"""A line ending with one of these goes on in the next line (a URL ending in ``/`` excepted)."""
_URL_END = re.compile(r"(?:https?://|www\.)\S*$", re.IGNORECASE)


def split_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence span cut at its line breaks, except where a line wraps: a line ending in ``, ; -``
    and the like (not a URL's ``/``), or a line of at least ``WRAP_MIN`` characters followed by a
    lowercase line."""
    if "\n" not in text[start:end]:
        return [(start, end)]
    pieces, cursor, after = [], start, start
    for m in _NEWLINE.finditer(text, start, end):
        line_end = after + len(text[after : m.start()].rstrip())  # the spaces before the break
        after = m.end()
        line = text[cursor:line_end]
        if m.end() >= end or not line:
            continue
        if (line.endswith(_CONTINUES) and not (line[-1] == "/" and _URL_END.search(line))) or (
            len(line) >= WRAP_MIN and text[m.end()].islower()
        ):
            continue  # a wrapped line: the sentence goes on
        pieces.append((cursor, line_end))
        cursor = m.end()
    pieces.append((cursor, end))
    return pieces


def _latin_boundary(text: str, s: int, e: int, line_start: int) -> bool:
    """Decide whether the Latin punctuation run ``text[s:e]`` (space or CJK after it) ends a sentence."""
    new_line = False
    if text[e : e + 1] == " " and text[e + 1 : e + 2] in _ASCII_ALNUM:
        nxt = text[e + 1]  # the usual case, what _NEXT_CHAR would find, without the regex call
    else:
        m = _NEXT_CHAR.match(text, e)
        if m is None:
            return True  # only whitespace follows
        nxt = m.group(1)
        new_line = "\n" in text[e : m.start(1)]
    run = text[s:e]
    if nxt.islower() and not (new_line and "…" not in run and ".." not in run):
        # a lowercase word goes on with the sentence, except at the start of the next line: after a
        # line ending in ". ! ?" it starts a new one ("eMOTIVe", "iPhone"; abbreviations aside, below)
        return False
    if "…" in run or ".." in run:  # an ellipsis continues before digits and symbols
        return nxt.isalpha()
    if run in (".'", ".’"):  # "Warner Bros.' 2020 film": a possessive, unless a quote is open
        return _single_quote_open(text, line_start, s)
    if run != ".":
        return True
    lo = max(s - 24, line_start)
    window = text[lo:s]
    if not window or window[-1].isspace():
        return True
    words = window.rsplit(None, 1)
    token = words[-1].lstrip(_OPENERS)
    word = token.lower()
    if word in _ABBREV or (word in _NUM_ABBREV and nxt.isdigit()):
        return False
    if len(token) == 1 and token.isupper() and token != "I":  # "I." is usually the pronoun
        return False  # an initial, as in "J. R. R. Tolkien"
    if len(token) <= _LIST_MARKER_MAX and _LIST_MARKER.fullmatch(token):  # "1." or "b." opening a line
        return lo != line_start or len(words) > 1
    return True


def _single_quote_open(text: str, line_start: int, s: int) -> bool:
    """Whether a single quote opened on this line before ``s`` is still open (``'`` after ``.`` then
    closes it; else that ``'`` is an apostrophe and the ``.`` an abbreviation's)."""
    opens = [m.end() for m in _SINGLE_OPEN.finditer(text, line_start, s)]
    return bool(opens) and _SINGLE_CLOSE.search(text, opens[-1], s) is None


def _line_ends_sentence(text: str, boundary: int, line_start: int, s: int, e: int) -> bool:
    """Decide whether the single newline ``text[s:e]`` ends the pending sentence."""
    nxt = _NEXT_LINE.match(text, e)
    if nxt is None or nxt.group(1):
        return True  # end of text, or the next line is a list item or a heading
    if nxt.group(2).islower():  # a line wrap inside a paragraph, unless this line is a heading
        return _HEADING.match(text, line_start) is not None
    line = text[line_start:s].strip()
    if _ITEM.match(line):
        return True  # a list item or a heading ends with its line
    if not line or line[-1] in _TERM + _CLOSE:
        return False  # the punctuation run before the newline already decided
    return boundary <= line_start and (len(line) <= _HEADING_MAX or line.endswith((":", "：")))


def _inside_title(text: str, start: int, s: int) -> bool:
    """True when position ``s`` lies inside an open ``《…》`` title within the current sentence."""
    lo = max(start, s - 64)
    return text.rfind("《", lo, s) > text.rfind("》", lo, s) and text.find("》", s, s + 64) != -1
