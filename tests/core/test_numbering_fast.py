"""``number_sources`` builds the Sources of values it checked itself without pydantic's validation
(``source_build._known_valid``, ``source.built_source``; docs/benchmarks.md "The never-seen query"): each
such Source equals, field by field, the one validation builds from the same item.

Run longer with ``HYPOTHESIS_PROFILE=long``.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cite_core import number_sources
from cite_core._schema.models import Source
from cite_core._schema.source import SourceAnalysis
from cite_core._sources import source_build


class _Str(str):
    pass


SCALAR = st.one_of(
    st.none(),
    st.text(max_size=8),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=4).map(_Str),
)
TEXT = st.text(min_size=1, max_size=30).filter(str.strip) | st.sampled_from(
    ["The grass is green. The sky is blue.", "Ñandú runs.\n\nA line", _Str("a subclass text")]
)
FIELD = st.one_of(
    st.none(), st.text(max_size=8), st.integers(-5, 5), st.floats(-2, 2), st.text(max_size=4).map(_Str)
)
SCORE = st.one_of(st.none(), st.integers(-(2**62), 2**62), st.floats(allow_nan=False, allow_infinity=False))
KEY = st.sampled_from(["k", "lang", "page_label", "file_path", _Str("sub")]) | st.text(max_size=5)


@st.composite
def item(draw: Any) -> Any:
    kind = draw(st.sampled_from(["str", "dict", "dict", "dict", "document", "pages", "blocks"]))
    text = draw(TEXT)
    if kind == "str":
        return text
    if kind == "document":
        return {"type": "document", "source": {"type": "text", "data": text}, "title": draw(FIELD)}
    out: dict[Any, Any] = (
        {"text": text} if kind == "dict" else {kind: draw(st.lists(TEXT, min_size=1, max_size=3))}
    )
    for name in ("title", "url", "author", "document_id", "context"):
        if draw(st.booleans()):
            out[name] = draw(FIELD)
    if draw(st.booleans()):
        out["score"] = draw(SCORE)
    if kind == "dict" and draw(st.booleans()):
        out[draw(st.sampled_from(["start_index", "start_char_idx"]))] = draw(st.integers(0, 50))
    if kind == "dict" and draw(st.booleans()):
        out["page"] = draw(st.integers(1, 4))
    out.update(draw(st.dictionaries(KEY, SCALAR, max_size=3)))
    if draw(st.booleans()):
        out["metadata"] = draw(st.dictionaries(KEY, SCALAR | st.lists(SCALAR, max_size=2), max_size=3))
    return out


def _same(built: Source, validated: Source) -> None:
    assert built == validated and type(built) is type(validated)
    assert built.__dict__ == validated.__dict__ and list(built.__dict__) == list(validated.__dict__)
    assert [type(v) for v in built.__dict__.values()] == [type(v) for v in validated.__dict__.values()]
    assert [type(k) for k in built.metadata] == [type(k) for k in validated.metadata]
    assert built.model_fields_set == validated.model_fields_set
    private = built.__pydantic_private__ or {}
    # derived data, not part of equality: a built source's analysis knows its segments are its text's pieces
    analysis = private.get("_analysis")
    assert analysis is None or (
        analysis == SourceAnalysis(built.text, built.segments, built.kind, laid_out=True)
        and analysis.text is built.text
        and analysis.segments is built.segments
    )
    assert {**private, "_analysis": None} == validated.__pydantic_private__
    assert list(private) == list(validated.__pydantic_private__ or ())
    assert built.__pydantic_extra__ == validated.__pydantic_extra__
    assert built.model_dump_json() == validated.model_dump_json() and repr(built) == repr(validated)
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert built.item_indices == validated.item_indices
    assert built.segment_item_indices == validated.segment_item_indices


def _numbered(items: list[Any], fast: bool) -> list[Source] | str:
    with patch.object(source_build, "_known_valid", source_build._known_valid if fast else lambda *_: False):
        try:
            return number_sources(items)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"


@given(items=st.lists(item(), min_size=1, max_size=4))
@example(items=["plain text"])
@example(items=[{"text": "a b", "title": "T", "url": "https://x", "score": 3, "lang": "en"}])
@example(items=[{"text": "a b", "score": 2**60 + 1, _Str("k"): _Str("v"), "metadata": {"x": [1, None]}}])
@example(
    items=[
        {"text": "a", "document_id": "d", "start_index": 0},
        {"text": "b", "document_id": "d", "start_index": 5},
    ]
)
@example(items=[{"text": "a", "page": 2, "page_label": "ii"}])
def test_sources_built_without_validation_equal_validated_ones(items: list[Any]) -> None:
    built = _numbered(items, True)
    validated = _numbered(items, False)
    if isinstance(built, str) or isinstance(validated, str):
        assert built == validated
        return
    assert len(built) == len(validated)
    for b, v in zip(built, validated):
        _same(b, v)


def test_a_plain_dict_item_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    known_valid = source_build._known_valid
    monkeypatch.setattr(source_build, "_known_valid", lambda *a: taken.append(known_valid(*a)) or taken[-1])
    number_sources(
        [{"text": "The sky is blue.", "title": "Sky", "url": "https://x", "lang": "en", "score": 1}]
    )
    number_sources([{"text": "a", "lang": "en", "metadata": {_Str("k"): 1}}, {"text": "b", "score": 1e300}])
    assert taken == [True, False, True]
