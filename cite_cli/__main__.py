"""``cite ingest PATH...`` and ``cite ask "question"``: see ``docs/cli.md``."""

from __future__ import annotations

import sys

try:  # a Ctrl-C in the first milliseconds, before main()'s own handler: one line, not a traceback
    import argparse
    import contextlib
    import difflib
    import os
    from collections.abc import Sequence
    from pathlib import Path
    from typing import TYPE_CHECKING, Any, NoReturn

    from ._interrupt import is_interrupt, watching
except KeyboardInterrupt:
    sys.stderr.write("cite: interrupted\n")
    raise SystemExit(130) from None

# Only the standard library at import time: an interrupt while cite_core and Qdrant load (the first
# second) must end in one clean line, which ``main`` prints; they are imported inside it.
if TYPE_CHECKING:
    import sqlite3

    from ._errors import CliError

__all__ = ["main"]

EXIT_ERROR = 2
"""The exit status of a ``cite: error:`` (``cite_cli._errors.EXIT_ERROR``)."""
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line as one ``cite: error: ...`` line (exit status 2); a
    mistyped option names the closest valid one of its command (``--jsn``: did you mean ``--json``?)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"cite: error: {message} (see `{self.prog} --help`)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            sub = _SUBCOMMANDS.get(command or "", self)
            options = [o for action in sub._actions for o in action.option_strings]
            shown = []
            for extra in extras:
                close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]}?)" if extra.startswith("-") and close else ""
                shown.append(extra + hint)
            sub.error(f"unrecognized arguments: {' '.join(shown)}")
        return parsed


_SUBCOMMANDS: dict[str, argparse.ArgumentParser] = {}


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
    parser = _Parser(prog="cite", description="Answer questions about your documents, with citations.")
    sub = parser.add_subparsers(dest="command", required=True)
    _SUBCOMMANDS.clear()

    ingest = sub.add_parser("ingest", help="read .txt, .md and .pdf files into the index")
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (searched recursively)")
    ingest.add_argument("--chunk-size", type=int, default=1200, help="characters per chunk (default: 1200)")
    ingest.add_argument("--overlap", type=int, default=200, help="characters of overlap (default: 200)")
    ingest.add_argument("--quiet", action="store_true", help="no progress bar")
    ingest.add_argument(
        "--strict",
        action="store_true",
        help="stop, changing nothing, at the first file that cannot be read (default: skip it, name it, "
        "index the rest and exit with status 1)",
    )
    ingest.add_argument(
        "--prune",
        action="store_true",
        help="also remove indexed files that are not under any PATH given (the index becomes PATH...)",
    )
    _common(ingest)
    _SUBCOMMANDS["ingest"] = ingest

    listing = sub.add_parser("list", help="list the indexed files")
    listing.add_argument("--json", action="store_true", help="one JSON object per file")
    _common(listing)
    _SUBCOMMANDS["list"] = listing

    remove = sub.add_parser("remove", help="take files (or every file under a folder) out of the index")
    remove.add_argument("paths", nargs="+", metavar="PATH", help="indexed files or folders (need not exist)")
    _common(remove)
    _SUBCOMMANDS["remove"] = remove

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
    ask.add_argument(
        "--verify", action="store_true", help="check each cited claim against its passages with the model"
    )
    _common(ask)
    _SUBCOMMANDS["ask"] = ask
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cite``; returns the exit status. An interrupt at any moment prints one line (130)."""
    with watching():
        try:
            args = build_parser().parse_args(argv)
        except KeyboardInterrupt:  # while parsing: no command yet
            print("cite: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        try:
            return _main(args)
        except BaseException as exc:  # importing, opening and checking the index: before a command's own
            # handler; or an error a library raised in the interrupt's place (pydantic-core's SchemaError
            # while qdrant-client imports): still an interrupt, not a failure to report
            if not is_interrupt(exc):
                raise
            _interrupted(args.command)
            return EXIT_INTERRUPTED


def _interrupted(command: str) -> None:
    """The line of an interrupt that no command's own handler met (nothing was written yet)."""
    if command == "ingest":  # say what was kept, as an interrupted write does
        print(
            "cite: interrupted: 0 file(s) updated; every other file keeps its previous version "
            "(run the same command again to finish)",
            file=sys.stderr,
        )
        return
    if sys.stdout.isatty():  # the answer streamed so far may end mid-line: the note gets its own
        with contextlib.suppress(OSError):
            sys.stdout.write("\n")
            sys.stdout.flush()
    print("cite: interrupted", file=sys.stderr)


def _main(args: argparse.Namespace) -> int:
    import sqlite3

    from cite_core import CiteError, strip_controls

    try:
        if args.command == "ingest":
            from ._ingest import ingest

            return ingest(args, lambda create: _open_store(args, create=create), _embedder(args.dense))
        if args.command == "ask":
            from ._ask import ask

            return ask(args, lambda create: _open_store(args, create=create), _embedder)
        if args.command == "list":
            return _list(args)
        return _remove(args)
    except CiteError as exc:
        _raise_if_interrupted(exc)
        print(strip_controls(f"cite: error: {_one_line(str(exc))}"), file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader went away (`cite ask ... | head`): nothing left to say
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (sqlite3.Error, OSError) as exc:  # the embedded index's storage (a full disk, a read-only one)
        _raise_if_interrupted(exc)
        print(strip_controls(f"cite: error: {_one_line(str(_storage_error(args, exc)))}"), file=sys.stderr)
        return EXIT_ERROR


def _raise_if_interrupted(exc: BaseException) -> None:
    """An error raised because Ctrl-C stopped the work (a storage error wrapping it) is the interrupt."""
    if is_interrupt(exc):
        raise KeyboardInterrupt from exc


def _storage_error(args: argparse.Namespace, exc: sqlite3.Error | OSError) -> CliError:
    from ._check import storage_error
    from ._store import DEFAULT_PATH

    return storage_error(str(args.path or DEFAULT_PATH), args.collection, exc)


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "unknown error"


def _open_store(args: argparse.Namespace, *, create: bool) -> Any:
    from ._store import Store

    return Store(
        path=args.path,
        url=args.qdrant_url,
        api_key=args.qdrant_api_key,
        collection=args.collection,
        create=create,
    )


def _embedder(spec: str | None) -> Any:
    if not spec:
        return None
    from ._dense import DenseEmbedder

    return DenseEmbedder(spec)


def _list(args: argparse.Namespace) -> int:
    import json

    from cite_core import strip_controls

    from ._check import require_whole
    from ._errors import shown
    from ._output import safe_json

    store = _open_store(args, create=False)
    try:
        store.check_format(store.meta())
        records = sorted(store.files().values(), key=lambda r: r.document_id)
        require_whole(store, records)
    finally:
        store.close()
    for r in records:
        missing = not Path(r.document_id).exists()
        if args.json:
            row = {
                "path": r.document_id,
                "chunks": r.chunks,
                "bytes": r.bytes,
                "sha256": r.sha256,
                "missing": missing,
            }
            print(safe_json(json.dumps(row, ensure_ascii=False)))
        else:
            print(
                strip_controls(
                    f"{r.chunks:>6} chunks {r.bytes:>10,} bytes  {shown(r.document_id)}"
                    + ("  (missing)" if missing else "")
                )
            )
    if not args.json:
        print(
            strip_controls(
                f"{len(records)} file(s) in collection '{args.collection}' at {shown(store.where)}"
            ),
            file=sys.stderr,
        )
    return 0


def _remove(args: argparse.Namespace) -> int:
    from cite_core import strip_controls

    from ._errors import CliError, shown
    from ._updates import remove

    store = _open_store(args, create=False)
    try:
        store.check_format(store.meta())
        records = store.files()
        targets = [Path(p).resolve() for p in args.paths]
        chosen = [r for r in records.values() if any(Path(r.document_id).is_relative_to(t) for t in targets)]
        unmatched = [
            p
            for p, t in zip(args.paths, targets)
            if not any(Path(r.document_id).is_relative_to(t) for r in chosen)
        ]
        if unmatched:
            raise CliError(f"not in the index: {', '.join(map(shown, unmatched))} (see `cite list`)")
        remove(store, chosen)
    finally:
        store.close()
    print(
        strip_controls(f"removed {len(chosen)} file(s) from collection '{args.collection}'"), file=sys.stderr
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
