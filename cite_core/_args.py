"""Argument checks at the public boundary: the wrong type or value raises ``ArgumentError`` naming it.

Every public function of cite_core checks its arguments here, before any work, so that ``None``, a
number, a list, bytes or a lone surrogate where something else is expected is a ``CiteError`` that says
which argument was wrong, never a built-in error from deep inside (or, worse, a result: a ``str`` given
as ``sources`` is not a list of one-character sources). Model text is not checked here beyond its type:
it never makes the parser raise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._exceptions import ArgumentError, CiteError
from ._text import has_surrogate

__all__ = [
    "MAX_NUMBER",
    "check_callable",
    "check_choice",
    "check_flag",
    "check_instance",
    "check_int",
    "check_items",
    "check_iterable",
    "check_mapping",
    "check_number",
    "check_text",
    "check_texts",
    "refuse_options",
    "shown",
]

MAX_NUMBER = 10**9
"""The largest source number, count or display number an argument may give: anything larger cannot be
a real source list and would not even print (``int`` to ``str`` refuses more than 4,300 digits)."""

_SHOWN_CHARS = 40
"""At most this many characters of a str or bytes value appear in an error message."""
_SHOWN_DIGITS = 30
"""An int with more digits is shown by its size (``int`` to ``str`` refuses more than 4,300 digits)."""


def shown(value: object) -> str:
    """A short repr of ``value`` for an error message, bounded whatever the value: the first characters
    of a str or bytes, an int by its size when it is long, a float or bool as it is, anything else (a
    list nested 5,000 deep, a cyclic dict, an object whose ``__repr__`` raises) by its type name only.
    Every message that shows a value the caller or a model gave goes through here."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (str, bytes, bytearray)):
        cut = value[:_SHOWN_CHARS]
        return repr(cut) + ("…" if len(value) > _SHOWN_CHARS else "")
    if isinstance(value, int):
        if value.bit_length() > _SHOWN_DIGITS * 3:  # about 0.3 digits per bit: cheap, never int -> str
            return f"an int of about {int(value.bit_length() * 0.30103) + 1} digits"
        return repr(int(value))
    if isinstance(value, float):
        return repr(float(value))
    return type(value).__name__


def _got(value: object) -> str:
    """How an argument is described in an error: its type, and a short repr of simple values."""
    kind = type(value).__name__
    if isinstance(value, (str, bytes, int, float)) and not isinstance(value, bool):
        return f"{kind} {shown(value)}"
    return kind


def check_text(value: Any, name: str, *, optional: bool = False, surrogates: bool = False) -> Any:
    """A ``str`` (or ``None`` when ``optional``); a lone surrogate (no UTF-8 form) only when allowed."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"{name} must be a str{' or None' if optional else ''}, got {_got(value)}")
    if not surrogates and has_surrogate(value):
        raise ArgumentError(f"{name} contains a lone surrogate (text with no UTF-8 form)")
    return value


def check_texts(value: Any, name: str) -> list[str]:
    """An iterable of ``str`` (not a single ``str``), as a list."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ArgumentError(f"{name} must be a list of str, got {_got(value)}")
    items = list(value)
    for i, item in enumerate(items):
        check_text(item, f"{name}[{i}]")
    return items


def check_flag(value: Any, name: str) -> bool:
    """A ``bool``."""
    if not isinstance(value, bool):
        raise ArgumentError(f"{name} must be True or False, got {_got(value)}")
    return value


def check_number(value: Any, name: str, *, low: float | None = None, high: float | None = None) -> float:
    """A finite real number (not a ``bool``), within ``low..high`` when given."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentError(f"{name} must be a number, got {_got(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        raise ArgumentError(f"{name} must be a finite number, got {_got(value)}") from None
    if not math.isfinite(number):
        raise ArgumentError(f"{name} must be a finite number, got {shown(value)}")
    if (low is not None and number < low) or (high is not None and number > high):
        raise ArgumentError(f"{name} must be between {low} and {high}, got {shown(value)}")
    return number


def check_int(
    value: Any, name: str, *, low: int | None = None, high: int | None = None, optional: bool = False
) -> Any:
    """An ``int`` (not a ``bool``) within ``low..high`` when given (or ``None`` when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"{name} must be an integer{' or None' if optional else ''}, got {_got(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ArgumentError(f"{name} must be {bounds}, got {_got(value)}")
    return value


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """One of the ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        raise ArgumentError(f"{name} must be one of {', '.join(map(repr, choices))}, got {_got(value)}")
    return value


def check_iterable(value: Any, name: str, what: str) -> Iterable[Any]:
    """An iterable but a ``str``, ``bytes`` or a mapping, not read here (a generator stays lazy)."""
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise ArgumentError(f"{name} must be an iterable of {what}, got {_got(value)}")
    return value


def check_items(
    value: Any,
    name: str,
    kind: type[Any] | None = None,
    what: str = "items",
    *,
    error: type[CiteError] = ArgumentError,
    optional: bool = False,
) -> Any:
    """The items of a collection (``sources``, ``content``, ``notes``) as a list: any iterable but a
    ``str``, ``bytes`` or a mapping, which would otherwise be read as one item per character or key;
    each an instance of ``kind`` when given (``what`` names them). ``None`` when ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise error(f"{name} must be a sequence of {what} (a list), got {_got(value)}")
    items = list(value)
    if kind is not None:
        for i, item in enumerate(items):
            if not isinstance(item, kind):
                raise error(f"{name}[{i}] must be one of the {what}, got {_got(item)}")
    return items


def check_instance(
    value: Any, name: str, kind: type[Any] | tuple[type[Any], ...], what: str, *, optional: bool = False
) -> Any:
    """An instance of ``kind`` (``what`` names it in the error), or ``None`` when ``optional``."""
    if value is None and optional:
        return value
    if not isinstance(value, kind):
        raise ArgumentError(f"{name} must be {what}{' or None' if optional else ''}, got {_got(value)}")
    return value


def check_mapping(value: Any, name: str) -> Mapping[Any, Any]:
    """A mapping (a dict)."""
    return check_instance(value, name, Mapping, "a mapping (dict)")


def check_callable(value: Any, name: str, what: str) -> Callable[..., Any]:
    """A callable (``what`` says what it is called with)."""
    if not callable(value):
        raise ArgumentError(f"{name} must be a callable {what}, got {_got(value)}")
    return value


def refuse_options(entry: str, given: Mapping[str, Any], elsewhere: Mapping[str, str]) -> None:
    """One check for every entry point: each option ``entry`` takes but does not honour is a key of
    ``elsewhere`` (the adapters' tables), its value saying where the option goes; one given a value
    (anything but ``None`` or ``False``) raises an ``ArgumentError`` naming each such option and where it
    goes, so that no entry point quietly ignores an option."""
    check_text(entry, "entry")
    given = check_mapping(given, "given")
    elsewhere = check_mapping(elsewhere, "elsewhere")
    refused = [name for name in elsewhere if given.get(name) is not None and given.get(name) is not False]
    if refused:
        where = "; ".join(f"{name}=: {elsewhere[name]}" for name in refused)
        raise ArgumentError(f"{entry} does not apply {', '.join(n + '=' for n in refused)} ({where})")
