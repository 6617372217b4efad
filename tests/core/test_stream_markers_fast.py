"""The marker most models write (``[12]``) built without the frozen dataclasses' ``__init__``
(``match_types.simple_marker``): the same object as the dataclass would build, so the events and
answers are the same (the streams are compared whole in test_native_lexer.py and test_fast_paths.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

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


@given(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True), st.booleans())
def test_a_blocks_citations_are_its_own_list_in_the_order_groups_were_numbered(
    order: list[int], marker_inside: bool
) -> None:
    """``blocks_with_markers``: one group's citations copied (the block's own list, not the group's),
    several groups' joined in the order they were numbered, whether or not a marker cuts the block."""
    from cite_core._stream.blocks import blocks_with_markers

    groups: list[tuple[int, list[Any]]] = [(index, [f"c{index}a", f"c{index}b"]) for index in order]
    kept = [(index, list(cited)) for index, cited in groups]
    inserts = [(2, " [9]")] if marker_inside else []
    blocks = blocks_with_markers("abcdef", [(0, 6)], {0: groups}, inserts)
    expected = [c for _, cited in sorted(kept) for c in cited]
    cited = [c for b in blocks if b.citations for c in b.citations]
    assert cited == expected
    assert len([b for b in blocks if b.citations]) == 1
    assert all(b.citations is not g for b in blocks for _, g in groups)
    assert [(i, g) for i, g in sorted(groups)] == sorted(kept)  # the groups' own lists untouched
