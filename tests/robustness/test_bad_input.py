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
    with pytest.raises(SourceError, match="items must be a sequence"):
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
    (source,) = number_sources(
        [
            {"text": "A.", "document_id": "d", "score": 0.25},
            {"text": "B.", "document_id": "d", "score": 0.75},
        ]
    )
    assert source.score == 0.75


def test_model_text_that_is_not_a_str_is_a_type_error() -> None:
    for bad in (None, b"[1]", 1, ["[1]"]):
        with pytest.raises(TypeError, match="text must be a str"):
            parse_answer(bad, ["abc"])  # type: ignore[arg-type]


def test_duplicate_titles_and_urls_never_merge_different_documents() -> None:
    sources = number_sources(
        [
            {"text": "Alpha text.", "title": "Same", "url": "https://example.org/same"},
            {"text": "Beta text.", "title": "Same", "url": "https://example.org/same"},
            {"text": "Gamma text.", "title": "Same", "document_id": "g"},
            {"text": "Delta text.", "title": "Same", "document_id": "h"},
        ]
    )
    assert [s.text for s in sources] == ["Alpha text.", "Beta text.", "Gamma text.", "Delta text."]
    answer = parse_answer("Alpha [1]. Beta [2]. Gamma [3]. Delta [4].", sources)
    assert [r.source.text for r in answer.references] == [
        "Alpha text.",
        "Beta text.",
        "Gamma text.",
        "Delta text.",
    ]


def nested(depth: int) -> dict:
    root: dict = {}
    node = root
    for _ in range(depth - 1):
        node["a"] = {}
        node = node["a"]
    return root


def test_metadata_nested_10000_levels_is_a_clear_source_error_not_a_recursion_error() -> None:
    with pytest.raises(SourceError, match="nested more than 100 levels"):
        number_sources([{"text": "abc", "deep": nested(10_000)}])
    with pytest.raises(ValidationError, match="nested more than 100 levels"):
        Source(number=1, text="a", segments=(Segment(text="a", start=0),), metadata={"deep": nested(10_000)})
    cyclic: dict = {}
    cyclic["self"] = cyclic
    with pytest.raises(SourceError, match="nested more than 100 levels"):
        number_sources([{"text": "abc", "metadata": {"loop": cyclic}}])


def test_metadata_nested_100_levels_round_trips_through_json() -> None:
    (source,) = number_sources([{"text": "abc", "deep": nested(99)}])
    answer = parse_answer("abc [1].", [source])
    assert Source.model_validate_json(source.model_dump_json()) == source
    assert answer.model_dump_json() and answer.to_html()


def test_non_string_metadata_keys_are_a_source_error() -> None:
    with pytest.raises(SourceError, match="metadata keys must be strings, got int 1"):
        number_sources([{"text": "abc", "metadata": {1: "x"}}])


def test_metadata_values_json_does_not_know_are_kept_and_serialised_as_text() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque-value"

    value = Opaque()
    answer = parse_answer("abc [1].", [{"text": "abc", "obj": value, "tags": {"x"}, "raw": b"\x00"}])
    assert answer.references[0].source.metadata["obj"] is value  # the Python object is untouched
    assert '"obj":"opaque-value"' in answer.model_dump_json()
    assert "abc" in answer.to_html()


@pytest.mark.parametrize(
    "item",
    [
        "ab\ud800c. More text.",
        {"text": "abc", "title": "x\udc00"},
        {"text": "abc", "metadata": {"path": "/tmp/\udcff.txt"}},
        {"pages": ["ok", "\ud800"]},
        {"blocks": ["ok", {"type": "text", "text": "\udfff"}]},
    ],
)
def test_lone_surrogates_in_sources_are_a_source_error(item: object) -> None:
    # a lone surrogate has no UTF-8 form: JSON output and the HTML page would fail later, far from the cause
    with pytest.raises(SourceError, match="lone surrogate"):
        number_sources([item])


def test_lone_surrogates_in_model_text_become_replacement_characters_at_the_same_offsets() -> None:
    # json.loads('"\\ud83d"') yields a lone surrogate: a model's streamed JSON can carry one
    text = "The grass\ud83d is green [1]. Sky\udc00 [1]."
    answer = parse_answer(text, ["The grass is green. The sky is blue."])
    assert answer.plain_text == "The grass\ufffd is green. Sky\ufffd."
    assert len(answer.citations) == 2
    assert answer.model_dump_json() and answer.to_html() and answer.to_markdown()


def shared_pairs(depth: int) -> list:
    """The issue's DAG: each level a list holding the level below twice (as YAML aliases make)."""
    value: object = "x"
    for _ in range(depth):
        value = [value, value]
    return value  # type: ignore[return-value]


@pytest.mark.parametrize("depth", [26, 30, 60])
def test_shared_references_are_walked_once_and_their_written_size_is_bounded(depth: int) -> None:
    # walked path by path this took 81 s at depth 26; written out it would be 2**depth values
    with pytest.raises(SourceError, match="more than 10,000,000 values and characters written out"):
        number_sources([{"text": "a b.", "metadata": {"k": shared_pairs(depth)}}])


def test_shared_references_within_the_bound_are_kept_and_written_in_full() -> None:
    value = shared_pairs(12)
    (source,) = number_sources([{"text": "a b.", "metadata": {"k": value}}])
    assert source.metadata["k"] is value
    assert source.model_dump_json().count('"x"') == 2**12


def test_a_bound_reached_only_by_merging_chunks_is_a_source_error() -> None:
    big = "y" * 6_000_000
    items = [{"text": "A.", "document_id": "d", "a": big}, {"text": "B.", "document_id": "d", "b": big}]
    assert len(number_sources(items, merge=False)) == 2
    with pytest.raises(SourceError, match=r"item 0: .*more than 10,000,000"):
        number_sources(items)


def test_wide_metadata_sharing_one_list_is_kept_while_its_written_size_fits() -> None:
    strings = [f"value {i}" for i in range(100_000)]  # 1.1 million characters and values
    (source,) = number_sources([{"text": "abc", "metadata": {"many": strings, "same": [strings] * 5}}])
    assert source.metadata["many"] is strings
    with pytest.raises(SourceError, match="more than 10,000,000"):
        number_sources([{"text": "abc", "metadata": {"many": strings, "same": [strings] * 9}}])


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (b"\x8f\xa3", "8fa3"),  # not UTF-8 (a digest): hex digits
        (b"plain", "plain"),  # UTF-8: its text
        (bytearray(b"\xff"), "ff"),
        (memoryview(b"ok"), "ok"),
        ({"nested": [b"\x00\x8f"]}, {"nested": ["008f"]}),
    ],
)
def test_bytes_in_metadata_are_kept_and_written_as_text(value: object, written: object) -> None:
    import json

    answer = parse_answer("The sky is blue [1].", [{"text": "The sky is blue.", "metadata": {"sha1": value}}])
    assert answer.references[0].source.metadata["sha1"] is value  # the Python value is untouched
    dumped = json.loads(answer.model_dump_json())
    assert dumped["references"][0]["source"]["metadata"]["sha1"] == written
    assert answer.to_html() and answer.to_markdown()


def test_metadata_that_breaks_str_or_serialisation_still_writes_out() -> None:
    import datetime
    import json

    class BrokenStr:
        def __str__(self) -> str:
            raise RuntimeError("no text")

    when = datetime.date(2024, 5, 1)
    metadata = {"bad": BrokenStr(), "raw": b"\x8f", "when": when}
    answer = parse_answer("abc [1].", [{"text": "abc", "metadata": metadata}])
    source = json.loads(answer.model_dump_json())["references"][0]["source"]
    assert source["metadata"]["bad"] == "<BrokenStr>"
    assert source["metadata"]["raw"] == "8f"
    assert source["metadata"]["when"] == "2024-05-01"  # as pydantic writes a date
    assert answer.to_html()


def test_langchain_document_with_bytes_metadata_renders() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from langchain_cite import documents_to_sources

    document = Document(page_content="The sky is blue.", metadata={"sha1": b"\x8f\xa3"})
    answer = parse_answer("The sky is blue [1].", documents_to_sources([document]))
    assert '"sha1":"8fa3"' in answer.model_dump_json()
    assert "The sky is blue" in answer.to_html()


def test_the_metadata_size_bound_does_not_count_the_citable_text() -> None:
    text = "The sky is blue. " * 700_000  # 11.9 million characters
    (source,) = number_sources([{"text": text, "title": "Big", "lang": "en"}])
    assert source.text == text and source.metadata == {"lang": "en"}
    assert number_sources([{"pages": [text[:6_000_000], text[:6_000_000]]}])[0].pages == (1, 2)
