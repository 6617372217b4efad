"""The marker most models write (``[12]``) built without the frozen dataclasses' ``__init__``
(``match_types.simple_marker``): the same object as the dataclass would build, so the events and
answers are the same (the streams are compared whole in test_native_lexer.py and test_fast_paths.py)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cite_core._stream.markers import match_marker
from cite_core._stream.match_types import Item, Marker, simple_marker


@given(st.integers(0, 10_000), st.integers(0, 999_999), st.text(max_size=10))
def test_a_simple_marker_is_the_dataclass_marker(start: int, number: int, raw: str) -> None:
    built = simple_marker(start, start + len(raw), raw, number)
    expected = Marker(start, start + len(raw), raw, (Item(number, raw),))
    assert built == expected and hash(built) == hash(expected) and repr(built) == repr(expected)
    assert dataclasses.astuple(built) == dataclasses.astuple(expected)
    assert built.items[0].sentences is None and built.invalid == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.start = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.items[0].number = 2  # type: ignore[misc]


@pytest.mark.parametrize("text", ["see [12] here", "see [3]. More", "see [1]\n", "x [０７] y"])
def test_match_marker_gives_the_marker_of_the_general_pattern(text: str) -> None:
    pos = text.index("[")
    found = match_marker(text, pos, False)
    assert isinstance(found, Marker)
    raw = found.raw
    assert found == Marker(pos, pos + len(raw), raw, (Item(int(raw[1:-1]), raw),))
