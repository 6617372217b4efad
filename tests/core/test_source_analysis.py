"""A source's analysis: typed, computed once, kept on its own source and never outliving the text it
describes (where its module sits is tests/core/test_layers.py's)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cite_core import Segment, number_sources, parse_answer
from cite_core._schema.source import SourceAnalysis, analysis_of
from cite_core._schema.utf16 import source_utf16
from cite_core._sources import segment as _segment
from cite_core._sources.analysis import (
    first_sentences,
    fragment_flags,
    source_terms,
    source_units,
    unit_counts,
)

TEXT = "The grass is green. The sky is blue.\nMenu entry"


def test_units_are_computed_once_and_kept_on_the_sources_typed_analysis() -> None:
    source = number_sources([TEXT])[0]
    analysis = analysis_of(source)
    assert isinstance(analysis, SourceAnalysis) and analysis_of(source) is analysis
    assert analysis.units is None and analysis.terms is None  # nothing computed before first use
    units = source_units(source)
    assert source_units(source) is units and analysis.units is units
    assert unit_counts(source) is analysis.unit_counts
    assert source_terms(source) is analysis.terms is source_terms(source)
    assert fragment_flags(source, units) == [False, False, True] and analysis.fragments is not None
    assert first_sentences([source, source]) == [0, 3, 6]


def test_a_new_source_gets_a_fresh_analysis_of_its_own() -> None:
    first, second = number_sources([TEXT]), number_sources([TEXT])
    units = source_units(first[0])
    assert analysis_of(second[0]) is not analysis_of(first[0])
    assert analysis_of(second[0]).units is None
    assert source_units(second[0]) == units and source_units(second[0]) is not units


def test_the_analysis_takes_no_field_it_does_not_declare() -> None:
    analysis = analysis_of(number_sources(["One."])[0])
    with pytest.raises(AttributeError):
        analysis.unit = []  # type: ignore[attr-defined]  # a misspelt field: an error, not a new key


def test_astral_positions_are_kept_on_the_same_analysis() -> None:
    source = number_sources(["\U0001f600 then text"])[0]
    assert source_utf16(source, 2) == 3
    assert analysis_of(source).astral == (0,)


OLD = "Alpha beta gamma. Delta epsilon zeta."
NEW = "Rivers flow north here. Mountains rise high. Delta epsilon zeta again."


def test_a_copy_with_new_text_is_analysed_anew() -> None:
    """``model_copy(update=...)`` copies private attributes: the copy must not cite by the old units."""
    source = number_sources([OLD])[0]
    assert parse_answer("Delta epsilon zeta [1].", [source]).citations[0].cited_text == "Delta epsilon zeta."
    copy = source.model_copy(update={"text": NEW, "segments": (Segment(text=NEW, start=0),)})
    citation = parse_answer("Delta epsilon zeta [1].", [copy]).citations[0]
    assert (
        citation.cited_text
        == "Delta epsilon zeta again."
        == NEW[citation.start_char_index : citation.end_char_index]
    )
    assert source_units(source)[-1].end == len(OLD)  # the original keeps its own analysis


def test_assigned_text_is_analysed_anew() -> None:
    source = number_sources([OLD])[0]
    parse_answer("Delta epsilon zeta [1].", [source])
    source.text, source.segments = NEW, (Segment(text=NEW, start=0),)
    assert (
        parse_answer("Delta epsilon zeta [1].", [source]).citations[0].cited_text
        == "Delta epsilon zeta again."
    )
    source.kind = "blocks"  # units of another kind: analysed anew too
    assert analysis_of(source).kind == "blocks" and analysis_of(source).units is None


def _imported_core_modules(module: object) -> set[str]:
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))  # type: ignore[attr-defined]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level and node.module:  # from ._x import y
                found.add(node.module)
            elif node.level:  # from . import _x
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("cite_core"):
                found.add(node.module.removeprefix("cite_core").lstrip(".") or "cite_core")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("cite_core"))
    return found


def test_segmentation_keeps_no_cache() -> None:
    assert _imported_core_modules(_segment) <= {"_args", "_text", "_brackets"}
    assert "lru_cache" not in Path(_segment.__file__).read_text(encoding="utf-8")


def test_two_sources_with_one_number_are_an_error_not_a_misquote() -> None:
    """Lists numbered apart and joined: every [1] would cite the last source 1."""
    from cite_core import ArgumentError, attribute

    joined = [*number_sources(["The cat sat on the mat."]), *number_sources(["Rockets fly to the moon."])]
    with pytest.raises(ArgumentError, match="two sources are numbered 1"):
        parse_answer("The cat sat on the mat [1].", joined)
    with pytest.raises(ArgumentError, match="two sources are numbered 1"):
        attribute("The cat sat on the mat.", joined)


def test_segments_that_are_not_the_text_are_an_error_not_a_misquote() -> None:
    from pydantic import ValidationError

    from cite_core import ArgumentError, Source

    with pytest.raises(ValidationError, match="segment 0"):
        Source(number=1, text="Rockets fly to the moon.", segments=(Segment(text="The cat s", start=0),))
    with pytest.raises(ValidationError, match="at least one segment"):
        Source(number=1, text="Rockets fly.", segments=())
    source = number_sources(["Rockets fly to the moon."])[0]
    copy = source.model_copy(update={"text": "The cat sat on the mat, twice."})  # kept the old segments
    with pytest.raises(ArgumentError, match="source 1: segment 0"):
        parse_answer("The cat sat [1].", [copy])


@pytest.mark.parametrize("text", [TEXT, "Ünïcode ΣΟΦΟΣ here. Then more."])
def test_units_are_named_tuples_with_their_fields(text: str) -> None:
    # built with tuple.__new__ for speed: still Unit instances, equal to the ones the constructor builds
    from cite_core._schema.source import Unit

    units = source_units(number_sources([text])[0])
    assert units and all(type(u) is Unit for u in units)
    assert [Unit(u.start, u.end, u.segment, u.terms) for u in units] == units
    assert units[0].start == 0 and units[0].segment == 0 and text[units[0].start : units[0].end].strip()
