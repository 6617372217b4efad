"""Checks on what sources carry: lone surrogates in text, and the shape, size and JSON form of metadata.

Metadata is accepted as given and kept untouched in ``Source.metadata`` (Python objects stay the
objects the caller passed), with three limits checked once at the door:

- keys of the top-level dict are strings;
- nesting is at most ``MAX_METADATA_DEPTH`` levels (a reference cycle counts as too deep);
- written out as JSON, with a shared object written each time it appears (YAML aliases, one list
  appended to itself), it holds at most ``MAX_METADATA_SIZE`` values and string characters.

``page_from_metadata`` reads the 1-based page of a chunk from its loader's metadata (the one rule both
adapters use: an int or a string of decimal digits, never a bool, counted from the first page its key
gives).

The check visits each object once (memoised by ``id``), so a DAG of shared references costs its
number of distinct objects, not its number of paths. The JSON form (``metadata_json``) never fails:
values JSON has no type for are written as text: ``bytes`` as UTF-8 when they decode, else as hex
digits; any other unknown object as its ``str``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic_core import to_jsonable_python

from .._args import shown
from .._text import SURROGATE_RE, has_surrogate

__all__ = [
    "MAX_METADATA_DEPTH",
    "MAX_METADATA_SIZE",
    "metadata_int",
    "metadata_json",
    "metadata_problem",
    "page_from_metadata",
    "surrogate_problem",
]

MAX_METADATA_DEPTH = 100
"""Metadata nested deeper than this is refused (JSON serialisation would exceed its recursion limit)."""

MAX_METADATA_SIZE = 10_000_000
"""Most values plus string characters metadata may hold when written out (shared objects counted each
time they appear): ten million, about 10 MB of JSON per source. Bounds the cost of every later
``model_dump_json`` and HTML page, which write shared references out in full."""
_TOO_LARGE = (
    f"metadata would hold more than {MAX_METADATA_SIZE:,} values and characters written out "
    "as JSON (shared references are written each time they appear)"
)


def metadata_int(value: Any) -> int | None:
    """``value`` as an integer: an int (never a bool) or a string of decimal digits with spaces around
    it (``"3"``, ``" 12 "``); None for anything else (``"-1"``, ``"3.0"``, ``"²"``, ``"iv"``, floats)."""
    if isinstance(value, int):
        return None if isinstance(value, bool) else value
    if isinstance(value, str):
        digits = value.strip()
        if digits.isdecimal():  # isdigit() would pass "²", which int() refuses
            return int(digits)
    return None


def page_from_metadata(metadata: Mapping[str, Any], keys: Mapping[str, int]) -> int | None:
    """The 1-based page of a chunk from its loader's metadata, or None.

    ``keys`` maps each metadata key to read, in order, to the number it gives the first page: 0 for a
    0-based page (LangChain's PDF loaders write ``page``), 1 for a 1-based one (Unstructured's
    ``page_number``; never a printed ``page_label``, which may be ``1`` on the third page). The first
    key whose value is an integer (an int or a string of decimal digits, never a bool) at least its
    first page wins, e.g.
    ``page_from_metadata({"page": 0}, {"page": 0, "page_number": 1}) == 1``. Never raises on what the
    metadata holds (``ArgumentError`` when ``metadata`` or ``keys`` is not a mapping).
    """
    from .._args import check_mapping  # not at the top: _args is imported by modules this one serves

    check_mapping(metadata, "metadata")
    for key, first in check_mapping(keys, "keys").items():
        value = metadata_int(metadata.get(key))
        if value is not None and value >= first:
            return value - first + 1
    return None


_CONTAINERS = (dict, list, tuple, set, frozenset)
_BYTES = (bytes, bytearray, memoryview)


def surrogate_problem(text: str, what: str) -> str | None:
    """Why ``text`` cannot be used (a lone surrogate: no valid UTF-8, so no JSON), or None."""
    found = SURROGATE_RE.search(text) if has_surrogate(text) else None
    if found is None:
        return None
    return (
        f"{what} contains a lone surrogate (U+{ord(found.group()):04X}) at offset {found.start()}; "
        "it cannot be encoded as UTF-8 (decode the original bytes with errors='replace')"
    )


def metadata_problem(metadata: dict[Any, Any]) -> str | None:
    """Why ``metadata`` cannot be kept (a non-string key, nesting deeper than ``MAX_METADATA_DEPTH``, more
    than ``MAX_METADATA_SIZE`` values and characters written out, a lone surrogate in a string), or None."""
    for key in metadata:
        if not isinstance(key, str):
            return f"metadata keys must be strings, got {type(key).__name__} {shown(key)}"
    if type(metadata) is dict and all(type(v) in _SCALARS for v in metadata.values()):
        return _flat_problem(metadata)
    sizes: dict[int, int] = {}  # id -> size written out, once per object
    open_ids: set[int] = set()  # the containers on the current path: a second visit is a cycle
    stack: list[tuple[Any, bool]] = [(metadata, False)]
    while stack:  # iterative post-order walk: no recursion limit to hit on hostile input
        value, children_done = stack.pop()
        key = id(value)
        if not children_done:
            if key in sizes:
                continue
            if key in open_ids:
                return f"metadata is nested more than {MAX_METADATA_DEPTH} levels deep (a reference cycle)"
            if len(open_ids) >= MAX_METADATA_DEPTH:
                return f"metadata is nested more than {MAX_METADATA_DEPTH} levels deep"
            open_ids.add(key)
            stack.append((value, True))
            stack.extend((child, False) for child in _children(value) if isinstance(child, _CONTAINERS))
            continue
        open_ids.discard(key)
        size = 1
        for child in _children(value):
            if isinstance(child, _CONTAINERS):
                size += sizes[id(child)]
            elif isinstance(child, str):
                size += len(child) or 1
                if id(child) not in sizes:  # a string shared a million times is checked once
                    problem = surrogate_problem(child, "a metadata string")
                    if problem:
                        return problem
                    sizes[id(child)] = 0
            else:
                size += 1
        if size > MAX_METADATA_SIZE:
            return _TOO_LARGE
        sizes[key] = size
    return None


_SCALARS = frozenset([str, int, float, bool, type(None)])
"""Value types of flat metadata (the common case), checked without the general walk."""


def _flat_problem(metadata: dict[str, Any]) -> str | None:
    """``metadata_problem`` of a dict whose values are all plain scalars: what the walk finds, in its
    order (the surrogates of keys, then of string values, then the size)."""
    size = 1
    for child in (*metadata, *metadata.values()):
        if isinstance(child, str):  # keys may be str subclasses
            size += len(child) or 1
            problem = surrogate_problem(child, "a metadata string")
            if problem:
                return problem
        else:
            size += 1
    if size > MAX_METADATA_SIZE:
        return _TOO_LARGE
    return None


def _children(value: Any) -> list[Any]:
    return [*value, *value.values()] if isinstance(value, dict) else list(value)


def metadata_json(value: Any, handler: Callable[[Any], Any]) -> Any:
    """The JSON form of metadata: pydantic's, or, when that fails on a value it has no form for, the
    same with such values written as text (see the module docstring). Never raises."""
    try:
        return handler(value)
    except Exception:  # serialising a kept source must never fail late
        return _jsonable(value)


def _jsonable(value: Any) -> Any:
    """A JSON-safe copy of ``value``: containers as lists and str-keyed dicts, unknown values as text."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")  # lone surrogates become "?"
    if isinstance(value, dict):
        return {k if isinstance(k, str) else _as_text(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, _BYTES):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.hex()
    try:  # dates, UUIDs, paths, enums, dataclasses...: as pydantic writes them
        return to_jsonable_python(value, fallback=_as_text, bytes_mode="hex")
    except Exception:
        return _as_text(value)


def _as_text(value: Any) -> str:
    """``str(value)`` as valid UTF-8 text, whatever the object's ``__str__`` does."""
    try:
        text = str(value)
    except Exception:  # a broken __str__ must not break serialisation
        text = f"<{type(value).__name__}>"
    return text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates become "?"
