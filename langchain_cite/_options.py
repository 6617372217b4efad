"""Unknown options are an error naming the valid ones: a misspelt option is never silently ignored.

Pydantic models of LangChain runnables ignore unknown keyword arguments (``extra="ignore"``), so
``CitationSources(max_token=2000)`` would quietly run without a budget.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from cite_core import ArgumentError

__all__ = ["ELSEWHERE", "check_options", "field_names"]

ELSEWHERE: dict[str, dict[str, str]] = {
    "create_cited_rag_chain(schema=...)": {
        "calibration": "a structured answer's fields are not flagged by a calibrated threshold: pass it to "
        "the text chain (create_cited_rag_chain without schema=), or read each field's support yourself",
        "verify": "a structured answer is not verified: verify=True goes to the text chain "
        '(create_cited_rag_chain without schema=, output="answer")',
        "judge": "judge= is the model of verify=True, which goes to the text chain (without schema=)",
    },
}
"""The options each entry point takes but does not apply, and where each goes (checked by
``cite_core.refuse_options``: an option is honoured or refused, never ignored)."""


def field_names(model: Any) -> list[str]:
    """The keyword arguments a pydantic runnable accepts: its fields."""
    return sorted(model.model_fields)


def check_options(owner: str, given: Iterable[str], valid: Iterable[str]) -> None:
    """Raise ``ArgumentError`` (a ``TypeError``) for any name of ``given`` that is not ``valid``."""
    valid = sorted(set(valid))
    unknown = [name for name in given if name not in valid]
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
        hints.append(f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name))
    raise ArgumentError(
        f"{owner} got unknown option(s) {', '.join(hints)}; valid options: {', '.join(valid)}"
    )
