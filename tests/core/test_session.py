"""CitationSession: numbers stay stable across retrievals, and the final answer cites every call's sources."""

from __future__ import annotations

import threading

import pytest

from cite_core import CitationSession, SourceError


def test_numbers_continue_across_calls_and_repeats_keep_their_number() -> None:
    session = CitationSession()
    first = session.add(["The grass is green.", "The sky is blue."])
    second = session.add(["Water is wet.", "The grass is green."])
    assert [s.number for s in first] == [1, 2]
    assert [s.number for s in second] == [3, 1]  # a chunk retrieved twice keeps its number
    assert [s.text for s in session.sources] == ["The grass is green.", "The sky is blue.", "Water is wet."]
    assert len(session) == 3


def test_a_new_chunk_of_a_known_document_joins_its_source() -> None:
    session = CitationSession()
    session.add([{"text": "Hydrogen fuses.", "document_id": "sun", "title": "Sun"}, "The Moon orbits."])
    again = session.add([{"text": "Helium is made.", "document_id": "sun", "title": "Sun"}])
    assert [s.number for s in again] == [1]
    sun = session.sources[0]
    assert "Hydrogen fuses." in sun.text and "Helium is made." in sun.text
    assert [i["text"] for i in session.items_for(1)] == ["Hydrogen fuses.", "Helium is made."]
    assert session.sources[1].number == 2


def test_parse_covers_every_call_and_keeps_the_session_numbers() -> None:
    session = CitationSession()
    session.add(["The grass is green."])
    session.add(["The sky is blue."])
    answer = session.parse("The sky is blue [2] and the grass is green [1].")
    # the numbers the model saw and a chat UI streamed; references in order of first appearance
    assert [(r.number, r.source.number) for r in answer.references] == [(2, 2), (1, 1)]
    assert answer.text == "The sky is blue [2] and the grass is green [1]."
    assert [c.reference for c in answer.citations] == [2, 1]
    streamed = session.stream(display=True)
    shown = "".join(e.text for e in streamed.feed("The sky is blue [2].") if e.type == "display_delta")
    shown += "".join(e.text for e in [*streamed.events([])] if e.type == "display_delta")
    assert shown == "The sky is blue [2]."
    assert answer.invalid_markers == []
    assert session.parse("Nothing [3].").invalid_markers == ["[3]"]


def test_format_shows_session_numbers() -> None:
    session = CitationSession()
    session.add(["one."])
    shown = session.format(session.add(["two.", "one."]))
    assert 'number="2"' in shown and 'number="1"' in shown


def test_stream_equals_parse() -> None:
    session = CitationSession()
    session.add(["The grass is green.", "The sky is blue."])
    text = "Grass is green [1]. Sky is blue [2]."
    stream = session.stream()
    for ch in text:
        stream.feed(ch)
    assert stream.finish() == session.parse(text)


def test_bad_input_is_reported() -> None:
    session = CitationSession()
    with pytest.raises(SourceError):
        session.add("not a list")
    with pytest.raises(SourceError):
        session.add([42])
    assert len(session) == 0  # nothing half-added
    with pytest.raises(SourceError, match="no source 1"):
        session.items_for(1)


def test_threads_share_one_numbering() -> None:
    session = CitationSession()
    texts = [f"Fact number {i}." for i in range(40)]

    def work(part: list[str]) -> None:
        session.add(part)
        session.add(part[::-1])

    threads = [threading.Thread(target=work, args=(texts[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(s.text for s in session.sources) == sorted(texts)
    assert [s.number for s in session.sources] == list(range(1, 41))


def test_a_reload_restores_sources_whose_title_holds_a_closing_angle_bracket() -> None:
    """The tool result's ``<source ... title="Costs > 1930">`` block was skipped whole on reload, and
    the next retrieval took its number: the old answer's [1] then cited another document."""
    session = CitationSession()
    shown = session.add([{"text": "Dredging cost 40,000 crowns in 1931.", "title": "Costs > 1930 <draft>"}])
    tool_result = session.format(shown)
    message = {"role": "tool", "content": tool_result, "citation_sources": session.record(shown)}
    reloaded = CitationSession.from_messages([message])
    assert [(s.number, s.title, s.text) for s in reloaded.sources] == [
        (1, "Costs > 1930 <draft>", "Dredging cost 40,000 crowns in 1931.")
    ]
    (market,) = reloaded.add(["The fish market moved in 1933."])
    assert market.number == 2


def test_a_chunk_seen_in_another_document_joins_its_own_document() -> None:
    """The text was known from document A, so document B's retrieval of it added nothing to B."""
    session = CitationSession()
    session.add([{"text": "Shared paragraph about cats.", "document_id": "A", "title": "A"}])
    session.add([{"text": "Only in B: dogs bark.", "document_id": "B", "title": "B"}])
    (b,) = session.add([{"text": "Shared paragraph about cats.", "document_id": "B", "title": "B"}])
    assert b.number == 2 and b.text == "Only in B: dogs bark.\n\nShared paragraph about cats."
    assert len(session.items_for(2)) == 2 and len(session.items_for(1)) == 1


def test_a_chunk_kept_apart_from_its_document_keeps_its_own_number() -> None:
    """A chunk that copies a document id but not its title is its own source; retrieved again it came
    back as the other (trusted) source, text and title."""
    session = CitationSession()
    trusted = {"text": "The trusted report says revenue rose.", "document_id": "d", "title": "Trusted"}
    other = {"text": "Another page says revenue fell.", "document_id": "d", "title": "Other"}
    assert [s.number for s in session.add([trusted]) + session.add([other])] == [1, 2]
    (again,) = session.add([other])
    assert (again.number, again.title, again.text) == (2, "Other", "Another page says revenue fell.")
    assert [s.text for s in session.sources] == [trusted["text"], other["text"]]
