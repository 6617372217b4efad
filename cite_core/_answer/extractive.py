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
from typing import Any

from .._args import check_int, check_items, check_text, shown
from .._exceptions import PromptError
from .._locate.scoring import ClaimTerms, TermStats, bm25, support
from .._schema.models import Source
from .._sources.analysis import source_units
from .._sources.numbering import number_sources
from .._sources.terms import analyze
from .._text import CJK_RE

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
        "[": "(",
        "]": ")",
        "【": "(",
        "】": ")",
        "［": "(",
        "］": ")",
        "〔": "(",
        "〕": ")",
        "`": "'",
        "<": "‹",
        ">": "›",
    }
)
RELATIVE_CUTOFF = 0.5
"""Sentences scoring below this share of the best sentence's score are not used."""
MAX_SENTENCE_CHARS = 600
"""Sentences longer than this (tables, run-on text) are skipped."""
MAX_SYMBOL_SHARE = 0.08
"""Sentences where more than this share of the characters are code symbols (source code) are skipped."""
_SYMBOLS = re.compile(r"[=(){}\[\]<>\"`;|\\/_*#$&^~+]")
_INDENTED = re.compile(r"\n(?:[ ]{4}|\t)\S|[\w)\]]\s*=\s*[\w\[(\"']")
_LEAD = re.compile(r"^(?:[-*+>•]|\d{1,3}[.)]|#{1,6})\s+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
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
    ``number_sources`` numbers them). When nothing matches, a plain statement says so.
    """
    if not isinstance(question, str) or not question.strip():
        raise PromptError(f"question must be a non-empty string, got {shown(question)}")
    check_text(question, "question")
    check_int(max_sentences, "max_sentences", low=1)
    items = check_items(sources, "sources")
    numbered: list[Source] = items if all(isinstance(s, Source) for s in items) else number_sources(items)
    lang = "zh" if _is_cjk(question) else "en"
    query = analyze(question)
    units = [(source, unit) for source in numbered for unit in source_units(source)]
    if not query or not units:
        return NO_ANSWER[lang]
    stats = TermStats.from_units(unit.terms for _, unit in units)
    claim = ClaimTerms.of(query, stats)
    scores = bm25(
        claim, [Counter(unit.terms) for _, unit in units], [len(u.terms) for _, u in units], stats.avg_len
    )
    ranked = []
    for (source, unit), score in zip(units, scores):
        text = source.text[unit.start : unit.end]
        if (
            score <= 0
            or len(text) > MAX_SENTENCE_CHARS
            or len(unit.terms) < 2
            or _looks_like_code(text)
            or text.rstrip().endswith(_LEAD_IN)
            or _is_question(text)
        ):
            continue
        coverage = support(claim, unit.terms)
        ranked.append((score * (0.5 + coverage), source.number, unit.start, source, unit))
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    if ranked:
        cutoff = ranked[0][0] * RELATIVE_CUTOFF
        ranked = [r for r in ranked if r[0] >= cutoff]
    chosen: list[tuple[Source, Any]] = []
    for _, _, _, source, unit in ranked:
        terms = set(unit.terms)
        if any(_overlap(terms, set(other.terms)) > 0.7 for _, other in chosen):
            continue
        chosen.append((source, unit))
        if len(chosen) == max_sentences:
            break
    if not chosen:
        return NO_ANSWER[lang]
    parts = []
    for source, unit in chosen:
        sentence = " ".join(source.text[unit.start : unit.end].split())
        sentence = _EMPHASIS.sub(r"\2", _LEAD.sub("", sentence)).translate(_NEUTRAL)
        parts.append(_with_marker(sentence, source.number))
    joiner = "" if lang == "zh" else " "
    return joiner.join(parts)


def _looks_like_code(text: str) -> bool:
    return (
        "```" in text
        or _INDENTED.search(text) is not None
        or len(_SYMBOLS.findall(text)) > MAX_SYMBOL_SHARE * len(text)
    )


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _with_marker(sentence: str, number: int) -> str:
    """``sentence`` with ``[number]`` before its final punctuation (added when it has none)."""
    unquoted = sentence.rstrip(_END_QUOTES)
    cut = len(unquoted.rstrip(_END_PUNCT))
    body, end = (sentence[:cut], sentence[cut:]) if cut < len(unquoted) else (sentence, "")
    cjk = bool(_CJK.search(body[-1:])) if body else False
    if not end:
        end = "。" if cjk else "."
    return f"{body}{'' if cjk else ' '}[{number}]{end}"
