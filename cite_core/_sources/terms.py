"""Term analysis: the words of a text as the scorer matches them (lower-cased, stop words dropped,
light suffix stripping), plus character unigrams and bigrams for Chinese/Japanese runs.

Every word's term (its stem, or nothing for a stop word) is remembered in one word table, the only
per-word cache, so that the words of a sentence are mapped to their terms in C; text whose words are
all ASCII (most text, em dashes and curly quotes aside) is cut into words by a plain range class, or
for a whole chunk by ``str.translate`` and ``split``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from .._args import check_text
from .._text import CJK, CJK_RE
from .stopwords import CJK_STOP, STOP, SUFFIXES

__all__ = ["analyze", "ascii_separated", "clear_terms", "term_of"]

_TOKEN = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+", re.UNICODE)  # "阿Q正传": 阿 | q | 正传
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")  # _TOKEN on lower-cased ASCII text

_SUFFIXES_BY_END = {
    end: tuple(s for s in SUFFIXES if len(s) > 1 and s.endswith(end))
    for end in {s[-2:] for s in SUFFIXES if len(s) > 1}
}
"""The suffixes of two or more letters by their last two letters, in ``SUFFIXES`` order (only those can
end a word); one-letter suffixes come last in their family and are tried after them."""
_ONE_LETTER = frozenset(s for s in SUFFIXES if len(s) == 1)


def _stem_word(word: str) -> str:
    """The stem of a lower-cased word (the light suffix stripping of ``SUFFIXES``)."""
    if len(word) <= 3:
        return word
    for suffix in _SUFFIXES_BY_END.get(word[-2:], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            return stem + "y" if suffix in ("ies", "ied") else stem
    return word[:-1] if word[-1] in _ONE_LETTER else word


def analyze(text: str) -> list[str]:
    """The terms of ``text`` used for matching (order kept, duplicates kept)."""
    return list(_analyze(check_text(text, "text", surrogates=True)))


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_NON_ASCII_TERM = re.compile(rf"[^\W\x00-\x7f]|[{CJK}]")
"""A word character outside ASCII, or a CJK character."""
_SEPARATE = str.maketrans(dict.fromkeys([chr(i) for i in range(128) if not chr(i).isalnum()], " "))
"""Every ASCII character but letters and digits to a space."""


def ascii_separated(lowered: str) -> str | None:
    """Lower-cased text with every character but ASCII letters and digits turned into a space, when
    its words are all ASCII (none CJK): then ``split()`` of any slice of it gives the tokens of that
    slice (``_TOKEN.findall``), 3x faster than a regex over a whole chunk. None when it has other
    words."""
    if not lowered.isascii():
        others = _non_ascii_separators(lowered)
        if others is None:
            return None
        for char in set(others):
            lowered = lowered.replace(char, " ")
    return lowered.translate(_SEPARATE)


def _non_ascii_separators(text: str) -> list[str] | None:
    """The non-ASCII characters of ``text`` when none is a word character or CJK (em dashes, curly
    quotes, ...: separators), else None (the text has a non-ASCII word)."""
    others = _NON_ASCII.findall(text)
    return None if _NON_ASCII_TERM.search("".join(others)) is not None else others


class _TermTable(dict[str, str]):
    """Word -> its term (its stem, "" for a stop word), filled on lookup, so that a sentence's words
    are mapped to terms in C (``map(table.__getitem__, words)``) and only a word met for the first time
    costs a Python call."""

    __slots__ = ()

    def __missing__(self, word: str) -> str:
        term = self[word] = "" if word in STOP else _stem_word(word)
        if len(self) > _TERMS_MAX:
            clear_terms()  # the next readers start over; this one keeps a complete table
        return term


_TERMS_MAX = 65536
"""The word table starts over when it holds more words than this."""
_TABLES = [_TermTable()]
"""The word table, in a list so that it is replaced (never emptied in place: a reader keeps a
complete table) when full and by ``clear_terms``."""


def clear_terms() -> None:
    """Forget the terms of every word met."""
    _TABLES[0] = _TermTable()


def term_of() -> Callable[[str], str]:
    """Word -> term through the word table (``map`` it over a sentence's lower-cased, non-CJK words)."""
    return _TABLES[0].__getitem__


@lru_cache(maxsize=4096)
def _analyze(text: str) -> tuple[str, ...]:
    text = text.lower()
    if text.isascii() or _non_ascii_separators(text) is not None:
        # only ASCII words (em dashes and curly quotes aside), none CJK: a plain range class runs
        # 1.7x faster than the Unicode one and finds the same tokens
        return tuple(filter(None, map(term_of(), _ASCII_TOKEN.findall(text))))
    terms = []
    term = term_of()
    for token in _TOKEN.findall(text):
        # every CJK range starts at U+3040: other words skip the regex call
        if token[0] >= "\u3040" and CJK_RE.match(token):
            chars = [c for c in token if c not in CJK_STOP]
            terms.extend(chars)
            terms.extend(a + b for a, b in zip(token, token[1:]))
        elif token not in STOP:
            terms.append(term(token))
    return tuple(terms)
