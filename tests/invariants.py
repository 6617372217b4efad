"""What every parsed answer must satisfy, shared by the property tests of tests/core and tests/robustness."""

from __future__ import annotations

import json
from typing import Any

from cite_core import CitationStream, CitedAnswer, Source


def streamed(text: str, cuts: list[int], sources: list[Source]) -> tuple[CitedAnswer, str, list[Any]]:
    """Parse ``text`` fed in pieces cut at ``cuts``: the answer, the concatenated text deltas (after the
    last ``answer_reset``: the text before a lone ``</think>`` was reasoning), all events."""
    stream = CitationStream(sources)
    events: list[Any] = []
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    for a, b in zip(bounds, bounds[1:]):
        events += stream.feed(text[a:b])
    answer = stream.finish()
    events += stream.pending_events()
    return answer, "".join(e.text for e in after_reset(events) if e.type == "text_delta"), events


def after_reset(events: list[Any]) -> list[Any]:
    """The events after the last ``answer_reset`` (all of them without one)."""
    resets = [i for i, e in enumerate(events) if e.type == "answer_reset"]
    return events[resets[-1] + 1 :] if resets else events


def check_answer(answer: CitedAnswer, sources: list[Source], text: str = "") -> None:
    """Exact cited text and offsets, references exactly the cited sources in order, renumbering one-to-one."""
    by_number = {s.number: s for s in sources}
    for citation in answer.citations:
        source = by_number[citation.document_index + 1]
        assert source.text[citation.source_start : citation.source_end] == citation.cited_text
        assert citation.cited_text.strip()
        assert 1 <= citation.reference <= len(answer.references)
        if citation.type == "char_location" and not source.document_coordinates:
            assert source.text[citation.start_char_index : citation.end_char_index] == citation.cited_text
    first_seen = list(dict.fromkeys(c.document_index + 1 for c in answer.citations))
    assert sorted(r.source.number for r in answer.references) == sorted(first_seen)
    if "<cit" not in text.lower():
        # references follow the markers' order in the text; only markers nested inside a <CIT> tag
        # (whose claim starts before them) can make it differ from the order of the claims
        assert [r.source.number for r in answer.references] == first_seen
    assert [r.number for r in answer.references] == list(range(1, len(first_seen) + 1))
    mapping = {c.document_index + 1: c.reference for c in answer.citations}
    assert sorted(mapping.values()) == list(range(1, len(mapping) + 1))  # renumbering is a bijection
    assert all(mapping[r.source.number] == r.number for r in answer.references)
    assert "".join(b.text + b.marker_text for b in answer.content) == answer.text
    for block in answer.content:  # the marker groups are the marker text as data
        assert "".join(g.text for g in block.marker_groups) == block.marker_text
        for group in block.marker_groups:
            assert all(c.reference in group.numbers for c in group.citations)
            assert {c.reference for c in group.citations} <= set(group.numbers)
    for citation in answer.citations:  # each citation keeps the segment that holds its text
        segments = answer.references[citation.reference - 1].source.segments
        if citation.segment is not None:
            segment = segments[citation.segment]
            assert segment.start <= citation.source_start <= citation.source_end <= segment.end
    json.loads(answer.model_dump_json())  # always serialisable, surrogates included


def check_stream_equals_whole(
    text: str, cuts: list[int], sources: list[Source]
) -> tuple[CitedAnswer, list[Any]]:
    """Stream ``text`` cut at ``cuts``: the same answer and text as the whole parse, which passes
    ``check_answer``. Returns the whole answer and the stream's events."""
    from cite_core import parse_answer

    whole = parse_answer(text, sources)
    answer, deltas, events = streamed(text, cuts, sources)
    assert answer == whole
    assert deltas == whole.plain_text == "".join(b.text for b in whole.content)
    check_answer(whole, sources, text)
    return whole, events
