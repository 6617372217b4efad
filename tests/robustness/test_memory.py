"""Big inputs: a 50 MB document and 10,000 sources give correct results with bounded memory.

Peaks are measured with tracemalloc and compared with the size of the input strings (``sys.getsizeof``);
the bound is generous (20x) so that it only catches a blow-up, not noise. No wall-clock assertions.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from cite_core import build_messages, number_sources, parse_answer

WORDS = "The grass is green and the sky is blue while water runs down to the sea".split()


def prose(chars: int) -> str:
    sentence = " ".join(WORDS) + ". "
    return (sentence * (chars // len(sentence) + 1))[:chars]


def peak(fn: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_50_mb_document_is_numbered_prompted_and_parsed_in_bounded_memory() -> None:
    doc = prose(50_000_000)
    size = sys.getsizeof(doc)

    def run() -> Any:
        sources = number_sources([{"text": doc, "title": "Big"}, "The moon is made of rock."])
        messages = build_messages("What colour is the sky?", sources)
        # citing any source would localise in all of them (corpus statistics): the 2 MB test covers that
        return sources, messages, parse_answer("The moon [3].", messages.sources)

    (sources, messages, answer), used = peak(run)
    assert sources[0].text == doc and len(messages.sources) == 2  # nothing dropped
    assert doc[:1000] in messages[1]["content"]
    assert answer.references == [] and answer.invalid_markers == ["[3]"]
    assert used < 20 * size, f"peak {used / 1e6:.0f} MB for a {size / 1e6:.0f} MB document"


def test_a_2_mb_document_is_localised_in_bounded_memory() -> None:
    doc = prose(2_000_000) + ". The unique zebra sentence is here."
    size = sys.getsizeof(doc)
    answer, used = peak(lambda: parse_answer("A unique zebra is mentioned [1].", [doc]))
    (citation,) = answer.citations
    assert citation.cited_text == "The unique zebra sentence is here."
    assert doc[citation.start_char_index : citation.end_char_index] == citation.cited_text
    assert used < 20 * size, f"peak {used / 1e6:.0f} MB for a {size / 1e6:.0f} MB document"


def test_10000_sources_are_all_numbered_shown_and_citable_in_bounded_memory() -> None:
    items = [
        {
            "text": f"Fact number {i} says item{i} is true. " + prose(200),
            "title": f"Doc {i}",
            "document_id": f"d{i}",
        }
        for i in range(10_000)
    ]
    size = sum(sys.getsizeof(item["text"]) for item in items)

    def run() -> Any:
        sources = number_sources(items)
        messages = build_messages("Which items are true?", sources)
        return (
            sources,
            messages,
            parse_answer("Item5 is true [6]. Item9999 is true [10000]. No [10001].", messages.sources),
        )

    (sources, messages, answer), used = peak(run)
    assert [s.number for s in sources] == list(range(1, 10_001))
    assert messages[1]["content"].count("<source number=") == 10_000 and not messages.dropped
    assert [r.source.number for r in answer.references] == [6, 10_000]
    assert [c.cited_text for c in answer.citations] == [
        "Fact number 5 says item5 is true.",
        "Fact number 9999 says item9999 is true.",
    ]
    assert answer.invalid_markers == ["[10001]"]
    assert used < 20 * size, f"peak {used / 1e6:.0f} MB for {size / 1e6:.0f} MB of sources"
