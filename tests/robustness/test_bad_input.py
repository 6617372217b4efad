"""Bad input: a clear error (SourceError, TypeError) or a correct result, never a silent loss.

Covers ``None``, bytes, non-string metadata, NaN and infinity, lone surrogates, deeply nested metadata,
a 50 MB document and 10,000 sources (the last two with tracemalloc bounds on memory).
"""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from cite_core import Segment, Source, SourceError, number_sources, parse_answer


@pytest.mark.parametrize("items", [None, b"abc", "abc", 42, {"text": "abc"}])
def test_not_a_sequence_of_items_is_a_source_error(items: object) -> None:
    with pytest.raises(SourceError, match="expects a sequence"):
        number_sources(items)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (None, "got NoneType"),
        (b"abc", "got bytes"),
        (3.5, "got float"),
        ({"text": b"abc"}, "'text' must be a str, got bytes"),
        ({"text": None}, "'text' must be a str, got NoneType"),
        ({"text": "   "}, "'text' is empty"),
        ({"title": "no text"}, "needs a 'text' key"),
        ({"text": "abc", "title": ["a"]}, "'title' must be a string, got list"),
        ({"text": "abc", "url": {"href": "x"}}, "'url' must be a string, got dict"),
        ({"text": "abc", "metadata": "x"}, "'metadata' must be a dict"),
        ({"text": "abc", "page": "two"}, "'page' must be an integer"),
        ({"text": "abc", "start_index": -1}, "'start_index' must be >= 0"),
        ({"pages": []}, "'pages' must be a non-empty list"),
        ({"blocks": [{"type": "image"}]}, "only text blocks can be cited"),
    ],
)
def test_bad_items_are_clear_source_errors_with_their_index(item: object, message: str) -> None:
    with pytest.raises(SourceError, match=message) as info:
        number_sources(["fine", item])
    assert info.value.index == 1 and str(info.value).startswith("item 1: ")


def test_numbers_in_metadata_fields_become_strings() -> None:
    (source,) = number_sources([{"text": "abc", "title": 2024, "document_id": 7, "author": 1.5}])
    assert (source.title, source.document_id, source.author) == ("2024", "7", "1.5")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_scores_and_fields_are_source_errors(value: float) -> None:
    # pandas fills missing metadata with NaN: it must not become a title "nan" or a JSON null score
    with pytest.raises(SourceError, match="'score' must be a finite number"):
        number_sources([{"text": "abc", "score": value}])
    with pytest.raises(SourceError, match="'title' must be a string"):
        number_sources([{"text": "abc", "title": value}])
    with pytest.raises(ValidationError):
        Source(number=1, text="a", segments=(Segment(text="a", start=0),), score=value)


def test_finite_scores_are_kept_and_merged_chunks_keep_the_best() -> None:
    (source,) = number_sources([
        {"text": "A.", "document_id": "d", "score": 0.25},
        {"text": "B.", "document_id": "d", "score": 0.75},
    ])
    assert source.score == 0.75


def test_model_text_that_is_not_a_str_is_a_type_error() -> None:
    for bad in (None, b"[1]", 1, ["[1]"]):
        with pytest.raises(TypeError, match="expects the model's text as str"):
            parse_answer(bad, ["abc"])  # type: ignore[arg-type]


def test_duplicate_titles_and_urls_never_merge_different_documents() -> None:
    sources = number_sources([
        {"text": "Alpha text.", "title": "Same", "url": "https://example.org/same"},
        {"text": "Beta text.", "title": "Same", "url": "https://example.org/same"},
        {"text": "Gamma text.", "title": "Same", "document_id": "g"},
        {"text": "Delta text.", "title": "Same", "document_id": "h"},
    ])
    assert [s.text for s in sources] == ["Alpha text.", "Beta text.", "Gamma text.", "Delta text."]
    answer = parse_answer("Alpha [1]. Beta [2]. Gamma [3]. Delta [4].", sources)
    assert [r.source.text for r in answer.references] == ["Alpha text.", "Beta text.", "Gamma text.", "Delta text."]
