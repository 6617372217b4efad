"""Post-hoc attribution: ExpertQA answers with their markers stripped, cited again by ``attribute()``.

For every expert-judged claim (located in the stripped answer by its own stripped text):
* recovered: of the original (claim, passage) citations whose passage text is available, the share that
  ``attribute`` cites again on that claim;
* added on unsupported claims: citations ``attribute`` puts on claims the experts judged ``Missing``
  support (uncited claims) or on (claim, passage) pairs judged only ``Partial``/``Incomplete``;
* precision vs experts: of our citations on judged claims, the share that hit an original citation whose
  support the experts judged ``Complete``.
"""

from __future__ import annotations

import re
from typing import Any

from cite_core._answer.attribute import attribute

from ._data import available, load_jsonl, missing, split
from .markers import FILE, expertqa_sources

__all__ = ["run", "strip_markers"]

_MARKER = re.compile(r"[ \t]*\[\d+(?:\s*,\s*\d+)*\]")


def strip_markers(text: str) -> str:
    return _MARKER.sub("", text)


def run(which: str = "test", **options: Any) -> dict[str, Any]:
    if not available(FILE):
        return {"skipped": missing(FILE)}
    originals = recovered = ours_total = ours_complete = 0
    on_missing = missing_claims = missing_cited = on_partial = 0
    for record in split(load_jsonl(FILE), which):  # type: ignore[arg-type]
        texts = {p["n"]: p.get("text") for p in record["passages"]}
        plain = strip_markers(record["answer"])
        answer = attribute(plain, expertqa_sources(record), **options)
        blocks, pos = [], 0
        for block in answer.content:
            blocks.append((pos, pos + len(block.text), [c.document_index + 1 for c in block.citations or []]))
            pos += len(block.text)
        cursor = 0
        for claim in record["claims"]:
            text = strip_markers(claim["claim"]).strip()
            at = plain.find(text, cursor) if text else -1
            if at < 0:
                at = plain.find(text) if text else -1
            if at < 0:
                continue
            cursor = at + len(text)
            cited_by_us = {n for a, b, ns in blocks if a < at + len(text) and b > at for n in ns}
            label = claim.get("support")
            original = {n for n in claim.get("cited") or [] if texts.get(n)}
            if label == "Missing" and not original:
                missing_claims += 1
                on_missing += len(cited_by_us)
                missing_cited += bool(cited_by_us)
                continue
            if label not in ("Complete", "Partial", "Incomplete"):
                continue
            originals += len(original)
            recovered += len(original & cited_by_us)
            ours_total += len(cited_by_us)
            if label == "Complete":
                ours_complete += len(cited_by_us & original)
            else:
                on_partial += len(cited_by_us & original)
    return {
        "original_citations": originals,
        "recovered": recovered / originals if originals else float("nan"),
        "our_citations_on_judged_claims": ours_total,
        "precision_vs_complete": ours_complete / ours_total if ours_total else float("nan"),
        "missing_claims": missing_claims,
        "missing_claims_cited": missing_cited,
        "citations_on_missing_claims": on_missing,
        "citations_on_partial_pairs": on_partial,
    }
