"""``cite ingest PATH...`` and ``cite ask "question"``: see ``docs/cli.md``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ._errors import EXIT_ERROR, CliError

__all__ = ["main"]


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path", default=None, help="folder of the embedded Qdrant index (default: ./.cite/qdrant)"
    )
    parser.add_argument(
        "--qdrant-url",
        default=os.environ.get("CITE_QDRANT_URL"),
        help="use a Qdrant server or cluster instead (env CITE_QDRANT_URL)",
    )
    parser.add_argument(
        "--qdrant-api-key", default=os.environ.get("CITE_QDRANT_API_KEY"), help=argparse.SUPPRESS
    )
    parser.add_argument("--collection", default="cite", help="collection name (default: cite)")
    parser.add_argument(
        "--dense",
        default=os.environ.get("CITE_DENSE"),
        metavar="BACKEND:MODEL",
        help="also use a local dense model already on disk: fastembed:NAME or st:NAME",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cite", description="Answer questions about your documents, with citations."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="read .txt, .md and .pdf files into the index")
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    ingest.add_argument("--chunk-size", type=int, default=1200, help="characters per chunk (default: 1200)")
    ingest.add_argument("--overlap", type=int, default=200, help="characters of overlap (default: 200)")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar")
    _common(ingest)

    ask = sub.add_parser("ask", help="answer a question with citations")
    ask.add_argument("question")
    ask.add_argument("--top-k", type=int, default=6, help="chunks to retrieve (default: 6)")
    ask.add_argument(
        "--model",
        default=None,
        help="LangChain provider:model, or the model name at --base-url (env CITE_MODEL)",
    )
    ask.add_argument(
        "--base-url",
        default=None,
        help="an OpenAI-compatible server (Ollama, vLLM, llama.cpp) (env CITE_BASE_URL)",
    )
    ask.add_argument("--api-key", default=None, help="API key for the model (env CITE_API_KEY)")
    ask.add_argument("--max-tokens", type=int, default=12000, help="prompt budget in tokens (default: 12000)")
    out = ask.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the answer as an Anthropic-shaped message")
    out.add_argument("--markdown", action="store_true", help="print the answer as Markdown with references")
    ask.add_argument("--html", metavar="FILE", default=None, help="also write a self-contained HTML page")
    ask.add_argument("--no-color", action="store_true", help="no colours (also NO_COLOR)")
    _common(ask)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "ingest":
            return _ingest(args)
        return _ask(args)
    except CliError as exc:
        print(f"cite: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("cite: interrupted", file=sys.stderr)
        return 130


def _open_store(args: argparse.Namespace, *, create: bool) -> Any:
    from ._store import Store

    return Store(
        path=args.path,
        url=args.qdrant_url,
        api_key=args.qdrant_api_key,
        collection=args.collection,
        create=create,
    )


def _embedder(args: argparse.Namespace) -> Any:
    if not args.dense:
        return None
    from ._store import DenseEmbedder

    return DenseEmbedder(args.dense)


# -- ingest -----------------------------------------------------------------------------------------


def _ingest(args: argparse.Namespace) -> int:
    from ._documents import chunk_document, find_files, read_document
    from ._errors import require

    if args.chunk_size < 100 or not 0 <= args.overlap < args.chunk_size:
        raise CliError("--chunk-size must be at least 100 and --overlap between 0 and the chunk size")
    files = find_files(args.paths)
    documents = [read_document(f) for f in files]  # every file is read before the index is touched
    embedder = _embedder(args)
    tqdm = require("tqdm", "The progress bar").tqdm
    store = _open_store(args, create=True)
    chunks_total = 0
    try:
        store.ensure_collection(embedder.spec if embedder else None, embedder.size if embedder else None)
        bar = tqdm(
            documents,
            desc="ingest",
            unit="file",
            disable=args.quiet or None,
            file=sys.stderr,
            dynamic_ncols=True,
        )
        for doc in bar:
            bar.set_postfix_str(doc.path.name[:30])
            chunks = list(chunk_document(doc, size=args.chunk_size, overlap=args.overlap))
            dense = embedder.embed([c.text for c in chunks]) if embedder and chunks else None
            store.replace_document(str(doc.path), chunks, dense)
            chunks_total += len(chunks)
    finally:
        store.close()
    print(
        f"indexed {len(documents)} file(s), {chunks_total} chunk(s) into {store.where} "
        f"(collection '{args.collection}')",
        file=sys.stderr,
    )
    return 0


# -- ask --------------------------------------------------------------------------------------------


def _sources(hits: Sequence[Any]) -> list[Any]:
    from cite_core import number_sources

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
        else:
            key = (event.claim_start, event.claim_end, event.citation.reference)
            if key in self.printed:
                return
            self.printed.add(key)
            self.out.write(self.style(f"[{event.citation.reference}]", "36"))
        self.out.flush()

    def references(self, answer: Any) -> None:
        from cite_core._render import _LABELS, _page_text, _pages

        if not answer.references:
            return
        by_ref: dict[int, list[Any]] = {}
        for c in answer.citations:
            by_ref.setdefault(c.reference, []).append(c)
        self.out.write("\n" + self.style("References", "1") + "\n")
        for ref in answer.references:
            source = ref.source
            where = source.metadata.get("path") or source.document_id or ""
            pages = _page_text(_pages(ref, by_ref.get(ref.number, [])), _LABELS["en"])
            line = " ".join(source.label.split())
            extra = ", ".join(x for x in (where if where != line else "", pages) if x)
            self.out.write(
                f"{self.style(f'[{ref.number}]', '36')} {line}" + (f" — {extra}" if extra else "") + "\n"
            )
            for quote in dict.fromkeys(" ".join(c.cited_text.split()) for c in by_ref.get(ref.number, [])):
                short = quote if len(quote) <= 240 else quote[:237] + "…"
                self.out.write(self.style(f"    “{short}”", "2") + "\n")
        self.out.flush()


def _ask(args: argparse.Namespace) -> int:
    from cite_core import CitationStream

    from ._llm import EXTRACTIVE_NOTE, choose_answerer

    if not args.question.strip():
        raise CliError("the question is empty")
    if args.top_k < 1:
        raise CliError("--top-k must be at least 1")
    answerer = choose_answerer(args.model, args.base_url, args.api_key, max_tokens=args.max_tokens)
    store = _open_store(args, create=False)
    try:
        dense_model = store.meta().get("dense_model")
        if dense_model and not args.dense:
            args.dense = dense_model
        embedder = _embedder(args)
        query_vector = embedder.embed([args.question])[0] if embedder else None
        hits = store.search(args.question, limit=args.top_k, dense=query_vector)
    finally:
        store.close()
    sources = _sources(hits)
    out = sys.stdout
    color = out.isatty() and not args.no_color and not os.environ.get("NO_COLOR")
    term = _Terminal(out, color)
    live = not (args.json or args.markdown)
    if not sources:
        raise CliError("nothing in the index matches the question (try other words, or ingest more files)")
    if answerer.extractive:
        print(EXTRACTIVE_NOTE, file=sys.stderr)
        if live:
            out.write(term.style("(extractive answer: no LLM configured)", "2") + "\n")
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


if __name__ == "__main__":
    sys.exit(main())
