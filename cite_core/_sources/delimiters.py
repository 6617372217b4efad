"""Keep untrusted text inside the delimiters of every prompt the project builds (issues 16 and 33).

``DELIMITERS`` is the one table of the tags a prompt frames untrusted text with: ``<source>`` (the
citation prompt and tool results), ``<passage>`` and ``<claim>`` (the judge prompt of ``verify``),
``<message>`` (the conversation of a condense prompt), ``<Cn>``, ``<statement>`` and ``<cite>`` (the
``statements`` style). ``clean_text`` is the one function every prompt passes untrusted text through
(source text, claims, passages, history), ``clean_attribute`` the one for attribute values (titles).

What the model sees only: ``Source.text`` and every offset are untouched.

- Format characters (Unicode category Cf: zero-width space U+200B, soft hyphen U+00AD, bidi
  controls, tag characters U+E0000..) are removed from source text and attributes, except the
  zero-width joiner and non-joiner that emoji and Persian or Indic words need.
- A tag-like opening or closing of any delimiter (``<source``, ``</passage``, ``</claim``, ``<C7``...) is
  neutralised by writing its bracket as ``&lt;``. It is found
  on a skeleton of the text: each character NFKC-normalised (fullwidth ``＜/ｓｏｕｒｃｅ＞``, math
  letters), lookalikes mapped to the Latin letter they imitate (every confusable Unicode's UTS #39 data
  gives for ``<``, ``/`` and the letters of the delimiters: Cyrillic ``е`` in ``sourcе``, Cherokee ``Ꮪ``,
  ``ʂ``), combining marks, joiners, format and control characters (NUL, C1) skipped, case folded.
  The text itself is not NFKC-normalised (that would turn ``10²`` into ``102``); only the bracket of a
  lookalike tag changes.
- In the ``title``, ``url`` and ``author`` attributes, every line-break character (``\\n \\r \\v \\f
  \\x1c \\x1d \\x1e \\x85 \\u2028 \\u2029``) and every other control character becomes a space, and
  double quotes (ASCII and fullwidth) become single quotes, so an attribute cannot end early.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .._accel import NATIVE
from .confusables import CONFUSABLES

__all__ = ["DELIMITERS", "clean_attribute", "clean_text"]

DELIMITERS: tuple[str, ...] = ("source", "passage", "claim", "message", "statement", "cite", "c#")
"""The tag names prompts frame untrusted text with (``#``: a digit, as in ``<C3>``). A ``<`` (or a
lookalike) followed by one of them, with or without ``/``, in any case, spacing or lookalike letters, is
neutralised in every text a prompt frames. ``confusables.py`` holds the lookalikes of their letters."""


_BRACKETS = "".join(
    dict.fromkeys("<\uff1c\ufe64\u2039\u02c2\u1438\u3008\u2329\u27e8\u276e\u276c\u29fc" + CONFUSABLES["<"])
)
"""``<`` and what a model may read as one: fullwidth, small, single guillemet, modifier arrowhead,
Canadian syllabics PA, CJK and mathematical angle brackets, ornaments, and every other character
Unicode's confusables (UTS #39) give for ``<``."""

_CONTROLS = dict.fromkeys([*range(32), 127])
"""ASCII controls, which a model does not see as characters: NUL inside ``</sou\\x00rce>`` is skipped."""

_LOOKALIKES = str.maketrans(
    {
        # every character Unicode's confusables give for a letter of a delimiter or for "/" (the
        # Cherokee letters, ``ʂ`` (an ``s`` with a hook), Lisu, Old Italic, mathematical letters, ...)
        # and their other cases (Cherokee folds small letters to capitals, Greek lunate sigma ``ϲ``/``Ϲ``)
        **{
            case: target
            for target, chars in CONFUSABLES.items()
            if target not in "<>"
            for char in chars
            for case in (char, char.upper(), char.lower(), char.casefold())
            if len(case) == 1 and not case.isascii()
        },
        # Cyrillic, Greek, Armenian and small-capital letters that look like the Latin ones of "source"
        "\u0455": "s",
        "\u0405": "s",
        "\ua731": "s",
        "\u043e": "o",
        "\u041e": "o",
        "\u03bf": "o",
        "\u039f": "o",
        "\u0585": "o",
        "\u1d0f": "o",
        "0": "o",
        "\u03c5": "u",
        "\u057d": "u",
        "\u1d1c": "u",
        "\u028b": "u",
        "\u0433": "r",
        "\u1d26": "r",
        "\u0280": "r",
        "\uab47": "r",
        "\u0441": "c",
        "\u0421": "c",
        "\u03f2": "c",
        "\u03f9": "c",
        "\u1d04": "c",
        "\u2ca5": "c",
        "\u0435": "e",
        "\u0415": "e",
        "\u0395": "e",
        "\u04bd": "e",
        "\u212e": "e",
        # slashes
        "\u2044": "/",
        "\u2215": "/",
        "\u29f8": "/",
        "\u2571": "/",
    }
)


def _read_as() -> dict[str, set[str]]:
    """Each delimiter letter -> what the skeleton may show in its place: the letter, the letters a
    lookalike of it may have been mapped to instead (Cyrillic ``і`` and Greek ``ι`` look like both ``i``
    and ``l``; the map keeps one, the pattern accepts both), and its ASCII lookalikes, which the
    skeleton keeps as they are (``1`` and ``|`` for ``l``)."""
    targets: dict[str, set[str]] = {}
    for target, chars in CONFUSABLES.items():
        for char in chars:
            for case in (char, char.upper(), char.lower(), char.casefold()):
                targets.setdefault(case, set()).add(target)
    read_as: dict[str, set[str]] = {}
    for char, letters in targets.items():
        for letter in letters:
            read_as.setdefault(letter, {letter}).update(letters)
            if char.isascii():
                read_as[letter].add(char)
    return read_as


def _name_pattern(name: str, read_as: dict[str, set[str]]) -> str:
    parts = []
    for letter in name:
        letters = read_as.get(letter, {letter})
        if letter == "#":  # a digit; the skeleton reads 0 as o, so "o" not followed by a letter too
            parts.append(r"(?:\d|o(?![a-z]))")
        else:
            parts.append(letter if len(letters) == 1 else f"[{re.escape(''.join(sorted(letters)))}]")
    return "".join(parts)


_TAG_AFTER_BRACKET = re.compile(
    r"\s*(?:/\s*)?(?:" + "|".join(_name_pattern(name, _read_as()) for name in DELIMITERS) + ")"
)
_WINDOW = 48
"""Characters after a bracket that are read to decide (``<`` + spaces + ``/`` + a name, with room for
combining marks and joiners between them)."""

_BRACKET = re.compile(f"[{_BRACKETS}]")
FORMAT_RANGES = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
"""Every format character (category Cf) of Unicode 14 (Python 3.11's ``unicodedata``) but U+200C and
U+200D, as a regex class; tests/robustness/test_injection.py checks it against ``unicodedata``."""

_FORMAT = re.compile(f"[{FORMAT_RANGES}]")


def _expand(ranges: str) -> str:
    """Every character of a regex class body of single characters and ranges ``a-b``."""
    out: list[str] = []
    at = 0
    while at < len(ranges):
        if at + 2 < len(ranges) and ranges[at + 1] == "-":
            out.extend(map(chr, range(ord(ranges[at]), ord(ranges[at + 2]) + 1)))
            at += 3
        else:
            out.append(ranges[at])
            at += 1
    return "".join(out)


FORMAT_CHARS = _expand(FORMAT_RANGES)
"""The characters of ``FORMAT_RANGES``, one by one."""
_FORMAT_SCAN = NATIVE.PlainPath(FORMAT_CHARS).scan if NATIVE is not None else None
"""Where the first format character of a text is (``len(text)``: none), scanned in Rust: most source
texts have none, and the regex class's search costs 10 ns a character (20x the scan) to find that out."""


def _strip_format(text: str) -> str:
    """``text`` without its format characters."""
    if _FORMAT_SCAN is not None:
        try:
            if _FORMAT_SCAN(text) == len(text):
                return text
        except UnicodeEncodeError:  # a lone surrogate has no UTF-8 form: the regex reads it
            pass
    return _FORMAT.sub("", text)


_LINE_OR_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_QUOTES = re.compile('["\uff02]')


def clean_text(text: str) -> str:
    """``text`` as the model may see it in a source: no format characters, tag lookalikes neutralised."""
    if text.isascii():
        if "<" not in text:
            return text
    else:
        text = _strip_format(text)
        if not any(bracket in text for bracket in _BRACKETS):  # 12 substring scans beat one regex class
            return text
    out, last = [], 0
    for found in _BRACKET.finditer(text):
        end = found.end()
        if _TAG_AFTER_BRACKET.match(_skeleton(text[end : end + _WINDOW])):
            out.append(text[last : found.start()])
            out.append("&lt;")
            last = end
    out.append(text[last:])
    return "".join(out)


def clean_attribute(value: str) -> str:
    """An attribute value on one line, with no double quote and no tag lookalike."""
    return _QUOTES.sub("'", _LINE_OR_CONTROL.sub(" ", clean_text(value)))


def _skeleton(window: str) -> str:
    """What ``window`` reads as: NFKC per character, lookalikes mapped, marks, joiners, format and
    control characters skipped (C0 and C1 controls, NUL, unassigned code points render as nothing or
    as a box, and a model reads past them)."""
    if window.isascii():
        return window.lower().translate(_CONTROLS).translate(_LOOKALIKES)
    return "".join(_skeleton_char(c) for c in window)


_INVISIBLE_CATEGORIES = frozenset(("Mn", "Me", "Cc", "Cf", "Cn", "Co"))


@lru_cache(maxsize=4096)
def _skeleton_char(char: str) -> str:
    if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
        return ""
    mapped = char.translate(_LOOKALIKES)
    if mapped != char:  # before NFKC, which may turn a lookalike into a letter that is none (ϲ -> ς)
        return mapped
    normal = unicodedata.normalize("NFKC", char)
    if len(normal) == 1:
        char = normal
    return char.translate(_LOOKALIKES).casefold().translate(_LOOKALIKES)
