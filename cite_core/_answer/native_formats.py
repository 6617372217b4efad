"""Readers of providers' raw responses: each gives a ``NativeAnswer`` (``native_build``).

A reader checks the fields it reads and raises ``ArgumentError`` naming the one that is wrong
(``candidates[0].groundingMetadata.groundingSupports[2].segment.endIndex: expected an int, got 'x'``);
what a field holds that points nowhere (an index out of range, a span outside the text) is the model's
output, not a bad payload: it goes to ``invalid_markers``. Field names are read in the JSON's camelCase
and in the snake_case of the providers' Python SDKs (``model_dump()``). The unit each provider's
offsets are assumed to count in is in docs/providers.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._exceptions import ArgumentError
from .._sources.segment import split_sentences
from .native_build import NO_DOCUMENT, NativeAnswer, NativeCite, NativeDoc
from .native_units import Offsets, Unit, link_shown, resolve_span, span_showing

__all__ = [
    "first_message",
    "get",
    "items",
    "mapping",
    "read_cohere",
    "read_gemini",
    "read_mistral",
    "read_openai_chat",
    "read_openai_responses",
    "sentence_start",
    "spelled",
]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def spelled(obj: Mapping[str, Any], name: str) -> str:
    """How the payload spells the field ``name``: as given (camelCase) or in snake_case (an SDK's
    ``model_dump()``), so that an error names the field the user can find in their payload."""
    return name if obj.get(name) is not None or obj.get(_snake(name)) is None else _snake(name)


def get(
    obj: Mapping[str, Any], name: str, path: str, kind: type | tuple[type, ...], default: Any = None
) -> Any:
    """``obj[name]`` (or its snake_case spelling) of type ``kind``; ``default`` when absent or null."""
    name = spelled(obj, name)
    value = obj.get(name)
    if value is None:
        return default
    if (isinstance(value, bool) and kind is int) or not isinstance(value, kind):
        names = {
            "Mapping": "an object",
            "list": "a list",
            "str": "a string",
            "int": "an int",
            "bool": "a bool",
        }
        wanted = " or ".join(
            names.get(k.__name__, k.__name__) for k in (kind if isinstance(kind, tuple) else (kind,))
        )
        raise ArgumentError(f"{path}.{name}: expected {wanted}, got {type(value).__name__} {value!r:.60}")
    return value


def items(obj: Mapping[str, Any], name: str, path: str) -> list[tuple[str, Any]]:
    """The entries of the list ``obj[name]`` (empty when absent), each with its path."""
    values = get(obj, name, path, list, [])
    return [(f"{path}.{spelled(obj, name)}[{i}]", v) for i, v in enumerate(values)]


def mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ArgumentError(f"{path}: expected an object, got {type(value).__name__} {value!r:.60}")
    return value


def sentence_start(text: str, at: int) -> int:
    """Where the sentence holding the character before ``at`` starts (a point citation's claim)."""
    start = 0
    for lo, _ in split_sentences(text[:at]):
        if lo < at:
            start = lo
    return start


class _Reader:
    """Collects text parts, documents (deduplicated) and citations for one response."""

    def __init__(self, provider: str) -> None:
        self.native = NativeAnswer(provider=provider, text="")
        self.parts: list[str] = []
        self.doc_index: dict[tuple[Any, ...], int] = {}

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.parts)

    def add_text(self, text: str) -> int:
        """Append a text part; returns its offset in the answer."""
        offset = self.size
        self.parts.append(text)
        return offset

    def doc(self, doc: NativeDoc) -> int:
        key = (doc.key, doc.title, doc.url, doc.quote)
        if key not in self.doc_index:
            self.doc_index[key] = len(self.native.docs)
            self.native.docs.append(doc)
        return self.doc_index[key]

    def cite(self, base: int, span: tuple[int, int] | None, docs: list[int], labels: list[str]) -> None:
        """A citation of ``span`` of the part at ``base``; None (outside the text or inside a
        character) is reported, never cut."""
        if span is None:
            self.native.invalid.extend(labels or [NO_DOCUMENT])
        else:
            self.native.cites.append(NativeCite(base + span[0], base + span[1], docs, labels))

    def finish(self) -> NativeAnswer:
        self.native.text = "".join(self.parts)
        return self.native


# -- OpenAI --------------------------------------------------------------------------------------

_CODEPOINTS: tuple[Unit, ...] = ("codepoint", "utf16", "utf8")


def _openai_annotation(reader: _Reader, text: str, base: int, note: Mapping[str, Any], path: str) -> None:
    kind = get(note, "type", path, str)
    inner = mapping(note.get(kind), f"{path}.{kind}") if kind == "url_citation" and kind in note else note
    offsets = Offsets(text)
    if kind == "url_citation":
        doc = NativeDoc(url=get(inner, "url", path, str), title=get(inner, "title", path, str))
    elif kind in ("file_citation", "container_file_citation"):
        doc = NativeDoc(key=get(inner, "file_id", path, str), title=get(inner, "filename", path, str))
    else:
        return  # file_path and annotations a later API adds: not citations
    index = reader.doc(doc)
    label = f"[{index + 1}]"
    if kind == "file_citation":  # a point: the citation follows the sentence it closes
        at = offsets.to_chars(get(inner, "index", path, int, -1), "codepoint")
        span = None if at is None else (sentence_start(text, at), at)
    else:
        start, end = get(inner, "start_index", path, int, -1), get(inner, "end_index", path, int, -1)
        # the span covers the written link: the unit whose span shows it (code points on ASCII text)
        span = span_showing(offsets, start, end, link_shown(doc.url, doc.title), _CODEPOINTS)
        if span is not None:  # the span is the link after the claim: the claim is its sentence
            span = (min(span[0], sentence_start(text, span[0])), span[1])
    reader.cite(base, span, [index], [label])


def read_openai_responses(response: Mapping[str, Any]) -> NativeAnswer:
    """A Responses API response: ``output[].content[]`` ``output_text`` parts and their annotations;
    ``file_search_call`` results (when included) give a cited file's text."""
    reader = _Reader("openai")
    quotes: dict[str, str] = {}
    output = items(response, "output", "response")
    for path, item in output:
        item = mapping(item, path)
        for rpath, result in items(item, "results", path):
            result = mapping(result, rpath)
            file_id, text = get(result, "file_id", rpath, str), get(result, "text", rpath, str)
            if file_id and text:
                quotes.setdefault(file_id, text)
    for path, item in output:
        item = mapping(item, path)
        if item.get("type") != "message":
            continue
        for cpath, part in items(item, "content", path):
            part = mapping(part, cpath)
            if part.get("type") != "output_text":
                continue
            text = get(part, "text", cpath, str, "")
            base = reader.add_text(text)
            for npath, note in items(part, "annotations", cpath):
                _openai_annotation(reader, text, base, mapping(note, npath), npath)
    for doc in reader.native.docs:
        if doc.key in quotes:
            doc.quote = quotes[doc.key]
    return reader.finish()


def read_openai_chat(response: Mapping[str, Any]) -> NativeAnswer:
    """A Chat Completions response: ``choices[0].message`` with its ``annotations``."""
    reader = _Reader("openai")
    message, path = first_message(response)
    text = get(message, "content", path, str, "")
    reader.add_text(text)
    for npath, note in items(message, "annotations", path):
        _openai_annotation(reader, text, 0, mapping(note, npath), npath)
    return reader.finish()


def first_message(response: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """The first choice's ``message`` of a Chat Completions-shaped response, and its path."""
    choices = items(response, "choices", "response")
    if not choices:
        raise ArgumentError("response.choices: expected a non-empty list of choices")
    path, choice = choices[0]
    message = get(mapping(choice, path), "message", path, Mapping)
    if message is None:
        raise ArgumentError(f"{path}.message: missing")
    return message, f"{path}.message"


# -- Gemini --------------------------------------------------------------------------------------

_BYTES_FIRST: tuple[Unit, ...] = ("utf8", "codepoint", "utf16")


def read_gemini(response: Mapping[str, Any]) -> NativeAnswer:
    """A ``generateContent`` response: the first candidate's text parts (thoughts left out), and its
    ``groundingMetadata``: supports whose segment offsets count UTF-8 bytes of part ``partIndex``."""
    reader = _Reader("gemini")
    candidates = items(response, "candidates", "response")
    if not candidates:
        raise ArgumentError("response.candidates: expected a non-empty list of candidates")
    path, candidate = candidates[0]
    candidate = mapping(candidate, path)
    content = get(candidate, "content", path, Mapping, {})
    parts: list[tuple[str, int] | None] = []  # each part: (text, offset in the answer), None if not shown
    for ppath, part in items(content, "parts", f"{path}.content"):
        part = mapping(part, ppath)
        text = get(part, "text", ppath, str)
        thought = get(part, "thought", ppath, bool, False)
        parts.append((text, reader.add_text(text)) if text is not None and not thought else None)
    meta = get(candidate, "groundingMetadata", path, Mapping, {})
    mpath = f"{path}.{spelled(candidate, 'groundingMetadata')}"
    docs = [
        _gemini_doc(mapping(chunk, cpath), cpath) for cpath, chunk in items(meta, "groundingChunks", mpath)
    ]
    offsets: dict[int, Offsets] = {}
    for spath, supp in items(meta, "groundingSupports", mpath):
        supp = mapping(supp, spath)
        for ipath, value in items(supp, "groundingChunkIndices", spath):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArgumentError(f"{ipath}: expected an int, got {value!r:.60}")
        indices = get(supp, "groundingChunkIndices", spath, list, [])
        labels = [f"[{i + 1}]" for i in indices]
        known = [reader.doc(docs[i]) if 0 <= i < len(docs) else -1 for i in indices]
        segment = get(supp, "segment", spath, Mapping, {})
        gpath = f"{spath}.segment"  # one word: spelled alike in both cases
        at = get(segment, "partIndex", gpath, int, 0)
        start, end = get(segment, "startIndex", gpath, int, 0), get(segment, "endIndex", gpath, int, -1)
        expected = get(segment, "text", gpath, str)
        part_at = parts[at] if 0 <= at < len(parts) else None
        if part_at is None:  # no such part, or a thought: not the answer's text
            reader.native.invalid.extend(labels or [NO_DOCUMENT])
            continue
        text, base = part_at
        table = offsets.setdefault(at, Offsets(text))
        reader.cite(base, resolve_span(table, start, end, expected, _BYTES_FIRST), known, labels)
    return reader.finish()


def _gemini_doc(chunk: Mapping[str, Any], path: str) -> NativeDoc:
    for kind in ("web", "retrievedContext", "maps"):
        body = get(chunk, kind, path, Mapping)
        if body is not None:
            bpath = f"{path}.{spelled(chunk, kind)}"
            uri, title = get(body, "uri", bpath, str), get(body, "title", bpath, str)
            key = get(body, "documentName", bpath, str)
            quote = get(body, "text", bpath, str)
            rag = get(body, "ragChunk", bpath, Mapping)
            if rag is not None and not quote:  # a RAG Engine corpus: the retrieved chunk's text
                quote = get(rag, "text", f"{bpath}.{spelled(body, 'ragChunk')}", str)
            return NativeDoc(key=key, title=title, url=uri, quote=quote)
    return NativeDoc()


# -- Cohere --------------------------------------------------------------------------------------


def read_cohere(response: Mapping[str, Any]) -> NativeAnswer:
    """A v2 chat response: ``message.content`` text items and ``message.citations`` (``start``/``end``
    into the text, the cited ``text``, ``sources`` of documents or tool outputs)."""
    reader = _Reader("cohere")
    message = mapping(response.get("message"), "response.message")
    path = "response.message"
    content = get(message, "content", path, (list, str), [])
    texts: list[tuple[str, int]] = []
    if isinstance(content, str):
        texts.append((content, reader.add_text(content)))
    else:
        for cpath, item in items(message, "content", path):
            item = mapping(item, cpath)
            if item.get("type", "text") == "text":
                text = get(item, "text", cpath, str, "")
                texts.append((text, reader.add_text(text)))
    tables = [Offsets(t) for t, _ in texts]
    for cpath, citation in items(message, "citations", path):
        citation = mapping(citation, cpath)
        if get(citation, "type", cpath, str, "TEXT_CONTENT") not in ("TEXT_CONTENT", "text_content"):
            continue  # a citation of the plan or the thinking, not of the answer
        docs, labels = [], []
        for spath, source in items(citation, "sources", cpath):
            source = mapping(source, spath)
            key = get(source, "id", spath, str)
            body = get(source, "document", spath, Mapping) or get(source, "toolOutput", spath, Mapping) or {}
            docs.append(reader.doc(_cohere_doc(key, body)))
            labels.append(f"[{key or len(docs)}]")
        start, end = get(citation, "start", cpath, int, -1), get(citation, "end", cpath, int, -1)
        at = get(citation, "contentIndex", cpath, int, 0)
        if not 0 <= at < len(texts):
            reader.native.invalid.extend(labels or [NO_DOCUMENT])
            continue
        span = resolve_span(tables[at], start, end, get(citation, "text", cpath, str), _CODEPOINTS)
        reader.cite(texts[at][1], span, docs, labels)
    return reader.finish()


def _cohere_doc(key: str | None, body: Mapping[str, Any]) -> NativeDoc:
    def text(name: str) -> str | None:
        value = body.get(name)
        return value if isinstance(value, str) and value else None

    quote = text("snippet") or text("text") or text("content")
    meta = {
        k: v for k, v in body.items() if isinstance(v, (str, int, float)) and k not in ("text", "snippet")
    }
    return NativeDoc(key=key or text("id"), title=text("title"), url=text("url"), quote=quote, metadata=meta)


# -- Mistral -------------------------------------------------------------------------------------


def read_mistral(response: Mapping[str, Any]) -> NativeAnswer:
    """A chat response whose ``content`` is a list of ``text`` and ``reference`` chunks: a reference
    chunk cites the last sentence before it (since the previous reference) by its ``reference_ids``."""
    reader = _Reader("mistral")
    message, path = first_message(response)
    pos = 0  # the end of the previous reference: a claim never reaches back past it
    for cpath, chunk in items(message, "content", path):
        chunk = mapping(chunk, cpath)
        kind = chunk.get("type")
        if kind == "text":
            reader.add_text(get(chunk, "text", cpath, str, ""))
        elif kind == "reference":
            ids = get(chunk, "referenceIds", cpath, list, [])
            for ipath, value in items(chunk, "referenceIds", cpath):
                if isinstance(value, bool) or not isinstance(value, (int, str)):
                    raise ArgumentError(f"{ipath}: expected an int or a string, got {value!r:.60}")
            text, end = "".join(reader.parts), reader.size
            claim = text[pos:end]
            body_end = pos + len(claim.rstrip())
            start = pos + sentence_start(claim, body_end - pos)
            docs = [reader.doc(NativeDoc(key=str(v))) for v in ids]
            reader.cite(0, (start, end), docs, [f"[ref {v}]" for v in ids])
            pos = end
    return reader.finish()
