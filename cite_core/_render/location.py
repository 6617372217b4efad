"""Where a reference's text is: the file path as given, the pages cited, the URL, and a link that opens
the source at the passage. Every renderer and both adapters read it from here.

The link is, in order: the source's http(s) URL (:func:`safe_url`) with the cited sentence as a text
fragment (``#page=N`` for a ``.pdf`` URL); with ``file_links``, the local file as a ``file:///`` URL
(``#page=N`` for a PDF); else None. File links are off unless the caller says its sources are its own
files (the CLI does): a path in retrieved metadata may come from anyone who could write to the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from .._args import check_flag, check_instance
from .._schema.models import CitedAnswer
from .blocks import citations_by_reference
from .labels import LABELS, cited_pages, pages_cited
from .urls import file_url, page_fragment, safe_url, with_text_fragment

if TYPE_CHECKING:
    from .._schema.models import Citation, Reference, Source

__all__ = ["PATH_KEYS", "first_page", "passage_link", "reference_entries", "reference_link", "source_path"]

PATH_KEYS = ("path", "source", "file_path", "file_name")
"""Metadata naming a source's file, best first: the CLI's ``path``, LangChain loaders' ``source``,
LlamaIndex readers' ``file_path`` and ``file_name``. ``file_path`` is also where a link goes when it is
absolute and the shown path is not."""


def _local(value: Any) -> str | None:
    """A metadata value that names a file (a non-empty string that is not a URL)."""
    if not isinstance(value, str) or not value.strip() or "://" in value:
        return None
    return value.strip()


def source_path(source: Source) -> str | None:
    """The file path of ``source`` as its metadata gives it (relative where it was relative), or None."""
    return next((p for p in (_local(source.metadata.get(k)) for k in PATH_KEYS) if p), None)


def _link_path(source: Source) -> str | None:
    """The path a file link opens: an absolute one among the path keys, else the shown path."""
    paths = [p for p in (_local(source.metadata.get(k)) for k in PATH_KEYS[:3]) if p]
    absolute = next((p for p in paths if PurePath(p).is_absolute() or p[1:3] in (":\\", ":/")), None)
    return absolute or (paths[0] if paths else None)


def _is_pdf(name: str) -> bool:
    return name.split("#", 1)[0].split("?", 1)[0].lower().endswith(".pdf")


def passage_link(
    source: Source, cited_text: str, page: int | None, *, file_links: bool = False
) -> str | None:
    """A link opening ``source`` at a passage: its web URL with a text fragment of ``cited_text`` (a PDF
    URL at ``#page=page``), else with ``file_links`` its local file (a PDF at ``#page=page``), else None."""
    web = safe_url(source.url)
    if web is not None:
        if _is_pdf(web):
            return page_fragment(web, page) if page is not None else web
        return with_text_fragment(web, cited_text)
    path = _link_path(source) if file_links else None
    url = file_url(path) if path else None
    if url is None:
        return None
    return page_fragment(url, page) if page is not None and _is_pdf(path or "") else url


def first_page(citation: Citation) -> int | None:
    """The first page a citation cites (a ``page_location``), else None."""
    return citation.start_page_number if citation.type == "page_location" else None


def reference_link(ref: Reference, cited: Sequence[Citation], *, file_links: bool = False) -> str | None:
    """The link of a reference: to its first cited passage (its page, its sentence)."""
    first = cited[0] if cited else None
    return passage_link(
        ref.source,
        first.cited_text if first else "",
        first_page(first) if first else None,
        file_links=file_links,
    )


def reference_entries(answer: CitedAnswer, *, file_links: bool = False) -> list[dict[str, Any]]:
    """Each reference as JSON: ``number``, ``title``, ``author``, ``path`` (as the metadata gives it),
    ``url``, ``page_range`` (``[first, last]`` physical pages cited, 1-based, inclusive), ``pages`` (the
    pages as printed, ``"3"``, ``"ii–iv"``), ``link`` (to the first cited passage) and ``passages``:
    each distinct cited passage as ``{"cited_text", "page", "link"}`` (``page``: its first page in a paged
    source, else None; ``link``: the source opened at that passage, see :func:`passage_link`)."""
    check_instance(answer, "answer", CitedAnswer, "a CitedAnswer")
    check_flag(file_links, "file_links")
    by_ref = citations_by_reference(answer)
    entries = []
    for ref in answer.references:
        cited = by_ref.get(ref.number, [])
        pages = pages_cited(ref, cited)
        shown = cited_pages(ref, cited, _BARE)
        entries.append(
            {
                "number": ref.number,
                "title": ref.source.label,
                "author": ref.source.author,
                "path": source_path(ref.source),
                "url": ref.source.url,
                "page_range": list(pages) if pages else None,
                "pages": shown,
                "link": reference_link(ref, cited, file_links=file_links),
                "passages": _passages(ref.source, cited, file_links),
            }
        )
    return entries


def _passages(source: Source, cited: Sequence[Citation], file_links: bool) -> list[dict[str, Any]]:
    seen: dict[tuple[str, int | None], dict[str, Any]] = {}
    for citation in cited:
        page = first_page(citation)
        if (citation.cited_text, page) not in seen:
            link = passage_link(source, citation.cited_text, page, file_links=file_links)
            seen[(citation.cited_text, page)] = {
                "cited_text": citation.cited_text,
                "page": page,
                "link": link,
            }
    return list(seen.values())


_BARE = {**LABELS["en"], "page": "{0}", "pages": "{0}–{1}", "page_list": "{0}"}
"""Page labels without words (``3``, ``3–5``): JSON is read by programs, in any language."""
