"""Post-hoc (two-pass) attribution: add citations to an answer that was written without markers.

The answer is split into sentences; each sentence is localised in every source (the same BM25 and
support score as for ``[n]`` markers); ``[n]`` markers are inserted after the sentences whose best
support reaches the threshold, and the marked text goes through ``parse_answer``, so the result is a
``CitedAnswer`` of exactly the same shape as for a model that cited its sources itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._args import check_int, check_items, check_number, check_text
from .._locate.localize import Corpus
from .._schema.models import CitedAnswer, Source
from .._schema.support import ATTRIBUTION_THRESHOLD
from .._sources.numbering import number_sources
from .._sources.segmenter import split_sentences
from .._sources.terms import analyze
from .parser import parse_answer

__all__ = ["attribute"]

_TRAILING = frozenset(".!?;:。！？；：…\"'”’»」』)）")
_CJK_END = frozenset("。！？；：」』）")
MIN_TERMS = 2
"""Sentences with fewer matching terms than this (headings, "Yes.") are left uncited."""
MAX_SOURCES = 2
"""How many sources one sentence may cite (chosen on ExpertQA dev: 2 recovers 0.300 of the original
citations instead of 0.282 and cites no more claims that experts judged unsupported; 3 adds nothing)."""
MARGIN = 0.1
"""A sentence cites a further source when its support is within this of the best source's."""


def attribute(
    answer_text: str,
    sources: Sequence[Any],
    *,
    threshold: float = ATTRIBUTION_THRESHOLD,
    max_sources: int = MAX_SOURCES,
    margin: float = MARGIN,
    embeddings: Any = None,
) -> CitedAnswer:
    """Cite an unmarked answer: each sentence cites the source(s) that support it at least ``threshold``.

    A sentence cites its best source, plus up to ``max_sources - 1`` more whose support is within
    ``margin`` of the best. ``threshold`` applies to the support of the sentence's best span alone
    (``Corpus(..., source_units=1)``); the answer flags weak support as ``parse_answer`` does.
    ``embeddings`` (as for ``parse_answer``) mixes the user's embedding model into both steps.
    """
    check_text(answer_text, "answer_text", surrogates=True)
    items = check_items(sources, "sources")
    check_number(threshold, "threshold")
    check_number(margin, "margin")
    check_int(max_sources, "max_sources", low=1)
    if not all(isinstance(s, Source) for s in items):
        items = number_sources(items)
    corpus = Corpus(items, source_units=1, embeddings=embeddings)
    inserts: list[tuple[int, str]] = []
    # each sentence as the claim the marked answer will have: up to where its marker goes ("green [1].")
    claims = [
        (a, b, answer_text[a : _marker_position(answer_text, a, b)].strip())
        for a, b in split_sentences(answer_text)
        if len(set(analyze(answer_text[a:b]))) >= MIN_TERMS
    ]
    # with an embedding model: every claim and every source's units in one call (the final parse finds
    # them all in the cache)
    corpus.prefetch((s, claim) for _, _, claim in claims for s in items)
    for start, end, sentence in claims:
        scored = sorted(
            ((corpus.cite(s, sentence, reference=1).support, -s.number, s) for s in items), reverse=True
        )
        if not scored or scored[0][0] < threshold:
            continue
        best = scored[0][0]
        chosen = [s for score, _, s in scored[:max_sources] if score >= threshold and score >= best - margin]
        at = _marker_position(answer_text, start, end)
        space = "" if answer_text[at - 1 : at] in _CJK_END or _is_cjk(answer_text[at - 1 : at]) else " "
        inserts.append((at, space + "".join(f"[{s.number}]" for s in chosen)))
    marked, cursor = [], 0
    for at, marker in inserts:
        marked.append(answer_text[cursor:at])
        marked.append(marker)
        cursor = at
    marked.append(answer_text[cursor:])
    return parse_answer("".join(marked), items, embeddings=embeddings)


def _marker_position(text: str, start: int, end: int) -> int:
    """Where the marker goes: before the sentence's closing punctuation and quotes ("green [1].")."""
    at = end
    while at > start and text[at - 1] in _TRAILING:
        at -= 1
    while at > start and text[at - 1].isspace():
        at -= 1
    return at if at > start else end


def _is_cjk(char: str) -> bool:
    return bool(char) and "\u3040" <= char <= "\u9fff"
