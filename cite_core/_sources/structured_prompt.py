"""The rule that asks for citations inside the string fields of a structured answer (``schema=``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._exceptions import PromptError

__all__ = ["schema_name", "structured_rules"]

_STRUCTURED_RULES = """\
- Your answer is a JSON object of {subject} {where}.{cite}"""

_CITE_INSIDE = """ Cite inside its string fields: write each \
marker inside the string value, right after the claim it supports, as in prose ("The grass is green [1]."). \
Do not add fields for sources, references or citations, and write no markers outside string values or in \
values that are not prose (numbers, dates, identifiers, choices)."""

_SCHEMA_BLOCK = """
<schema>
{schema}
</schema>"""


def schema_name(schema: Any) -> str:
    """The schema's name as the model sees it: a class's name, a JSON schema's ``title``."""
    if isinstance(schema, Mapping):
        name = schema.get("title") or schema.get("name")
        return name.strip() if isinstance(name, str) else ""
    name = getattr(schema, "__name__", None)
    if isinstance(name, str):
        return name
    raise PromptError(
        "schema must be a pydantic model class, a TypedDict or a JSON schema dict, "
        f"got {type(schema).__name__}"
    )


def _json_schema(schema: Any) -> str:
    if isinstance(schema, Mapping):
        return json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    from pydantic import TypeAdapter

    try:
        data = TypeAdapter(schema).json_schema()
    except Exception as exc:  # pydantic says what it cannot describe
        raise PromptError(f"cannot write the JSON schema of {schema_name(schema)}: {exc}") from exc
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def structured_rules(schema: Any, *, show_schema: bool = False, cite: bool = True) -> str:
    """The citing rule for a structured answer; with ``show_schema`` the JSON schema follows it (JSON
    mode, where the model is not given the schema otherwise); ``cite=False`` (no sources): the schema
    only."""
    name = schema_name(schema)
    rules = _STRUCTURED_RULES.format(
        subject=f"the schema {name}" if name else "the schema",
        where="shown below" if show_schema else "you are given",
        cite=_CITE_INSIDE if cite else "",
    )
    if show_schema:
        rules += _SCHEMA_BLOCK.format(schema=_json_schema(schema))
    return rules
