"""A pydantic model built from values already valid, without running its validator.

``BaseModel``'s four instance slots are filled in place through their own descriptors: half the cost of
``object.__setattr__`` by name. The stream's events (``events.py``, one per chunk) and ``number_sources``'s
``Source``s (``source.built_source``) are built this way; ``tests/core/test_fast_paths.py`` and
``tests/core/test_numbering_fast.py`` compare each with a validated instance.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["MODEL_SLOTS", "built"]

_M = TypeVar("_M", bound=BaseModel)
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
MODEL_SLOTS = (_new, _set_dict, _set_fields, _set_extra, _set_private)
"""What ``built`` does, for the callers that inline it in a per-chunk loop (``events.text_delta``,
``Assembler.plain``, the stream's ``SteadyPath``): ``object.__new__`` and the setters of ``__dict__``,
the fields set, extra and private state."""


def built(
    cls: type[_M], values: dict[str, Any], fields_set: set[str], private: dict[str, Any] | None = None
) -> _M:
    """An instance of ``cls`` from values already of their field types, as validation would build it
    (``private``: the defaults of its private attributes, for a model that has some)."""
    model = _new(cls)
    _set_dict(model, values)
    _set_fields(model, fields_set)
    _set_extra(model, None)
    _set_private(model, private)
    return model
