"""Document pages through ``cite_core.page_from_metadata``: no metadata value makes the conversion fail."""

from __future__ import annotations

from langchain_core.documents import Document

from langchain_cite import document_to_item


def test_metadata_that_int_refuses_is_ignored_not_a_crash() -> None:
    """Regression: ``"²"`` (``isdigit()`` but not ``int()``) and ``"--1"`` raised ValueError."""
    item = document_to_item(Document(page_content="x", metadata={"page": "²", "start_index": "--1"}))
    assert "page" not in item and "start_index" not in item
    assert item["metadata"] == {}  # interpreted keys are not passed on as metadata either way


def test_pages_and_offsets_keep_their_rules() -> None:
    def item(**meta):  # type: ignore[no-untyped-def]
        return document_to_item(Document(page_content="x", metadata=meta))

    assert item(page=0)["page"] == 1 and item(page="2")["page"] == 3
    assert item(page_number="3")["page"] == 3
    assert item(page=-1, page_number=4)["page"] == 4
    assert document_to_item(Document(page_content="x", metadata={"page": 0}), zero_based_pages=False) == {
        "text": "x",
        "metadata": {},
    }
    assert item(page=True).get("page") is None
    assert item(start_index=0)["start_index"] == 0 and item(start_index="17")["start_index"] == 17
    assert "start_index" not in item(start_index=-1)
