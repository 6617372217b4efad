"""``cite ask``: retrieve, stream a cited answer into the terminal (or print JSON / Markdown)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cite_core import (
    CitationStream,
    CitedAnswer,
    Note,
    answer_notes,
    number_sources,
    render_html,
    strip_controls,
)

from ._check import require_whole
from ._errors import CliError, os_reason, shown
from ._llm import EXTRACTIVE_NOTE, choose_answerer, question_parts, verified
from ._output import LiveTerminal, json_message, markdown_answer
from ._search import search
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
            "metadata": _paths(p.get("path")),
        }
        if p.get("page") is not None:
            item["page"] = p["page"]
        items.append(item)
    return number_sources(items)


def _paths(stored: Any) -> dict[str, Any]:
    """A chunk's file as the reader finds it: ``path`` relative to the current folder when the file is
    under it (as given to ``cite ingest`` from here), else absolute; ``file_path`` absolute, for links."""
    if not isinstance(stored, str) or not stored:
        return {"path": stored}
    try:
        shown = str(Path(stored).relative_to(Path.cwd()))
    except ValueError:
        shown = stored
    return {"path": shown, "file_path": stored}


def retrieve(store: Store, question: str, *, limit: int, embed: Callable[[str], Any] | None) -> list[Hit]:
    """The best chunks for the whole question, and the best of each part of a question."""
    hits = search(store, question, limit=limit, dense=embed(question) if embed else None)
    parts = question_parts(question)
    if len(parts) < 2:
        return hits
    per_part = max(1, limit // len(parts))
    ranked = [search(store, p, limit=per_part, dense=embed(p) if embed else None) for p in parts]
    chosen: dict[tuple[str, int], Hit] = {}
    for lists in [*ranked, hits]:  # each part's best first, then the whole question fills the rest
        for hit in lists:
            key = (hit.payload.get("document_id", ""), hit.payload.get("chunk", 0))
            if len(chosen) < limit:
                chosen.setdefault(key, hit)
    return list(chosen.values())


MAX_TOP_K = 1000
"""More chunks than this is not a prompt (nor an extractive answer) anyone reads."""


def _check(args: argparse.Namespace) -> None:
    """The options of ``cite ask`` that argparse cannot check, each with its own message: all of them
    before the index is opened or a model called (a paid call is never wasted on a bad option)."""
    if not args.question.strip():
        raise CliError("the question is empty")
    if not 1 <= args.top_k <= MAX_TOP_K:
        raise CliError(f"--top-k must be between 1 and {MAX_TOP_K}, got {args.top_k}")
    if args.max_tokens < 1:
        raise CliError("--max-tokens must be at least 1")
    if args.html == "-":  # not standard output: the page would be written to a file named "-"
        raise CliError(
            "--html - is not standard output: give the page a file name (--html answer.html); the answer "
            "itself prints to standard output (--markdown, --json)"
        )
    if args.html:
        _check_writable(Path(args.html))


def _check_writable(path: Path) -> None:
    """``--html FILE`` can be written: its folder exists and is writable, and it is not a folder."""
    folder = path.parent
    if path.is_dir():
        raise CliError(f"cannot write --html {shown(path)}: it is a folder")
    if not folder.is_dir():
        raise CliError(f"cannot write --html {shown(path)}: no such folder {shown(folder)}")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise CliError(f"cannot write --html {shown(path)}: permission denied")


def _write_html(where: str, answer: CitedAnswer, question: str, notes: list[Note]) -> None:
    """``--html``: the answer as a standalone page."""
    path = Path(where)
    try:
        path.write_text(
            render_html(answer, full_page=True, title=question, notes=notes, file_links=True),
            encoding="utf-8",
        )
    except OSError as exc:
        raise CliError(f"cannot write {shown(path)}: {os_reason(exc)}") from exc
    print(strip_controls(f"wrote {shown(path)}"), file=sys.stderr)


def ask(
    args: argparse.Namespace, open_store: Callable[..., Store], make_embedder: Callable[[str | None], Any]
) -> int:
    """Run ``cite ask``; returns the exit status."""
    _check(args)
    answerer = choose_answerer(args.model, args.base_url, args.api_key, max_tokens=args.max_tokens)
    if args.verify and answerer.extractive:
        raise CliError("--verify needs a model to judge with (--model or --base-url, or CITE_MODEL)")
    store = open_store(create=False)
    try:
        meta = store.meta()
        store.check_format(meta)
        require_whole(store, store.files().values())
        embedder = make_embedder(args.dense or meta.get("dense_model"))
        embed = (lambda text: embedder.embed([text])[0]) if embedder else None
        hits = retrieve(store, args.question, limit=args.top_k, embed=embed)
        hint = store.size_hint()
    finally:
        store.close()
    if hint:
        print(strip_controls(hint), file=sys.stderr)
    sources = _sources(hits)
    if not sources:
        raise CliError("nothing in the index matches the question (try other words, or ingest more files)")
    out = sys.stdout
    color = out.isatty() and not args.no_color and not os.environ.get("NO_COLOR")
    live = LiveTerminal(out, color) if not (args.json or args.markdown) else None
    if answerer.extractive:
        print(strip_controls(f"cite: {EXTRACTIVE_NOTE}"), file=sys.stderr)
    messages, seen, dropped = answerer.prepare(args.question, sources)
    stream = CitationStream(seen)
    for chunk in answerer.stream(args.question, seen, messages):
        for event in stream.feed(chunk):
            if live:
                live.event(event)
    answer = stream.finish()
    for event in stream.pending_events():
        if live:
            live.event(event)
    if args.verify:
        answer = verified(answer, answerer)
    notes = answer_notes(answer, extractive=answerer.extractive, dropped=dropped)
    if live:
        live.finish(answer, notes)
    elif args.json:
        out.write(json_message(answer, answerer.name, notes))
    else:
        out.write(markdown_answer(answer, notes))
    if args.html:
        _write_html(args.html, answer, args.question, notes)
    return 0
