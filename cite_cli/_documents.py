"""Read .txt, .md and .pdf files and cut them into chunks that keep their offsets.

Text is kept exactly as decoded (a UTF-8 byte order mark dropped, line ends untouched: a CRLF file keeps its
``\r\n``), so ``start_index`` and the citations' character offsets count characters of the file itself.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from cite_core import split_sentences

from ._errors import CliError, os_reason, shown

__all__ = [
    "SUFFIXES",
    "Chunk",
    "Document",
    "Found",
    "Unreadable",
    "chunk_document",
    "chunk_spans",
    "find_files",
    "markdown_title",
    "open_regular",
    "read_document",
    "shown",
]

SUFFIXES = (".txt", ".md", ".markdown", ".pdf")
_HEADING = re.compile(r"^[ ]{0,3}#[ \t]", re.M)


@dataclass
class Document:
    """A file's text, by page for PDFs (one page for text files)."""

    path: Path
    title: str
    pages: list[str]
    paged: bool


@dataclass
class Chunk:
    """A piece of a document: ``text == page_text[start:start + len(text)]``."""

    document_id: str
    path: str
    title: str
    text: str
    start: int
    page: int | None
    index: int


@dataclass
class Found:
    """The files named on the command line, the folders searched and the files skipped."""

    files: list[Path]
    folders: list[Path]
    ignored: list[Path]
    """Files in the folders whose type is not read (hidden ones excluded)."""
    special: list[Path] = field(default_factory=list)
    """FIFOs, devices, sockets (or links to them) and broken links in the folders: never opened."""
    unreadable: list[Unreadable] = field(default_factory=list)
    """Files in the folders that cannot be indexed as named (a name that is not valid UTF-8)."""


class Unreadable(CliError):
    """A file that cannot be read (``cannot read PATH: why``); ``cite ingest`` skips it and names it."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"cannot read {shown(path)}: {why}")
        self.path = path
        self.why = why


def _bad_name(path: Path) -> bool:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading, never blocking: a FIFO, a device or a socket (also behind a
    link, or swapped in after the folder was listed) is an ``Unreadable``, never read (``/dev/zero``
    never ends, a FIFO waits for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise Unreadable(path, os_reason(exc)) from exc
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise Unreadable(path, os_reason(exc)) from exc
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Unreadable(path, f"{_kind(mode)}, not a regular file")
    return os.fdopen(fd, "rb")


def find_files(paths: Iterable[str]) -> Found:
    """The readable document files named by ``paths`` (folders searched recursively, hidden ones skipped)."""
    found: list[Path] = []
    folders: list[Path] = []
    skipped = Found([], [], [], [], [])  # what the folders hold that is not read
    for raw in paths:
        path = Path(raw)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            raise CliError(f"no such file or folder: {shown(raw)}") from None
        except OSError as exc:  # a link loop, a folder on the way that cannot be entered
            raise CliError(f"cannot read {shown(raw)}: {os_reason(exc)}") from None
        if _bad_name(path):
            raise CliError(f"the name {shown(raw)} is not valid UTF-8: rename it to index it")
        if stat.S_ISDIR(mode):
            folders.append(path.resolve())
            files = _folder_files(path, skipped)
            if not files and not skipped.unreadable:
                raise CliError(f"no .txt, .md or .pdf files in folder {shown(raw)}")
            found.extend(files)
        elif not stat.S_ISREG(mode):
            raise CliError(f"{shown(raw)} is {_kind(mode)}: cite reads regular files only")
        elif path.suffix.lower() in SUFFIXES:
            found.append(path)
        else:
            raise CliError(
                f"unsupported file type {path.suffix or '(none)'}: {shown(raw)} (use .txt, .md or .pdf)"
            )
    return Found(
        list(dict.fromkeys(p.resolve() for p in found)),
        folders,
        list(dict.fromkeys(p.resolve() for p in skipped.ignored)),
        list(dict.fromkeys(skipped.special)),
        skipped.unreadable,
    )


def _folder_files(path: Path, skipped: Found) -> list[Path]:
    """The document files under the folder ``path``; the others go to ``skipped`` (ignored types,
    special files and broken links, files and folders that cannot be read, each with its reason)."""
    files: list[Path] = []
    for p in sorted(path.rglob("*")):
        if any(part.startswith(".") for part in p.relative_to(path).parts):
            continue
        try:
            mode = p.stat().st_mode  # through a link: a link to /dev/zero is a device
        except FileNotFoundError:
            skipped.special.append(p)  # a broken link
            continue
        except OSError as exc:  # a link loop: named with its reason, not as a broken link
            skipped.unreadable.append(Unreadable(p.absolute(), os_reason(exc)))
            continue
        if stat.S_ISDIR(mode):
            if not os.access(p, os.R_OK | os.X_OK):  # rglob skips what it cannot list, without a word
                skipped.unreadable.append(Unreadable(p.resolve(), "a folder that cannot be listed"))
            continue
        if not stat.S_ISREG(mode):
            skipped.special.append(p)
        elif p.suffix.lower() not in SUFFIXES:
            skipped.ignored.append(p)
        elif _bad_name(p):
            skipped.unreadable.append(
                Unreadable(p.resolve(), "the name is not valid UTF-8: rename it to index it")
            )
        else:
            files.append(p)
    return files


@contextlib.contextmanager
def _silent_pypdf() -> Iterator[None]:
    """pypdf logs and warns about damaged files ("EOF marker not found"): the CLI says it once, cleanly."""
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def read_document(path: Path) -> Document:
    """Read one file; a ``CliError`` names the file when it cannot be read."""
    if path.suffix.lower() == ".pdf":
        from cite_core import CiteError, pdf_pages

        try:
            with open_regular(path) as f:  # never a FIFO or a device handed to pypdf
                data = f.read()
        except OSError as exc:
            raise Unreadable(path, os_reason(exc)) from exc
        try:
            with _silent_pypdf():
                pages = pdf_pages(data)
        except (OSError, CiteError) as exc:
            raise Unreadable(path, str(exc)) from exc
        except Exception as exc:  # pypdf raises many types on damaged files
            raise Unreadable(path, f"not a readable PDF ({type(exc).__name__}: {exc})") from exc
        return Document(path, path.stem, pages, paged=True)
    try:
        with open_regular(path) as f:
            raw = f.read()
    except OSError as exc:
        raise Unreadable(path, os_reason(exc)) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(path, f"not UTF-8 text (byte {exc.start})") from exc
    if "\x00" in text:
        raise Unreadable(path, "looks like a binary file")
    title = path.stem
    if path.suffix.lower() in (".md", ".markdown"):
        title = markdown_title(text) or title
    return Document(path, title, [text], paged=False)


def markdown_title(text: str) -> str | None:
    """The text of the first ``# heading`` (its closing ``#`` run dropped), or None.

    Read line by line with string methods: a pattern with ``\\s+(.+?)\\s*#*\\s*$`` retried every split
    of a heading line with a long run of spaces (60 s for one line of 4 KB)."""
    for m in _HEADING.finditer(text):
        end = text.find("\n", m.end())
        line = text[m.end() : len(text) if end < 0 else end].strip()
        bare = line.rstrip("#")
        if not bare or bare[-1] in " \t":  # a closing sequence: "# Title ##"
            line = bare.strip()
        if line:
            return line
    return None


def chunk_spans(doc: Document, *, size: int = 1200, overlap: int = 200) -> list[tuple[int, int, int]]:
    """``(page index, start, end)`` of each chunk, cut at sentence boundaries (offsets only)."""
    return [
        (number, start, end)
        for number, page in enumerate(doc.pages)
        for start, end in _windows(page, size, overlap)
        if page[start:end].strip()
    ]


def chunk_document(
    doc: Document, *, size: int = 1200, overlap: int = 200, spans: list[tuple[int, int, int]] | None = None
) -> Iterator[Chunk]:
    """Chunks of about ``size`` characters cut at sentence boundaries, overlapping by about ``overlap``."""
    for index, (number, start, end) in enumerate(
        spans if spans is not None else chunk_spans(doc, size=size, overlap=overlap)
    ):
        yield Chunk(
            document_id=str(doc.path),
            path=str(doc.path),
            title=doc.title,
            text=doc.pages[number][start:end],
            start=start,
            page=number + 1 if doc.paged else None,
            index=index,
        )


def _windows(text: str, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    spans = split_sentences(text)
    if not spans:
        return
    # Long sentences (or text with no punctuation) are cut so that no chunk grows without bound.
    units: list[tuple[int, int]] = []
    for start, end in spans:
        while end - start > size:
            cut = text.rfind(" ", start + size // 2, start + size)
            cut = cut if cut > start else start + size
            units.append((start, cut))
            start = cut
        units.append((start, end))
    i = 0
    while i < len(units):
        start, end = units[i]
        j = i + 1
        while j < len(units) and units[j][1] - start <= size:
            end = units[j][1]
            j += 1
        yield start, end
        if j >= len(units):
            break
        # step back over sentences covering about `overlap` characters
        k = j
        while k - 1 > i and end - units[k - 1][0] <= overlap:
            k -= 1
        i = k
