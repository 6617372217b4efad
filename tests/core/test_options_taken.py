"""No public entry point of cite_core takes an option it ignores: none swallows keyword arguments
(``**kwargs``) except ``build_messages``, which passes them to ``build_prompt``, where an unknown one is
Python's TypeError. The adapters' entry points are walked option by option in
tests/langchain/test_lc_options_honoured.py and tests/llamaindex/test_options_honoured.py."""

from __future__ import annotations

import inspect
import typing

import pytest

import cite_core
from tests.options_walk import OPTION_NAMES

FORWARDS = {"build_messages": cite_core.build_prompt}
"""Entry points whose ``**options`` go, whole, to another entry point (that has no ``**kwargs``)."""


def _swallows(obj: object) -> bool:
    try:
        parameters = inspect.signature(obj).parameters.values()  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in parameters)


def test_no_entry_point_takes_keyword_arguments_it_may_ignore() -> None:
    aliases = {n for n in cite_core.__all__ if typing.get_origin(getattr(cite_core, n)) is not None}
    callables = [n for n in cite_core.__all__ if callable(getattr(cite_core, n)) and n not in aliases]
    swallowing = {n for n in callables if _swallows(getattr(cite_core, n))}
    # pydantic models and type aliases show (*args, **kwargs): models forbid or check their fields
    models = {n for n in swallowing if isinstance(getattr(cite_core, n), type)}
    unions = {n for n in swallowing if not inspect.isfunction(getattr(cite_core, n)) and n not in models}
    assert swallowing - models - unions == set(FORWARDS)
    assert not any(_swallows(target) for target in FORWARDS.values())


@pytest.mark.parametrize("option", OPTION_NAMES)
def test_an_option_build_messages_does_not_take_is_named(option: str) -> None:
    with pytest.raises(TypeError, match=option):
        cite_core.build_messages("Why?", ["Because."], **{option: True})
