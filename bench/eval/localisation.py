"""Localisation: is the ``cited_text`` we pick the right place in the source?

* WiCE: the claim is one answer sentence citing its evidence (the evidence sentences joined by newlines,
  as on the web page they came from) as source [1]; gold = WiCE's supporting sentences.
* QuoteSum: each sentence of a human-written semi-extractive answer cites the sources it quotes; gold =
  the quoted spans, found verbatim in the source.
* Anthropic cookbook: Claude's own cited blocks, re-cited by us; gold = Claude's ``cited_text``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from cite_core import number_sources, parse_answer, split_sentences

from ._data import available, load_json, load_jsonl, missing, split
from ._metrics import char_overlap, mean

__all__ = ["cookbook", "quotesum", "wice", "wice_cases"]

WICE = "wice_claim_test_sample100.jsonl"
QUOTESUM = "quotesum_dev_semiextractive.jsonl"
COOKBOOK = "anthropic_cookbook_citations_examples.json"


def _as_answer(claim: str, markers: str = "[1]") -> str:
    """The claim as one answer sentence with its marker before the final stop: ``claim [1].``"""
    claim = claim.strip()
    stop = claim[-1] if claim and claim[-1] in ".!?。！？" else ""
    body = claim[: len(claim) - len(stop)].rstrip()
    return f"{body} {markers}{stop or '.'}"


# -- WiCE -------------------------------------------------------------------------------------------


def wice_cases(which: str) -> list[dict[str, Any]]:
    """Supported and partially supported WiCE claims of a split: claim, evidence text, gold spans."""
    cases = []
    for record in split(load_jsonl(WICE), which):  # type: ignore[arg-type]
        if record["label"] == "not_supported":
            continue
        spans, pos = [], 0
        for sentence in record["evidence"]:
            spans.append((pos, pos + len(sentence)))
            pos += len(sentence) + 1
        gold_sets = [set(s) for s in record["supporting_sentences"]]
        cases.append(
            {
                "claim": record["claim"],
                "text": "\n".join(record["evidence"]),
                "evidence": record["evidence"],
                "spans": spans,
                "gold": set().union(*gold_sets),
                "gold_sets": gold_sets,
            }
        )
    return cases


def _covered(spans: list[tuple[int, int]], cited: tuple[int, int]) -> set[int]:
    """Evidence sentences of which the cited span holds at least half."""
    return {i for i, (a, b) in enumerate(spans) if b > a and char_overlap((a, b), cited) * 2 >= (b - a)} or {
        i for i, span in enumerate(spans) if char_overlap(span, cited) > 0
    }


def _first(spans: list[tuple[int, int]], start: int) -> int:
    """The evidence sentence in which a cited span starts."""
    return next((i for i, (a, b) in enumerate(spans) if a <= start < b), len(spans) - 1)


def wice(which: str = "test", embeddings: Any = None) -> dict[str, Any]:
    """WiCE top-1: the first sentence of the cited span is gold ("first"), any covered one is ("any")."""
    if not available(WICE):
        return {"skipped": missing(WICE)}
    first, hits, precision, recall, base_hits = [], [], [], [], []
    for case in wice_cases(which):
        sources = number_sources([case["text"]])
        answer = parse_answer(_as_answer(case["claim"]), sources, embeddings=embeddings)
        citation = answer.citations[0]
        got = _covered(case["spans"], (citation.source_start, citation.source_end))
        first.append(_first(case["spans"], citation.source_start) in case["gold"])
        hits.append(bool(got & case["gold"]))
        precision.append(len(got & case["gold"]) / len(got) if got else 0.0)
        recall.append(max(len(got & g) / len(g) for g in case["gold_sets"]))
        base_hits.append(_idf_overlap_top1(case["claim"], case["evidence"]) in case["gold"])
    return {
        "claims": len(hits),
        "first": mean(first),
        "top1": mean(hits),
        "precision": mean(precision),
        "recall": mean(recall),
        "baseline_idf_overlap_top1": mean(base_hits),
    }


_WORD = re.compile(r"[^\W_]+")
ENGLISH_STOP = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have he her
    his how i if in into is it its itself me my of on or our she so such than that the their them
    then there these they this those to was we were what when where which while who whom why will
    with would you your also about after again all any because before both each few further more
    most other over own same some just only not no nor very s t don should now may might must shall
    upon per via yes""".split()
)
"""The baseline's English stop words (the English part of the library's list; no stemming)."""


def _idf_overlap_top1(claim: str, sentences: list[str]) -> int:
    """The issue's baseline: idf-weighted overlap of the claim's words with each sentence, English stop
    words left out (idf over the evidence sentences); ties go to the first sentence."""
    bags = [set(_WORD.findall(s.lower())) - ENGLISH_STOP for s in sentences]
    df = Counter(w for bag in bags for w in bag)
    n = len(bags)
    words = set(_WORD.findall(claim.lower())) - ENGLISH_STOP
    scores = [sum(math.log(n / df[w]) for w in words & bag) for bag in bags]
    return max(range(n), key=lambda i: (scores[i], -i))


# -- QuoteSum ---------------------------------------------------------------------------------------

_QUOTE = re.compile(r"\[ (\d+) (.*?) \]")


def quotesum(which: str = "test", embeddings: Any = None) -> dict[str, Any]:
    """Each answer sentence cites the sources it quotes; our cited span is compared with the quote."""
    if not available(QUOTESUM):
        return {"skipped": missing(QUOTESUM)}
    hit, recall, precision = [], [], []
    for record in split(load_jsonl(QUOTESUM), which):  # type: ignore[arg-type]
        texts = {s["n"]: s["text"] for s in record["sources"]}
        numbers = sorted(texts)
        sources = number_sources(
            [
                {"text": texts[n], "title": s.get("title")}
                for n, s in sorted((s["n"], s) for s in record["sources"])
            ],
            merge=False,
        )
        index = {n: i for i, n in enumerate(numbers)}
        plain, quotes = _unquote(record["summary"])
        for start, end in split_sentences(plain):
            inside = [(n, q) for (a, b, n, q) in quotes if a >= start and b <= end and q in texts.get(n, "")]
            cited = sorted({n for n, _ in inside if n in index})
            if not cited:
                continue
            marks = "".join(f"[{index[n] + 1}]" for n in cited)
            answer = parse_answer(_as_answer(plain[start:end], marks), sources, embeddings=embeddings)
            for citation in answer.citations:
                n = numbers[citation.document_index]
                text = texts[n]
                gold = [(text.find(q), text.find(q) + len(q)) for m, q in inside if m == n]
                ours = (citation.source_start, citation.source_end)
                shared = sum(char_overlap(ours, g) for g in gold)
                hit.append(shared > 0)
                recall.append(shared / sum(b - a for a, b in gold))
                precision.append(shared / max(1, ours[1] - ours[0]))
    return {
        "citations": len(hit),
        "overlaps_quote": mean(hit),
        "quote_recall": mean(recall),
        "quote_precision": mean(precision),
    }


def _unquote(summary: str) -> tuple[str, list[tuple[int, int, int, str]]]:
    """The summary without quote markup, and each quote's (start, end, source n, text)."""
    out, quotes, pos, length = [], [], 0, 0
    for m in _QUOTE.finditer(summary):
        out.append(summary[pos : m.start()])
        length += m.start() - pos
        quotes.append((length, length + len(m.group(2)), int(m.group(1)), m.group(2)))
        out.append(m.group(2))
        length += len(m.group(2))
        pos = m.end()
    out.append(summary[pos:])
    return "".join(out), quotes


# -- Anthropic cookbook -----------------------------------------------------------------------------


def cookbook(which: str = "all", embeddings: Any = None) -> dict[str, Any]:
    """Claude's cited blocks, each given back as an answer sentence citing the same document(s)."""
    if not available(COOKBOOK):
        return {"skipped": missing(COOKBOOK)}
    overlap, jaccard = [], []
    for example in load_json(COOKBOOK)["examples"]:
        docs = example["documents"]
        if example["document_type"].startswith("content"):
            continue  # Claude cites whole blocks there; nothing to localise
        sources = number_sources([{"text": d["text"], "title": d["title"]} for d in docs], merge=False)
        for block in example["response_content"]:
            for gold in block.get("citations") or []:
                doc = gold["derived_document_index"]
                answer = parse_answer(
                    _as_answer(block["text"], f"[{doc + 1}]"), sources, embeddings=embeddings
                )
                ours = answer.citations[0]
                g = (gold["derived_start_char_index"], gold["derived_end_char_index"])
                o = (ours.source_start, ours.source_end)
                shared = char_overlap(g, o)
                overlap.append(shared > 0)
                jaccard.append(shared / (max(g[1], o[1]) - min(g[0], o[0])))
    return {"claude_citations": len(overlap), "overlaps_claude": mean(overlap), "char_jaccard": mean(jaccard)}
