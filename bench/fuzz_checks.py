"""What bench/fuzz.py feeds its targets and the invariants it checks, shared by both engines.

``TOKENS`` (the libFuzzer dictionary and hypothesis' building blocks), ``SEEDS`` and ``make_sources``
are the inputs; ``check_parser``, ``check_segmenter`` and ``check_sources`` raise ``AssertionError`` when
an invariant breaks; ``measure_holdback`` feeds each ``HOLDBACK`` construct one character at a time
(``python bench/fuzz.py --holdback``). ``cite_core`` is imported inside the functions, so that the
atheris child imports it under its instrumentation.
"""

from __future__ import annotations

import json

__all__ = [
    "HOLDBACK",
    "HOLD_BOUND",
    "SEEDS",
    "TOKENS",
    "check_parser",
    "check_segmenter",
    "check_sources",
    "make_sources",
    "measure_holdback",
]

HOLD_BOUND = 640
"""No stream holds back more than this many characters (a link target of 512 and its marker)."""

TOKENS = [
    "[1]",
    "[2]",
    "[5]",
    "[0]",
    "[7]",
    "[2019]",
    "[1, 2]",
    "[1-3]",
    "[1–3]",
    "[[1]]",
    "【1】",
    "［1］",
    "[^1]",
    "[Source 1]",
    "(Source 2)",
    "[Doc 1]",
    "[ID:1]",
    "[ 1 ]",
    "[1](https://x.org/a)",
    "[1:2]",
    "[2:1-3]",
    "<CIT chunk_id='1' sentences='2-3'>",
    "</CIT>",
    "```",
    "~~~",
    "`",
    "\nSources:\n",
    "\n## References\n",
    "\n[1] My Document",
    "[^1]: ",
    "- [ ] ",
    "Dr. ",
    "e.g. ",
    "¿",
    "。",
    "！",
    "《",
    "》",
    "\r\n",
    "\n\n",
    "...",
    "``",
    "`" * 40,
    "~" * 40,
    "\n~~",
    "\nSources: ht",
    "tps://evil.example/x",
    "\nReference:http",
    "\nSource:h",
    "<think>",
    "</think>",
    "<Thinking>",
    "</reasoning>",
    "  ",
]

HOLDBACK = {
    "marker": "The grass is green [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]. Done.",
    "link": "Paris [1](https://example.org/" + "a" * 400 + ") is big.",
    "cit_tag": "<CIT chunk_id='1' sentences='1-2' note='" + "x" * 150 + "'>The grass.</CIT> ok",
    "think_tag": "<thinking >Let me see.</thinking >Paris is big [3].",
    "spaces": "The grass is green" + " " * 60 + "[1]. Done.",
    "heading": "Paris [3].\n**Sources cited:**\n[1] My Document, https://example.org/d",
    "reference_line": "Paris [3].\nSources: https://evil.example/x",
    "fence": "Text.\n" + "~" * 30 + "\ncode [1]\n" + "~" * 30 + "\nDone [1].",
    "backticks": "Answer: " + "`" * 5_000 + " done [1].",
    "tildes": "Hello\n" + "~" * 5_000 + " done [1].",
    "code_span_ticks": "x `code " + "`" * 5_000 + " done [1].",
}
"""Constructs the stream may hold back, each fed one character at a time by ``measure_holdback``."""


def measure_holdback() -> dict[str, int]:
    """The most characters the stream held back at once while each ``HOLDBACK`` text arrived."""
    from cite_core import CitationStream

    sources = make_sources()
    result = {}
    for name, text in HOLDBACK.items():
        stream = CitationStream(sources)
        most = 0
        for char in text:
            stream.feed(char)
            most = max(most, stream.held)
        stream.finish()
        result[name] = most
    return result


SEEDS = [
    "The grass is green [1] and the sky is blue [2].",
    "[1] The grass is green. Paris [3][1]. Water [2, 5]. Bad [7] [0].",
    "<CIT chunk_id='1' sentences='1-2'>The grass is green.</CIT> Water [2:1].",
    "Use `[1]` here.\n```\n[2]\n```\nDone [1].\n\nSources:\n[1] My Document, https://example.org/d\n",
    "El Sr. García llegó. ¿Qué pasa? 中文句子。另一个句子！Dr. Smith went home.\n- item one\n- item two",
]


def make_sources():  # type: ignore[no-untyped-def]
    from cite_core import number_sources

    return number_sources(
        [
            {
                "text": "The grass is green. The sky is blue.",
                "title": "My Document",
                "url": "https://example.org/d",
            },
            "Water is essential for life. 水是生命之源。",
            {"text": "Paris is the capital of France. It has many museums.", "title": "France"},
            {"pages": ["Cats purr. Cats sleep.", "Dogs bark."], "title": "Pets"},
            {"blocks": ["Tea is hot.", "Ice is cold."]},
        ]
    )


# -- invariants (shared by both engines) -----------------------------------------------------------


def check_parser(text: str, cuts: list[int], sources) -> None:  # type: ignore[no-untyped-def]
    from cite_core import CitationStream, parse_answer

    whole = parse_answer(text, sources)
    stream = CitationStream(sources)
    events: list = []  # type: ignore[type-arg]
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    for a, b in zip(bounds, bounds[1:]):
        events += stream.feed(text[a:b])
        assert stream.held <= HOLD_BOUND, f"held back {stream.held} characters"
    answer = stream.finish()
    events += stream.pending_events()
    resets = [i for i, e in enumerate(events) if e.type == "answer_reset"]  # before: reasoning
    deltas = [e.text for e in events[resets[-1] + 1 if resets else 0 :] if e.type == "text_delta"]
    assert answer == whole, "stream != whole parse"
    assert "".join(deltas) == whole.plain_text == "".join(b.text for b in whole.content), "text deltas"
    by_number = {s.number: s for s in sources}
    for c in whole.citations:
        assert by_number[c.document_index + 1].text[c.source_start : c.source_end] == c.cited_text, "offsets"
    first_seen = list(dict.fromkeys(c.document_index + 1 for c in whole.citations))
    assert [r.source.number for r in whole.references] == first_seen, "reference order"
    assert [r.number for r in whole.references] == list(range(1, len(first_seen) + 1)), "display numbers"
    mapping = {c.document_index + 1: c.reference for c in whole.citations}
    assert len(set(mapping.values())) == len(mapping), "renumbering is not a bijection"
    json.loads(whole.model_dump_json())


def check_segmenter(text: str) -> None:
    from cite_core import split_sentences

    previous, covered = 0, 0
    spans = split_sentences(text)
    for start, end in spans:
        assert previous <= start < end <= len(text), f"span {(start, end)} out of order"
        assert not text[start].isspace() and not text[end - 1].isspace(), "span not trimmed"
        covered += sum(1 for ch in text[start:end] if not ch.isspace())
        previous = end
    assert covered == sum(1 for ch in text if not ch.isspace()), "non-space text outside every span"


def check_sources(items: list) -> None:  # type: ignore[type-arg]
    from cite_core import SourceError, number_sources

    try:
        sources = number_sources(items)
    except SourceError:
        return
    assert [s.number for s in sources] == list(range(1, len(sources) + 1))
    for source in sources:
        for seg in source.segments:
            assert source.text[seg.start : seg.end] == seg.text, "segment offsets"
    json.loads(json.dumps([s.model_dump(mode="json") for s in sources]))
