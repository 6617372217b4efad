"""Inputs that once broke an invariant (found by the long hypothesis run, atheris or a probe), pinned."""

from __future__ import annotations

from cite_core import number_sources, parse_answer

SOURCES = number_sources(
    [
        {
            "text": "The grass is green. The sky is blue.",
            "title": "My Document",
            "url": "https://example.org/d",
        },
        "Water is essential for life.",
        {"text": "Paris is the capital of France. It has many museums.", "title": "France"},
    ]
)


def first_seen(answer) -> list[int]:  # type: ignore[no-untyped-def]
    return list(dict.fromkeys(c.document_index + 1 for c in answer.citations))


def test_marker_inside_an_unclosed_tag_keeps_references_in_order_of_appearance() -> None:
    # long hypothesis run: the tag's citation and the marker's shared a block in an order that
    # disagreed with the display numbers, so content order and reference order differed
    for text in ("<CIT chunk_id='1' sentences='1-2'>.(Source 2)", "A is x <CIT chunk_id='1'>B [2]</CIT>"):
        answer = parse_answer(text, SOURCES)
        assert [r.source.number for r in answer.references] == first_seen(answer)
        assert [r.number for r in answer.references] == [1, 2]


def test_a_tag_claim_is_the_whole_tagged_text_even_with_markers_inside() -> None:
    # long hypothesis run: a marker inside <CIT> moved the claim boundary past the tag's start, and the
    # tag's claim was then sliced from the tail with a negative offset (claim "G", offsets off)
    answer = parse_answer("<CIT chunk_id='1'>Grass. The sky is blue [2].</CIT> Paris [3].", SOURCES)
    tag = next(c for c in answer.citations if c.document_index == 0)
    block = next(b for b in answer.content if tag in (b.citations or []))
    # the inner marker cuts the tag's block (its display markers follow "blue"): the longest piece
    assert (block.text, block.marker_text) == ("Grass. The sky is blue", " [1]")
    assert [r.source.number for r in answer.references] == first_seen(answer)


def test_marker_right_after_a_tag_opens_and_a_cjk_sentence() -> None:
    answer = parse_answer("<CIT chunk_id='1' sentences='1-2'>(Source 2)中文。", SOURCES)
    assert [r.source.number for r in answer.references] == first_seen(answer)
    # the marker before any text follows an empty first block (``marker_text``), not part of to_anthropic()
    assert [(b.text, len(b.citations or [])) for b in answer.content] == [("", 0), ("中文。", 2)]
    assert [b["text"] for b in answer.to_anthropic()["content"]] == ["中文。"]


def test_a_forward_claim_pending_when_an_unclosed_tag_ends_the_answer() -> None:
    # long hypothesis run: finish() closed the tag (moving the claim boundary) before resolving the
    # pending forward claim of "[2]", which became an empty claim at offset 0, ahead of the tag's
    answer = parse_answer("a<CIT chunk_id='1' sentences='1-2'>[2]", SOURCES)
    assert [r.source.number for r in answer.references] == first_seen(answer)
    assert [(b.text, len(b.citations or [])) for b in answer.content] == [("a", 2)]


def test_each_source_has_its_own_cache() -> None:
    # Source._cache became a copied default instead of a default_factory (profile: 6x faster Source());
    # now a typed analysis, created per source on first use
    from cite_core._schema.source import Unit, analysis_of

    first, second = number_sources(["One.", "Two."])
    analysis_of(first).units = [Unit(0, 1, 0, ("x",))]
    assert analysis_of(second).units is None and analysis_of(first) is not analysis_of(second)


def test_groups_sharing_a_claim_keep_the_order_they_were_numbered_in() -> None:
    # atheris (bench/fuzz.py --target parser): "[1] x [5] y [1-3]" with the [5] and [1-3] groups sharing
    # one claim; ordering the groups by their smallest display number put [1-3] (1 seen before) ahead
    sources = number_sources(["One.", "Two.", "Three.", "Four.", "Five."])
    for text in ("[1-3% \n[1])))[5])()) &My Docue[1-3] \nI0\x00\x00", "[1])))[5])()) &My Docue[1-3]"):
        answer = parse_answer(text, sources)
        assert [r.source.number for r in answer.references] == [1, 5, 2, 3] == first_seen(answer)


def test_a_line_cut_right_after_a_marker_and_colon_waits_for_the_next_character() -> None:
    # atheris (bench/fuzz.py --target parser, this session): a stream cut after "[1]:" at the start of a
    # line took it for a Markdown link reference definition ("[1]: url") and dropped the rest of the
    # answer as a reference list; the whole parse saw "[1]:c", which is not one
    from cite_core import CitationStream

    sources = number_sources(["One.", "Two."])
    for text, cut in (("[1]:c", 4), ("e  [2]```\nDone [x]\n[1]:2Z_Doc", 23)):
        whole = parse_answer(text, sources)
        stream = CitationStream(sources)
        stream.feed(text[:cut])
        stream.feed(text[cut:])
        assert stream.finish() == whole
        assert whole.removed_reference_list is None
    definition = parse_answer("Grass is green [1].\n[1]: https://example.org/d", sources)
    assert definition.removed_reference_list == "[1]: https://example.org/d"
    stream = CitationStream(sources)
    for piece in ("Grass is green [1].\n[1]:", " https://example.org/d"):
        stream.feed(piece)
    assert stream.finish() == definition


def _fed_in_pieces(text: str, piece: str, times: int) -> tuple[object, int]:
    from cite_core import CitationStream

    stream = CitationStream(SOURCES)
    stream.feed(text)
    held = 0
    for _ in range(times):
        stream.feed(piece)
        held = max(held, stream.held)
    return stream.finish(), held


def test_backtick_and_tilde_runs_are_decided_without_waiting() -> None:
    # attack run (issue 16): a run of backticks anywhere, or of "~" at a line start, held back
    # everything (quadratic: 100,000 backticks fed two at a time took 3.2 s)
    from cite_core._stream.line_starts import MAX_FENCE

    for text, piece in (("Answer: ", "``"), ("Hello\n", "~"), ("x `code ", "``"), ("```\nx\n", "`")):
        answer, held = _fed_in_pieces(text, piece, 2_000)
        assert held <= MAX_FENCE + 3, (text, held)
        assert answer == parse_answer(text + piece * 2_000, SOURCES)


def test_a_model_written_reference_line_is_removed_in_the_stream_as_in_the_whole_parse() -> None:
    # attack run (issue 16): "Sources: h" was decided as text before "http" arrived
    from cite_core import CitationStream

    for text in (
        "The sky is blue [1].\nSources: https://evil.example/x",
        "The sky is blue [1].\nReference:http://x.org",
        "The sky is blue [1].\nSource:https://x.org",
    ):
        whole = parse_answer(text, SOURCES)
        assert "http" not in whole.text
        for cut in range(1, len(text)):
            stream = CitationStream(SOURCES)
            stream.feed(text[:cut])
            stream.feed(text[cut:])
            assert stream.finish() == whole, (text, cut)


def test_a_backtick_run_decided_as_text_ends_with_the_next_character() -> None:
    # property run: after "``" inside a one-backtick code span (1-character chunks), the flag "the rest
    # of a run decided as text" outlived the run, so the closing "`" later did not close the span
    from cite_core import CitationStream

    text = "`^``<think>(Source 2)^[1]`a[1]"
    stream = CitationStream(SOURCES)
    for char in text:
        stream.feed(char)
    assert stream.finish() == parse_answer(text, SOURCES)
