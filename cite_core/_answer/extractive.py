"""An offline, extractive answerer: the best supporting sentences of the sources, with ``[n]`` markers.

No model: the question's terms are matched against every sentence of every source with the same
lexical scoring the parser uses (BM25 over words and CJK character n-grams), the best sentences are
kept (near-duplicates dropped), and each is written as it appears in its source followed by the
marker of that source. ``parse_answer`` on the result cites each sentence exactly.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._args import check_int, check_items, check_text, shown
from .._brackets import CLOSERS, TAG_CLOSER, TAG_OPENER
from .._exceptions import PromptError
from .._locate.scoring import ClaimTerms, TermStats, bm25, support
from .._schema.models import Source
from .._sources.analysis import source_units
from .._sources.numbering import number_sources
from .._sources.terms import analyze
from .._text import CJK_RE
from .prose import prose_blocks

__all__ = ["NO_ANSWER", "extractive_answer"]

NO_ANSWER = {
    "en": "The sources do not contain an answer to this question.",
    "zh": "来源中没有找到这个问题的答案。",
}
"""What the answerer writes when no sentence shares a term with the question."""

_CJK = CJK_RE
_END_PUNCT = ".!?。！？…"
_END_QUOTES = "\"'”’」』)）"
"""A sentence's final punctuation: a run of ``_END_PUNCT`` and then of ``_END_QUOTES`` at its end (found
with two ``rstrip``: the pattern ``[.!?…]+["')]*$`` searched a long run of dots at every position)."""
# Characters that would start markers, code or tags when the sentence is parsed back.
_NEUTRAL = str.maketrans(
    {
        **{opener[0]: "(" for opener in CLOSERS},
        **{closer[0]: ")" for closer in CLOSERS.values()},
        "`": "'",
        TAG_OPENER: "‹",
        TAG_CLOSER: "›",
    }
)
RELATIVE_CUTOFF = 0.6
"""Sentences scoring below this share of the best sentence's score are not used."""
MAX_SENTENCE_CHARS = 600
"""Sentences longer than this (tables, run-on text) are skipped."""
MAX_SYMBOL_SHARE = 0.08
"""Sentences where more than this share of the characters are code symbols (source code) are skipped."""
_SYMBOLS = re.compile(r"[=(){}\[\]<>\"`;|\\/_*#$&^~+]")
_INDENTED = re.compile(r"\n(?:[ ]{4}|\t)\S|[\w)\]]\s*=\s*[\w\[(\"']")
_LEAD = re.compile(r"^(?:[-*+>•]|\d{1,3}[.)]|#{1,6})\s+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\s]*\)")
_QUOTE_MARKS = re.compile(r"^[^\S\n]{0,3}(?:>[^\S\n]?)+")
_FIRST_LETTER = re.compile(r"[^\W\d_]")
_MARKUP_END = "*_`)\"'”’」』）] \t\r"
"""Closing markup after a sentence's final punctuation (``**Bold.**``)."""
_FINAL = ".!?。！？…"
READABLE_CHARS = 250
"""Longer sentences weigh ``READABLE_CHARS / length``: of two as relevant, the shorter reads better."""
HEADING_WEIGHT = 0.5
"""A sentence under a heading holding all the question's terms weighs up to ``1 + HEADING_WEIGHT``."""
ANAPHORA_WEIGHT = 0.6
"""A sentence starting by pointing back ("This", "They") weighs this much: it reads out of context."""
_BACK = frozenset(
    "this that these those it its they them their such both he she his her here hence thus also".split()
)
_BACK_AFTER_THE = frozenset("above following latter former last same".split())
_POINTS_BACK = re.compile(
    r"\b(?:the (?:above|latter|former)|the (?:last|first|next|other) (?:one|two|three|four|few)\b"
    r"|as (?:above|below|shown)|see (?:above|below))",
    re.IGNORECASE,
)
_ITEM_GOES_ON = (",", ";", "：", "；", "，", " and", " or")
"""A list item ending like this is one part of a sentence the whole list makes."""
_LEAD_IN = (":", "：")
"""A sentence ending like this introduces a list ("What happens in one query:"): it answers nothing alone."""


def _is_cjk(text: str) -> bool:
    return len(_CJK.findall(text)) * 3 >= len(re.findall(r"[^\W\d_]", text)) > 0


_QUESTION_END = ("?", "？", "¿")
_CLOSERS = "\"'”’»)]}」』）*_` \n"


def _is_question(text: str) -> bool:
    """Whether a sentence is itself a question (it ends with a question mark, closing marks aside): it
    does not answer one."""
    return text.rstrip(_CLOSERS).endswith(_QUESTION_END)


def extractive_answer(question: str, sources: Sequence[Any], *, max_sentences: int = 4) -> str:
    """An answer made of the ``max_sentences`` source sentences that best match ``question``.

    Each sentence is followed by its source's ``[n]`` marker (``sources`` are numbered as
    ``number_sources`` numbers them). Only complete sentences of prose are quoted: never a heading,
    a line of code or terminal output, a table row or part of a wrapped list item (``prose_blocks``).
    When nothing matches, a plain statement says so.
    """
    if not isinstance(question, str) or not question.strip():
        raise PromptError(f"question must be a non-empty string, got {shown(question)}")
    check_text(question, "question")
    check_int(max_sentences, "max_sentences", low=1)
    items = check_items(sources, "sources")
    numbered: list[Source] = items if all(isinstance(s, Source) for s in items) else number_sources(items)
    lang = "zh" if _is_cjk(question) else "en"
    query = analyze(question)
    candidates = [c for source in numbered for c in _candidates(source)]
    if not query or not candidates:
        return NO_ANSWER[lang]
    wanted = set(query)
    stats = TermStats.from_units(c.terms for c in candidates)
    claim = ClaimTerms.of(query, stats)
    scores = bm25(
        claim, [Counter(c.terms) for c in candidates], [len(c.terms) for c in candidates], stats.avg_len
    )
    ranked = []
    for c, score in zip(candidates, scores):
        if score <= 0:
            continue
        weight = (0.5 + support(claim, c.terms)) * (ANAPHORA_WEIGHT if _refers_back(c.text) else 1.0)
        weight *= min(1.0, READABLE_CHARS / len(c.text))  # a run-on sentence answers less readably
        weight *= 1.0 + HEADING_WEIGHT * _share(wanted, c.heading)  # under a heading that asks it
        ranked.append((score * weight, c.source.number, c.start, c))
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    if ranked:
        cutoff = ranked[0][0] * RELATIVE_CUTOFF
        ranked = [r for r in ranked if r[0] >= cutoff]
    chosen: list[_Candidate] = []
    for _, _, _, c in ranked:
        terms = set(c.terms)
        if any(_overlap(terms, set(other.terms)) > 0.7 for other in chosen):
            continue
        chosen.append(c)
        if len(chosen) == max_sentences:
            break
    if not chosen:
        return NO_ANSWER[lang]
    joiner = "" if lang == "zh" else " "
    return joiner.join(_with_marker(c.text, c.source.number, c.units) for c in chosen)


@dataclass
class _Candidate:
    """A complete sentence (or a whole list item) of a source's prose, as it will be written."""

    source: Source
    start: int
    text: str
    terms: tuple[str, ...]
    heading: frozenset[str]
    """The terms of the heading it sits under (scored as context, never quoted)."""
    units: tuple[int, int]
    """The 1-based range of the source's units it spans (``[n:a-b]`` cites a wrapped sentence whole)."""


def _candidates(source: Source) -> list[_Candidate]:
    """The quotable sentences of ``source``: its units inside prose blocks, a sentence cut over several
    units (a wrapped line) joined again, and nothing incomplete."""
    text = source.text
    units = source_units(source)
    out: list[_Candidate] = []
    u = 0
    for block in prose_blocks(text):
        heading = frozenset(analyze(text[slice(*block.heading)])) if block.heading else frozenset()
        while u < len(units) and units[u].start < block.start:
            u += 1
        group: list[Any] = []
        while u < len(units) and units[u].end <= block.end:
            group.append(units[u])
            u += 1
            last = units[u - 1]  # the group ends as its last unit does (looked at alone: linear)
            if text[last.start : last.end].rstrip(_MARKUP_END)[-1:] in _FINAL:
                _add(out, source, group, u, heading, block.kind == "item" and group[0].start == block.start)
                group = []
        # what is left ends without a period: only a whole list item followed by more text is complete
        if group and block.kind == "item" and block.closed and group[0].start == block.start:
            _add(out, source, group, u, heading, True)
    return out


def _add(
    out: list[_Candidate], source: Source, group: list[Any], after: int, heading: frozenset[str], item: bool
) -> None:
    """Keep ``group`` (units ending before the unit numbered ``after + 1``) when it reads as a sentence."""
    raw = source.text[group[0].start : group[-1].end]
    terms = tuple(t for unit in group for t in unit.terms)
    if (
        len(raw) > MAX_SENTENCE_CHARS
        or len(terms) < 2
        or _looks_like_code(raw)
        or raw.rstrip().endswith(_LEAD_IN)
        or _points_elsewhere(raw)
        or _is_question(raw)
    ):
        return
    sentence = _clean(raw)
    first = _FIRST_LETTER.search(sentence)
    if (
        not sentence
        or (first is not None and first.group().islower())  # the middle of a sentence (a chunk cut there)
        or sentence.startswith("'")  # inline code first: a fragment of a list ("`--json`: ...")
        or (item and sentence.endswith(_ITEM_GOES_ON))  # one item of a list that is one sentence
    ):
        return
    out.append(_Candidate(source, group[0].start, sentence, terms, heading, (after - len(group) + 1, after)))


def _points_elsewhere(raw: str) -> bool:
    """Whether the sentence only introduces a link ("How links are built: [rendering.md](...)."): what
    follows its lead-in colon is links and punctuation, so the answer is in another page, not here."""
    for colon in _LEAD_IN:
        head, found, tail = raw.rpartition(colon)
        if found and head.strip() and _LINK.search(tail):
            return not _LINK.sub("", tail).strip(" \t\n.;,。；，")
    return False


def _clean(raw: str) -> str:
    """The sentence as written in the answer: one line, without list, quote and emphasis markup."""
    lines = [_QUOTE_MARKS.sub("", line) for line in raw.split("\n")]
    sentence = " ".join(" ".join(lines).split())
    sentence = _LINK.sub(r"\1", _EMPHASIS.sub(r"\2", _LEAD.sub("", sentence)))
    return sentence.translate(_NEUTRAL)


def _share(wanted: set[str], found: frozenset[str]) -> float:
    """The share of the question's terms found in ``found``."""
    return len(wanted & found) / len(wanted) if wanted and found else 0.0


def _refers_back(sentence: str) -> bool:
    """Whether the sentence points at what came before it ("This", "They", "the last two")."""
    words = sentence.split(None, 3)
    if not words or _POINTS_BACK.search(sentence):
        return bool(words)
    first = words[0].strip("\"'“(").lower()
    return first in _BACK or (first == "the" and len(words) > 1 and words[1].lower() in _BACK_AFTER_THE)


def _looks_like_code(text: str) -> bool:
    return (
        "```" in text
        or _INDENTED.search(text) is not None
        or len(_SYMBOLS.findall(text)) > MAX_SYMBOL_SHARE * len(text)
    )


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _with_marker(sentence: str, number: int, units: tuple[int, int]) -> str:
    """``sentence`` with ``[number]`` before its final punctuation (added when it has none); a sentence
    over several units (a line wrapped in its source) names them, ``[number:a-b]``, so that its citation
    covers it whole rather than the one line that matches best."""
    unquoted = sentence.rstrip(_END_QUOTES)
    cut = len(unquoted.rstrip(_END_PUNCT))
    body, end = (sentence[:cut], sentence[cut:]) if cut < len(unquoted) else (sentence, "")
    cjk = bool(_CJK.search(body[-1:])) if body else False
    if not end:
        end = "。" if cjk else "."
    marker = f"{number}:{units[0]}-{units[1]}" if units[1] > units[0] else str(number)
    return f"{body}{'' if cjk else ' '}[{marker}]{end}"
