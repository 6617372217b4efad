"""Localisation in Chinese and Spanish, on public-domain prose from ``../shared/data/multilingual``.

Cases are built mechanically (no paraphrase, nothing written by hand): the text is cut at blank lines
into paragraphs, consecutive paragraphs are grouped into sources of at least ``MIN_SOURCE`` characters,
and in every source one sentence (of ``cite_core.split_sentences``, chosen with a fixed seed among
sentences long enough) becomes the claim after a fixed-seed perturbation:

* Spanish: a quarter of the words dropped and two neighbouring words swapped;
* Chinese: the clauses around the first ``，`` swapped and a fifth of the characters dropped
  (paragraphs are lines there; half the cases come from each of the two texts).

The claim is given as an answer sentence citing the source; a hit means our ``cited_text`` holds at
least half of the original sentence. Precision is the share of the cited characters inside it.
"""

from __future__ import annotations

import random
import re
from typing import Any

from cite_core import number_sources, parse_answer, split_sentences

from ._data import available, missing, read_text, split
from ._metrics import char_overlap, mean
from .localisation import _as_answer

__all__ = ["FILES", "cases", "run"]

FILES = {
    "es": ["multilingual/es_don_quijote_part1_ch01-08.txt"],
    "zh": ["multilingual/zh_luxun_a_q_zhengzhuan.txt", "multilingual/zh_hongloumeng_ch01-05.txt"],
}
MIN_SOURCE = 1000
MAX_CASES = 80
SEED = 6


def cases(lang: str) -> list[dict[str, Any]]:
    """Up to ``MAX_CASES`` (source text, claim, original sentence span) cases for a language."""
    rng = random.Random(SEED)
    out: list[dict[str, Any]] = []
    per_file = MAX_CASES // len(FILES[lang])
    for name in FILES[lang]:
        if not available(name):
            continue
        found: list[dict[str, Any]] = []
        separator = r"\n" if lang == "zh" else r"\n\s*\n"  # the Chinese texts put one paragraph per line
        paragraphs = [p for p in re.split(separator, read_text(name)) if p.strip()]
        chunk: list[str] = []
        for paragraph in paragraphs:
            chunk.append(paragraph)
            if sum(map(len, chunk)) < MIN_SOURCE:
                continue
            text = "\n\n".join(chunk)
            chunk = []
            spans = [(a, b) for a, b in split_sentences(text) if _long_enough(text[a:b], lang)]
            if not spans:
                continue
            a, b = rng.choice(spans)
            found.append({"text": text, "span": (a, b), "claim": _perturb(text[a:b], lang, rng)})
        out.extend(found[:per_file])
    return out


def _long_enough(sentence: str, lang: str) -> bool:
    return len(sentence) >= 20 if lang == "zh" else len(sentence.split()) >= 8


def _perturb(sentence: str, lang: str, rng: random.Random) -> str:
    if lang == "zh":
        body = sentence.rstrip("。！？”」")
        if "，" in body:
            head, tail = body.split("，", 1)
            body = f"{tail}，{head}"
        kept = [c for c in body if rng.random() >= 0.2 or c == "，"]
        return "".join(kept) + "。"
    words = sentence.split()
    kept = [w for w in words if rng.random() >= 0.25] or words
    if len(kept) > 2:
        i = rng.randrange(len(kept) - 1)
        kept[i], kept[i + 1] = kept[i + 1], kept[i]
    return " ".join(kept)


def run(which: str = "test", embeddings: Any = None) -> dict[str, Any]:
    """Top-1 and precision per language (``embeddings``: the model mixed into localisation)."""
    result: dict[str, Any] = {}
    for lang in FILES:
        items = split(cases(lang), which)  # type: ignore[arg-type]
        if not items:
            result[lang] = {"skipped": missing("multilingual/")}
            continue
        hits, precision = [], []
        for case in items:
            sources = number_sources([case["text"]])
            answer = parse_answer(_as_answer(case["claim"]), sources, embeddings=embeddings)
            citation = answer.citations[0]
            ours = (citation.source_start, citation.source_end)
            a, b = case["span"]
            shared = char_overlap(ours, (a, b))
            hits.append(shared * 2 >= b - a)
            precision.append(shared / max(1, ours[1] - ours[0]))
        result[lang] = {"cases": len(items), "top1": mean(hits), "precision": mean(precision)}
    return result
