"""``cite ask``: retrieve, stream a cited answer into the terminal (or print JSON / Markdown)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from cite_core import CitationStream, number_sources, split_sentences

from ._errors import CliError
from ._llm import EXTRACTIVE_NOTE, choose_answerer
from ._store import Hit, Store

__all__ = ["ask"]


def _sources(hits: Sequence[Hit]) -> list[Any]:
    items = []
    for hit in hits:
        p = hit.payload
        item = {
            "text": p["text"],
            "title": p.get("title"),
            "document_id": p.get("document_id"),
            "start_index": p.get("start_index"),
            "score": hit.score,
            "metadata": {"path": p.get("path")},
        }
        if p.get("page") is not None:
            item["page"] = p["page"]
        items.append(item)
    return number_sources(items)


def question_parts(question: str) -> list[str]:
    """The sentences of a question (a two-part question is retrieved for each part as well)."""
    parts = [question[s:e].strip() for s, e in split_sentences(question)]
    return [p for p in parts if p]


def retrieve(store: Store, question: str, *, limit: int, embed: Callable[[str], Any] | None) -> list[Hit]:
    """The best chunks for the whole question, and the best of each part of a question."""
    hits = store.search(question, limit=limit, dense=embed(question) if embed else None)
    parts = question_parts(question)
    if len(parts) < 2:
        return hits
    per_part = max(1, limit // len(parts))
    ranked = [store.search(p, limit=per_part, dense=embed(p) if embed else None) for p in parts]
    chosen: dict[tuple[str, int], Hit] = {}
    for lists in [*ranked, hits]:  # each part's best first, then the whole question fills the rest
        for hit in lists:
            key = (hit.payload.get("document_id", ""), hit.payload.get("chunk", 0))
            if len(chosen) < limit:
                chosen.setdefault(key, hit)
    return list(chosen.values())


class _Terminal:
    """Writes the streamed answer: text as it comes, ``[n]`` as each citation resolves."""

    def __init__(self, out: TextIO, color: bool) -> None:
        self.out = out
        self.color = color
        self.printed: set[tuple[int, int, int]] = set()

    def style(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def event(self, event: Any) -> None:
        if event.type == "text_delta":
            self.out.write(event.text)
        elif event.type == "citations_delta":
            key = (event.claim_start, event.claim_end, event.citation.reference)
            if key in self.printed:
                return
            self.printed.add(key)
            self.out.write(self.style(f"[{event.citation.reference}]", "36"))
        self.out.flush()

    def references(self, answer: Any) -> None:
        if not answer.references:
            return
        by_ref: dict[int, list[Any]] = {}
        for c in answer.citations:
            by_ref.setdefault(c.reference, []).append(c)
        self.out.write("\n" + self.style("References", "1") + "\n")
        for ref in answer.references:
            source = ref.source
            where = source.metadata.get("path") or source.document_id or ""
            line = " ".join(source.label.split())
            extra = ", ".join(
                x for x in (where if where != line else "", _pages(by_ref.get(ref.number, []))) if x
            )
            self.out.write(
                f"{self.style(f'[{ref.number}]', '36')} {line}" + (f" — {extra}" if extra else "") + "\n"
            )
            for quote in dict.fromkeys(" ".join(c.cited_text.split()) for c in by_ref.get(ref.number, [])):
                short = quote if len(quote) <= 240 else quote[:237] + "…"
                self.out.write(self.style(f"    “{short}”", "2") + "\n")
        self.out.flush()


def _pages(citations: list[Any]) -> str:
    ranges = [(c.start_page_number, c.end_page_number - 1) for c in citations if c.type == "page_location"]
    if not ranges:
        return ""
    first, last = min(a for a, _ in ranges), max(b for _, b in ranges)
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def ask(
    args: argparse.Namespace, open_store: Callable[..., Store], make_embedder: Callable[[str | None], Any]
) -> int:
    """Run ``cite ask``; returns the exit status."""
    if not args.question.strip():
        raise CliError("the question is empty")
    if args.top_k < 1:
        raise CliError("--top-k must be at least 1")
    if args.max_tokens < 1:
        raise CliError("--max-tokens must be at least 1")
    answerer = choose_answerer(args.model, args.base_url, args.api_key, max_tokens=args.max_tokens)
    store = open_store(create=False)
    try:
        meta = store.meta()
        store.check_format(meta)
        embedder = make_embedder(args.dense or meta.get("dense_model"))
        embed = (lambda text: embedder.embed([text])[0]) if embedder else None
        hits = retrieve(store, args.question, limit=args.top_k, embed=embed)
        hint = store.size_hint()
    finally:
        store.close()
    if hint:
        print(hint, file=sys.stderr)
    sources = _sources(hits)
    if not sources:
        raise CliError("nothing in the index matches the question (try other words, or ingest more files)")
    out = sys.stdout
    color = out.isatty() and not args.no_color and not os.environ.get("NO_COLOR")
    term = _Terminal(out, color)
    live = not (args.json or args.markdown)
    if answerer.extractive:
        if live:
            out.write(term.style(f"({EXTRACTIVE_NOTE})", "2") + "\n")
        else:
            print(f"cite: {EXTRACTIVE_NOTE}", file=sys.stderr)
    stream = CitationStream(sources)
    for chunk in answerer.stream(args.question, sources):
        for event in stream.feed(chunk):
            if live:
                term.event(event)
    answer = stream.finish()
    for event in stream.pending_events():
        if live:
            term.event(event)
    if live:
        out.write("\n")
        term.references(answer)
    elif args.json:
        message = {
            "type": "message",
            "role": "assistant",
            "model": answerer.name,
            **answer.to_anthropic(),
            "stop_reason": "end_turn",
        }
        out.write(json.dumps(message, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(answer.to_markdown(style="links"))
    if args.html:
        path = Path(args.html)
        try:
            path.write_text(answer.to_html(full_page=True, title=args.question), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc.strerror or exc}") from exc
        print(f"wrote {path}", file=sys.stderr)
    return 0
