"""What is not a claim of its own before a citation marker (issue 13.5).

A list number (``1. [2] Mix the flour.``), a bare heading (``### Planets [2]``, ``**Planets** [2]``) and a
lead-in that names where a claim comes from (``According to the report [2], ...``, ``Some sources [3]
suggest ...``) cite what follows them: the assembler makes such a marker group a forward one, and its
claim starts after the text before the marker.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .._sources.term_analyser import TERM_ANALYSER

__all__ = [
    "JOINER_WORDS",
    "claim_follows",
    "claim_terms",
    "comma_after_lead_in",
    "joins_markers",
    "precedes_its_claim",
]

_LEAD_IN = re.compile(r"\b(?:to|in|by|from|of|per|on|at|with|según|segun|de|en|por)\W*$", re.IGNORECASE)
"""The last word of a lead-in before a marker: ``According to [2], ...``, ``As noted in [1], ...``."""
_LEAD_IN_PHRASE = re.compile(
    r"\s*(?:according to|as (?:noted|stated|reported|shown|described|mentioned|explained|discussed|outlined)"
    r" (?:in|by)|based on|según|segun|de acuerdo con)\b[^.!?。！？,;:]{0,40}",
    re.IGNORECASE,
)
"""A lead-in that names where a claim comes from (``According to the 2020 report [2], ...``)."""
_SOURCE_NOUNS = (
    *("source", "sources", "study", "studies", "research", "researchers", "expert", "experts"),
    *("report", "reports", "article", "articles", "author", "authors", "document", "documents"),
)
_SOURCE_SUBJECT = re.compile(
    r"\s*(?:(?:some|several|many|other|these|those|various|recent|both|the|one|two|three)\s+)?\w+\s*",
    re.IGNORECASE,
)
"""The sources as the subject before a marker, alone or after a comma (``For instance, some sources
[3][4] suggest that ...``): the claim is what they say."""
JOINER_WORDS = "and|or|&|y|e|o|u"
"""The words that join two marker groups into one (``[1] and [2]``, ``[1] o [2]``): a regex alternation,
read here and by the lexer."""
_JOINER = re.compile(rf"[\s,;]*+(?:{JOINER_WORDS})?[\s,;]*+", re.IGNORECASE)
"""Possessive: a run of separators is never given back (no joiner word starts with one), so a long run
that does not end the text fails in one pass, not one per character."""
"""What may stand between the marker groups of one lead-in: ``According to [1] and [2], ...``."""
_LIST_NUMBER = re.compile(r"\(?(?:\d{1,3}|[A-Za-z]|[IVXivx]{1,5})[.)]")
"""A list number before a marker (``1. [2] Mix the flour.``)."""
_HEADING = re.compile(r"[^\S\n]*(?:#{1,6}[^\S\n][^\n]*|\*\*[^*\n]+\*\*|__[^_\n]+__)[^\S\n]*")
"""A Markdown heading or a wholly bold line before a marker (``### Planets [2]``)."""
_ENDS = ".!?。！？"


def claim_follows(text: str) -> bool:
    """Whether the text before a marker is no claim of its own and the claim starts after it: a lead-in
    naming where the claim comes from, the sources as the subject, a list number or a heading."""
    return bool(_HEADING.fullmatch(text) or _LIST_NUMBER.fullmatch(text)) or _names_a_source(text)


def _names_a_source(text: str) -> bool:
    """``claim_follows`` but for a list number or a heading: a lead-in naming where the claim comes from,
    or the sources as the subject."""
    if _LEAD_IN_PHRASE.fullmatch(text):
        return True
    if not text.rstrip().lower().endswith(_SOURCE_NOUNS):
        return False
    return _SOURCE_SUBJECT.fullmatch(text[text.rfind(",") + 1 :]) is not None


def claim_terms(text: str) -> Sequence[str]:
    """The terms of ``text`` (``terms.analyze``'s), through the term analyser in use: the compiled one
    when built (Python's stemming of a fresh word table cost about 7 µs a citation)."""
    return TERM_ANALYSER.claim(text)[0]


def precedes_its_claim(text: str, terms: Callable[[str], Sequence[str]] = claim_terms) -> bool:
    """Whether a marker right after ``text`` (the sentence so far) cites what follows it: a list number, a
    heading, or text without end punctuation that has fewer than two terms or only names a source.
    ``terms``: the terms of a text (the assembler asks its locator, which keeps them for the citation)."""
    if _LIST_NUMBER.fullmatch(text) or _HEADING.fullmatch(text):
        return True
    # neither a list number nor a heading (asked above): claim_follows's other two cases
    return text[-1] not in _ENDS and (len(terms(text)) < 2 or _names_a_source(text))


def comma_after_lead_in(text: str) -> bool:
    """Whether the comma after the markers that follow ``text`` ends a lead-in (it stays with them)."""
    return bool(_LEAD_IN.search(text) or _LEAD_IN_PHRASE.fullmatch(text))


def joins_markers(text: str) -> bool:
    """Whether ``text`` between two marker groups only joins them (``[1] and [2]``)."""
    return _JOINER.fullmatch(text) is not None
