"""``page_from_metadata``: the one rule both adapters use to read a page from a loader's metadata."""

from __future__ import annotations

import pytest

from cite_core import SourceError, number_sources, page_from_metadata

LANGCHAIN = {"page": 0, "page_number": 1}
"""PyPDFLoader and the other PDF loaders write a 0-based ``page``; Unstructured a 1-based ``page_number``."""
LLAMAINDEX = {"page_number": 1, "source": 1, "page": 0}
"""PyMuPDFReader writes the 1-based page as ``source``."""


@pytest.mark.parametrize(
    ("metadata", "keys", "page"),
    [
        ({"page": 0, "page_label": "i"}, LANGCHAIN, 1),  # PyPDFLoader's first page
        ({"page": "4"}, LANGCHAIN, 5),
        ({"page": " 4 "}, LANGCHAIN, 5),
        ({"page_number": 3}, LANGCHAIN, 3),  # Unstructured
        ({"page_number": 0}, LANGCHAIN, None),  # 1-based: 0 is no page
        ({"page": -1, "page_number": 2}, LANGCHAIN, 2),  # the first key that holds a page wins
        ({"page": 1, "page_number": 7}, LANGCHAIN, 2),  # in the order given
        ({"page": 1, "page_number": 7}, LLAMAINDEX, 7),
        ({"source": 12}, LLAMAINDEX, 12),  # PyMuPDFReader
        ({"source": "/docs/a.pdf"}, LLAMAINDEX, None),
        ({"page": True}, LANGCHAIN, None),  # never a bool
        ({"page": 2.0}, LANGCHAIN, None),  # never a float
        ({"page": "-1"}, LANGCHAIN, None),
        ({"page": "+1"}, LANGCHAIN, None),
        ({"page": "iv"}, LANGCHAIN, None),
        ({"page": "²"}, LANGCHAIN, None),  # a digit int() refuses: no page, no crash
        ({"page": None}, LANGCHAIN, None),
        ({}, LANGCHAIN, None),
    ],
)
def test_pages_from_loader_metadata(metadata, keys, page) -> None:  # type: ignore[no-untyped-def]
    assert page_from_metadata(metadata, keys) == page


def test_a_key_can_count_from_any_first_page() -> None:
    assert page_from_metadata({"sheet": 10}, {"sheet": 10}) == 1
    assert page_from_metadata({"sheet": 9}, {"sheet": 10}) is None


def test_a_page_that_is_a_digit_int_refuses_is_a_source_error() -> None:
    """Regression: ``"²".isdigit()`` is true but ``int("²")`` fails: number_sources raised ValueError."""
    with pytest.raises(SourceError, match="'page' must be an integer"):
        number_sources([{"text": "Page text.", "page": "²"}])
    assert number_sources([{"text": "Page text.", "page": " 2 "}])[0].pages == (2,)
