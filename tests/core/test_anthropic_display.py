"""AnthropicCitationStream(display=True): display deltas join to the answer text, final numbers in place."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cite_core import AnthropicCitationStream, DisplayDelta, TextDelta, number_sources

HARBOUR = "The harbour opened in 1850. Steamers could dock there by 1862."
MARKET = "The fish market opened in 1852. It sold herring and cod."
LIGHT = "A lighthouse was built on the point in 1871."
SOURCES = number_sources(
    [
        {"text": MARKET, "title": "Market"},
        {"text": HARBOUR, "title": "Harbour"},
        {"text": LIGHT, "title": "Lighthouse"},
    ]
)
TEXTS = [MARKET, HARBOUR, LIGHT]


def cite(index: int, cited: str) -> dict[str, Any]:
    """A ``char_location`` citation of ``cited`` in document ``index`` (as Claude sends it)."""
    text = TEXTS[index] if 0 <= index < len(TEXTS) else ""
    start = text.find(cited)
    return {
        "type": "char_location",
        "cited_text": cited,
        "document_index": index,
        "document_title": None,
        "start_char_index": start,
        "end_char_index": start + len(cited),
    }


# A stream as the Messages API sends it (events as decoded from the server-sent events): a thinking
# block, an uncited opening, a claim citing document 1 (shown as [1]), an uncited joint, a claim citing
# documents 0 and 1 (shown as [2][1]), then a claim citing document 1 twice (one marker, [1]).
RECORDED: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Dates."}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "According to the "}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "records, "}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "text", "text": "", "citations": []},
    },
    {
        "type": "content_block_delta",
        "index": 2,
        "delta": {"type": "citations_delta", "citation": cite(1, "The harbour opened in 1850.")},
    },
    {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "the harbour "}},
    {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "opened in 1850 "}},
    {"type": "content_block_stop", "index": 2},
    {"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "and "}},
    {"type": "content_block_stop", "index": 3},
    {
        "type": "content_block_start",
        "index": 4,
        "content_block": {"type": "text", "text": "", "citations": []},
    },
    {
        "type": "content_block_delta",
        "index": 4,
        "delta": {"type": "citations_delta", "citation": cite(0, "The fish market opened in 1852.")},
    },
    {
        "type": "content_block_delta",
        "index": 4,
        "delta": {"type": "citations_delta", "citation": cite(1, "Steamers could dock there by 1862.")},
    },
    {
        "type": "content_block_delta",
        "index": 4,
        "delta": {"type": "text_delta", "text": "the market in 1852"},
    },
    {"type": "content_block_stop", "index": 4},
    {"type": "content_block_start", "index": 5, "content_block": {"type": "text", "text": ". "}},
    {"type": "content_block_stop", "index": 5},
    {"type": "content_block_start", "index": 6, "content_block": {"type": "text", "text": ""}},
    {
        "type": "content_block_delta",
        "index": 6,
        "delta": {"type": "citations_delta", "citation": cite(1, "Steamers could dock there by 1862.")},
    },
    {
        "type": "content_block_delta",
        "index": 6,
        "delta": {"type": "citations_delta", "citation": cite(1, "The harbour opened in 1850.")},
    },
    {
        "type": "content_block_delta",
        "index": 6,
        "delta": {"type": "text_delta", "text": "Steamers docked by 1862."},
    },
    {"type": "content_block_delta", "index": 6, "delta": {"type": "text_delta", "text": "\n"}},
    {"type": "content_block_stop", "index": 6},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 40}},
    {"type": "message_stop"},
]
SHOWN = (
    "According to the records, the harbour opened in 1850 [1] and the market in 1852 [2][1]. "
    "Steamers docked by 1862. [1]\n"
)


def run(events: list[dict[str, Any]], *, display: bool = True) -> tuple[list[Any], Any]:
    """Every event of the stream (feeds, then what ``finish`` adds) and the answer."""
    stream = AnthropicCitationStream(SOURCES, display=display)
    out: list[Any] = []
    for event in events:
        out += stream.feed(event)
    answer = stream.finish()
    return out + stream.pending_events(), answer


def shown(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, DisplayDelta))


def split_text(events: list[dict[str, Any]], cuts: list[int]) -> list[dict[str, Any]]:
    """``events`` with each ``text_delta`` cut into pieces at the offsets ``cuts`` (modulo its length)."""
    out = []
    for event in events:
        delta = event.get("delta") or {}
        if delta.get("type") != "text_delta" or len(delta["text"]) < 2:
            out.append(event)
            continue
        text = delta["text"]
        bounds = [0, *sorted({c % len(text) for c in cuts} - {0}), len(text)]
        for a, b in zip(bounds, bounds[1:]):
            out.append({**event, "delta": {"type": "text_delta", "text": text[a:b]}})
    return out


def test_recorded_stream_display_deltas_join_to_the_answer_text() -> None:
    events, answer = run(RECORDED)
    assert shown(events) == answer.text == SHOWN
    assert [(r.number, r.source.title) for r in answer.references] == [(1, "Harbour"), (2, "Market")]
    assert answer.reasoning == "Dates." and "Dates" not in shown(events)


def test_display_changes_nothing_else() -> None:
    with_display, answer = run(RECORDED)
    without, plain = run(RECORDED, display=False)
    assert answer.model_dump() == plain.model_dump()
    assert not [e for e in without if isinstance(e, DisplayDelta)]
    assert [e for e in with_display if not isinstance(e, DisplayDelta)] == without


def test_text_is_shown_as_it_streams_and_the_markers_when_the_block_closes() -> None:
    stream = AnthropicCitationStream(SOURCES, display=True)
    for event in RECORDED[:10]:
        stream.feed(event)
    first = stream.feed(RECORDED[10])  # "the harbour " of the cited block: shown less its trailing space
    assert [e.text for e in first if isinstance(e, DisplayDelta)] == ["the harbour"]
    second = stream.feed(RECORDED[11])
    assert [e.text for e in second if isinstance(e, DisplayDelta)] == [" opened in 1850"]
    closing = stream.feed(RECORDED[12])  # content_block_stop: the citation, then its marker and the space
    assert [e.type for e in closing] == ["citations_delta", "display_delta"]
    assert closing[1].text == " [1] " and closing[0].citation.reference == 1


def test_blocks_closed_by_the_next_block_and_by_finish() -> None:
    """Without ``content_block_stop`` events a block closes at the next block's first event or at finish."""
    events, answer = run([e for e in RECORDED if e["type"] != "content_block_stop"])
    assert shown(events) == answer.text == SHOWN


def test_whole_blocks_in_content_block_start() -> None:
    """Blocks that arrive whole (text and citations in ``content_block_start``) show the same text."""
    blocks = [
        {"type": "text", "text": "Intro. "},
        {"type": "text", "text": "It sold herring  ", "citations": [cite(0, "It sold herring and cod.")] * 2},
        {"type": "text", "text": "   "},
        {"type": "text", "text": "", "citations": [cite(2, LIGHT)]},
        {"type": "text", "text": "Bad ", "citations": [cite(7, "nowhere")]},
        {"type": "text", "text": "end."},
    ]
    events, answer = run(
        [{"type": "content_block_start", "index": i, "content_block": b} for i, b in enumerate(blocks)]
    )
    assert shown(events) == answer.text == "Intro. It sold herring [1]" + " " * 6 + "[2]Bad end."
    assert answer.invalid_markers == ["[8]"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer.plain_text


def test_text_without_citations_is_shown_unchanged() -> None:
    text = "No sources were needed for this.\n\nSecond paragraph.  "
    events, answer = run(
        split_text(
            [
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                {"type": "content_block_stop", "index": 0},
            ],
            [1, 5, 33, 34, 53],
        )
    )
    assert shown(events) == answer.text == text and answer.references == []


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=12))
def test_any_split_of_the_text_deltas_gives_the_same_display_text(cuts: list[int]) -> None:
    events, answer = run(split_text(RECORDED, cuts))
    assert shown(events) == answer.text == SHOWN


PIECES = ["The harbour", " opened", " in 1850", ".", " ", "  ", "\n", "market ", "lighthouse", "，", "港口"]
CITED = {0: "It sold herring and cod.", 1: "The harbour opened in 1850.", 2: LIGHT, 5: "no such document"}
blocks = st.lists(
    st.tuples(
        st.lists(st.sampled_from(PIECES), max_size=4).map("".join),
        st.lists(st.sampled_from(sorted(CITED)), max_size=3),
    ),
    min_size=1,
    max_size=8,
)


def stream_of(spec: list[tuple[str, list[int]]]) -> list[dict[str, Any]]:
    """Events of text blocks, each with its citations first (as Claude streams them), then its text."""
    events: list[dict[str, Any]] = []
    for i, (text, cited) in enumerate(spec):
        events.append(
            {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
        )
        for doc in cited:
            citation = cite(doc, CITED[doc])
            events.append(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "citations_delta", "citation": citation},
                }
            )
        if text:
            events.append(
                {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": text}}
            )
        events.append({"type": "content_block_stop", "index": i})
    return events


@given(blocks, st.lists(st.integers(min_value=1, max_value=40), max_size=10))
def test_generated_streams_show_first_appearance_numbers(
    spec: list[tuple[str, list[int]]], cuts: list[int]
) -> None:
    events, answer = run(split_text(stream_of(spec), cuts))
    text = shown(events)
    assert text == answer.text
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", text)]
    assert list(dict.fromkeys(numbers)) == list(range(1, len(answer.references) + 1))  # first appearance
    first_cited = [doc for _, cited in spec for doc in cited if doc < len(SOURCES)]
    assert [r.source.number - 1 for r in answer.references] == list(dict.fromkeys(first_cited))
    by_document = {(c.document_index, c.reference) for c in answer.citations}
    assert len(by_document) == len({c.document_index for c in answer.citations})  # one number per document
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "".join(t for t, _ in spec)
