"""Citations inside structured output: every string field of a schema answer parsed like free text.

The model fills a schema (a pydantic model, a JSON object) and writes ``[n]`` markers inside its string
fields. ``cite_structured`` parses each string field with the parser of ``parse_answer`` (a
``CitationStream`` fed the field's text), in field order, with ONE display numbering shared by every
field: the first source cited anywhere in the object is ``[1]``, and the object has one reference list.
Fields that are not strings are left as they are; a string without markers stays uncited.

Paths are JSON paths without the ``$``: ``summary``, ``steps[2].detail``, ``["odd key"]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import Enum
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._args import check_items
from .._exceptions import ArgumentError
from .._schema.citations import DisplayNumbers, check_display_numbers
from .._schema.models import CitedAnswer, Reference, Source, TextBlock
from .._sources.numbering import number_sources
from .._sources.prompt import PromptStyle
from .parser import DEFAULT_UNSUPPORTED_THRESHOLD, CitationStream

__all__ = [
    "CitedStructure",
    "InvalidMarker",
    "build_structure",
    "cite_structured",
    "field_parser",
    "replace_texts",
    "string_fields",
]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=4096)  # a streamed object is walked once per partial: the same paths each time
def child_path(path: str, key: str | int) -> str:
    """The JSON path of ``key`` under ``path``: ``steps[2]``, ``steps[2].detail``, ``a["b c"]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _model_items(obj: BaseModel) -> list[tuple[str, Any]]:
    """A model's fields in declaration order, then its extra fields (``extra="allow"``)."""
    items = [(name, getattr(obj, name)) for name in type(obj).model_fields]
    items.extend((obj.model_extra or {}).items())
    return items


def _children(obj: Any) -> list[tuple[str | int, Any]] | None:
    """The fields of a model, the items of a dict or the elements of a list; None for anything else."""
    if isinstance(obj, BaseModel):
        return list(_model_items(obj))
    if isinstance(obj, Mapping):
        return [(key if isinstance(key, str) else str(key), value) for key, value in obj.items()]
    if isinstance(obj, (list, tuple)):
        return list(enumerate(obj))
    return None


def _is_text(value: Any) -> bool:
    """A string field to cite: ``str``, but not an enum member (a choice, not prose)."""
    return isinstance(value, str) and not isinstance(value, Enum)


_LEAVE = object()
"""On ``string_fields``' stack: every child of the container (whose id is beside it) has been walked."""


def path_of(node: Any, prefix: str = "") -> str:
    """The JSON path of ``node``, a ``(parent node, key)`` chain from the root (None), under ``prefix``:
    as ``child_path`` writes it, built once where a string field is read (the path of every container
    on the way, built level by level, was quadratic in the depth)."""
    keys: list[str | int] = []
    while node is not None:
        node, key = node
        keys.append(key)
    parts = [prefix]
    for key in reversed(keys):
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif _IDENTIFIER.fullmatch(key):
            parts.append(f".{key}" if prefix or len(parts) > 1 else key)
        else:
            parts.append(f"[{json.dumps(key, ensure_ascii=False)}]")
    return "".join(parts)


def string_fields(obj: Any) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of every string field of ``obj``, depth first in field order."""
    # iterative: any depth, and a container holding itself is an error, not a hang; the containers
    # open on the current path are one set, left by a marker on the stack (a copy per level was
    # quadratic in the depth)
    stack: list[tuple[Any, Any]] = [(None, obj)]
    open_: set[int] = set()
    while stack:
        node, value = stack.pop()
        if value is _LEAVE:
            open_.discard(node)
            continue
        if _is_text(value):
            yield path_of(node), value
            continue
        children = _children(value)
        if children is None:
            continue
        if id(value) in open_:
            raise ArgumentError(
                f"cite_structured: the object contains itself at {path_of(node) or 'the root'}"
            )
        open_.add(id(value))
        stack.append((id(value), _LEAVE))
        stack.extend(((node, key), child) for key, child in reversed(children))


def replace_texts(obj: Any, path: str, texts: Mapping[str, Any], *, as_data: bool = False) -> Any:
    """``obj`` with each string field at a path of ``texts`` replaced by its value there (other values
    as they are; models copied, never mutated). ``as_data``: models become dicts."""
    frames: list[tuple[Any, Any, list[tuple[str | int, Any]], list[Any]]] = []

    def enter(value: Any, at: Any) -> tuple[bool, Any]:
        if _is_text(value):
            return True, texts.get(path_of(at, path), value)
        children = _children(value)
        if children is None:
            return True, value
        frames.append((value, at, children, []))
        return False, None

    done, result = enter(obj, None)
    while frames:  # iterative, as string_fields: any depth
        value, at, children, built = frames[-1]
        if len(built) < len(children):
            key, child = children[len(built)]
            done, new = enter(child, (at, key))
            if done:
                built.append(new)
            continue
        frames.pop()
        new = _assemble(value, children, built, as_data)
        if frames:
            frames[-1][3].append(new)
        else:
            result = new
    return result


def _assemble(value: Any, children: list[tuple[str | int, Any]], built: list[Any], as_data: bool) -> Any:
    """A container like ``value`` holding ``built`` (its children's new values, in order)."""
    if isinstance(value, BaseModel):
        if as_data:
            return {str(key): new for (key, _), new in zip(children, built)}
        update = {str(key): new for (key, old), new in zip(children, built) if new is not old}
        return value.model_copy(update=update) if update else value
    if isinstance(value, Mapping):
        return dict(zip(value.keys(), built))
    return built if isinstance(value, list) or as_data else tuple(built)


class InvalidMarker(BaseModel):
    """A marker that pointed at no source, with the path of the string field it was written in."""

    model_config = ConfigDict(frozen=True)

    path: str
    marker: str
    """The raw marker (``[7]``, ``[0]``)."""


class CitedStructure(BaseModel):
    """A structured answer with every string field cited: ``cite_structured``'s result."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    value: Any
    """The same shape as the input (the same model class, dicts, lists), each string field replaced by
    its display text: markers renumbered by first appearance across the whole object."""
    plain_value: Any
    """The same shape with each string field's text without markers (``CitedAnswer.plain_text``)."""
    fields: dict[str, CitedAnswer]
    """Every string field's parse, by path, in field order (its ``references`` are the ones it cites)."""
    references: list[Reference]
    """One reference list for the whole object: cited sources, in order of first appearance."""
    invalid_markers: list[InvalidMarker] = Field(default_factory=list)
    """Markers that pointed at no source, with their paths, in field order."""
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD

    @property
    def citations_by_path(self) -> dict[str, list[TextBlock]]:
        """The cited string fields only: path -> that field's Anthropic-shaped blocks (``cited_text``,
        ``document_index``, locations), in field order."""
        return {path: answer.content for path, answer in self.fields.items() if answer.citations}

    def to_anthropic(self) -> Any:
        """The object with each string field as a list of Citations API text blocks (``citations`` on
        the cited ones); models become dicts, everything else as in ``value``."""
        blocks = {path: answer.to_anthropic()["content"] for path, answer in self.fields.items()}
        return replace_texts(self.value, "", blocks, as_data=True)

    def as_answer(self, *, label: Callable[[str], str] | None = None) -> CitedAnswer:
        """One ``CitedAnswer`` of every string field, a line each (``path: text``), with the object's
        reference list: what ``to_markdown`` and ``to_html`` render."""
        label = label or (lambda path: f"{path}: ")
        content: list[TextBlock] = []
        for path, answer in self.fields.items():
            if content:
                content.append(TextBlock(text="\n"))
            content.append(TextBlock(text=label(path)))
            content.extend(answer.content)
        return CitedAnswer(
            text="".join(b.text + b.marker_text for b in content),
            content=content,
            references=self.references,
            invalid_markers=[m.marker for m in self.invalid_markers],
            unsupported_threshold=self.unsupported_threshold,
        )

    def to_markdown(self, **options: Any) -> str:
        """Each string field as a line ``` `path`: text [1]```, then one reference list (options as for
        ``CitedAnswer.to_markdown``)."""
        return self.as_answer(label=lambda path: f"`{path}`: ").to_markdown(**options)

    def to_html(self, **options: Any) -> str:
        """Safe HTML of every string field with its markers and tooltips, then one reference list and the
        source panel (options as for ``CitedAnswer.to_html``)."""
        return self.as_answer().to_html(**options)


def _check_root(obj: Any) -> None:
    if _children(obj) is None:
        got = "a str: parse it with parse_answer" if isinstance(obj, str) else type(obj).__name__
        raise ArgumentError(f"cite_structured: obj must be a pydantic model, a dict or a list, got {got}")


def field_parser(
    sources: Sequence[Any],
    *,
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
    embeddings: Any = None,
    style: PromptStyle = "markers",
    display: bool = False,
    display_numbers: Mapping[int, int] | None = None,
    first_new: int | None = None,
) -> tuple[list[Source], Callable[[], CitationStream], dict[int, int]]:
    """The numbered sources and a maker of ``CitationStream``\\ s that share one display numbering
    (``display_numbers``/``first_new``: a conversation's numbers, as for ``CitationStream``)."""
    items = check_items(sources, "sources")
    check_display_numbers(display_numbers, first_new)
    numbered = items if all(isinstance(s, Source) for s in items) else number_sources(items)
    # source number -> display number, for every field; the conversation's numbers kept as given
    numbers = DisplayNumbers(display_numbers, first_new)
    corpus: list[Any] = []

    def new_stream() -> CitationStream:
        stream = CitationStream(
            numbered,
            unsupported_threshold=unsupported_threshold,
            display=display,
            embeddings=embeddings,
            style=style,
        )
        # one numbering, shared: the field's first marker of a source already cited in an earlier
        # field gets that field's number
        stream._share_numbers(numbers)
        # and one Corpus (term statistics over every source, claim terms): built once, not per field
        if corpus:
            stream._out.corpus = corpus[0]
        else:
            corpus.append(stream._out.corpus)
        return stream

    return numbered, new_stream, numbers


def build_structure(
    obj: Any,
    answers: dict[str, CitedAnswer],
    numbered: Sequence[Source],
    numbers: dict[int, int],
    threshold: float,
) -> CitedStructure:
    """The ``CitedStructure`` of ``obj`` from each string field's parse (``answers``, in field order)."""
    by_number = {s.number: s for s in numbered}
    fields: dict[str, CitedAnswer] = {}
    invalid: list[InvalidMarker] = []
    for path, answer in answers.items():
        cited = {c.reference for c in answer.citations}
        fields[path] = answer.model_copy(
            update={"references": [r for r in answer.references if r.number in cited]}
        )
        invalid.extend(InvalidMarker(path=path, marker=m) for m in answer.invalid_markers)
    return CitedStructure(
        value=replace_texts(obj, "", {p: a.text for p, a in answers.items()}),
        plain_value=replace_texts(obj, "", {p: a.plain_text for p, a in answers.items()}),
        fields=fields,
        references=[Reference(number=shown, source=by_number[n]) for n, shown in numbers.items()],
        invalid_markers=invalid,
        unsupported_threshold=threshold,
    )


def cite_structured(
    obj: Any,
    sources: Sequence[Any],
    *,
    unsupported_threshold: float = DEFAULT_UNSUPPORTED_THRESHOLD,
    embeddings: Any = None,
    style: PromptStyle = "markers",
    display_numbers: Mapping[int, int] | None = None,
    first_new: int | None = None,
) -> CitedStructure:
    """Cite every string field of ``obj`` (a pydantic model instance, a dict or a list, nested to any
    depth) against ``sources``: one numbering and one reference list for the whole object.

    Each string field is parsed as ``parse_answer`` parses an answer (markers validated, claims
    localised, a reference list the model wrote removed); the fields are read depth first in field
    order (a model's declared fields, then its extra ones; a dict's keys as they come; list elements
    in order). Never raises on the model's text; a container that holds itself is an ``ArgumentError``.
    ``display_numbers``/``first_new``: a conversation's numbers, as for ``parse_answer`` (a source an
    earlier turn cited keeps its number; new ones follow), so a structured turn shows the numbers the
    reader saw before.
    """
    _check_root(obj)
    numbered, new_stream, numbers = field_parser(
        sources,
        unsupported_threshold=unsupported_threshold,
        embeddings=embeddings,
        style=style,
        display_numbers=display_numbers,
        first_new=first_new,
    )
    answers: dict[str, CitedAnswer] = {}
    for path, text in string_fields(obj):
        if path in answers:  # a dict with both 1 and "1" as keys: one path for two fields
            raise ArgumentError(f"cite_structured: two fields have the path {path}")
        answers[path] = new_stream()._parse_whole(text)
    return build_structure(obj, answers, numbered, numbers, unsupported_threshold)
