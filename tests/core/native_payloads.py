"""Provider responses built from their documented shapes, with spans computed in each provider's unit.

Shared by the tests of ``from_native`` (tests/core/test_native*.py) and of the AI SDK stream.
"""

from __future__ import annotations

from typing import Any

from cite_core import CitedAnswer, Source

# Non-ASCII before, inside and after the cited spans: accents (2 UTF-8 bytes), CJK (3), emoji (4 bytes,
# 2 UTF-16 units): an offset in the wrong unit lands on other words, or inside a character.
ANSWER = "Café culture began in Vienna 🇦🇹. 東京は日本の首都です。 The Seine flows through Paris 🌊."
SENTENCES = [
    "Café culture began in Vienna 🇦🇹.",
    "東京は日本の首都です。",
    "The Seine flows through Paris 🌊.",
]

VIENNA = "Vienna's first café opened in 1685. Café culture began in Vienna, says the guide."
TOKYO = "Tokyo facts. 東京は日本の首都です。 It has 14 million people."
PARIS = "Paris is the capital of France. The Seine flows through Paris to the sea."


def units(text: str, part: str, unit: str, occurrence: int = 0) -> tuple[int, int]:
    """Where ``part`` is in ``text``, counted in ``unit`` (``codepoint``, ``utf16``, ``utf8``)."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(part, start + 1)
    end = start + len(part)
    if unit == "codepoint":
        return start, end
    encoding = "utf-16-le" if unit == "utf16" else "utf-8"
    width = 2 if unit == "utf16" else 1
    return len(text[:start].encode(encoding)) // width, len(text[:end].encode(encoding)) // width


def user_sources() -> list[dict[str, Any]]:
    return [
        {"text": PARIS, "title": "Paris", "url": "https://example.org/paris", "document_id": "doc-paris"},
        {
            "text": VIENNA,
            "title": "Vienna cafés",
            "url": "https://example.org/vienna",
            "document_id": "doc-vienna",
        },
        {"text": TOKYO, "title": "Tokyo", "url": "https://example.org/tokyo", "document_id": "doc-tokyo"},
    ]


def gemini(unit: str = "utf8") -> dict[str, Any]:
    """A grounded ``generateContent`` response: offsets in ``unit`` of the part text."""
    s0, s1, s2 = (units(ANSWER, s, unit) for s in SENTENCES)
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": ANSWER}]},
                "finishReason": "STOP",
                "groundingMetadata": {
                    "webSearchQueries": ["café culture vienna"],
                    "groundingChunks": [
                        {"web": {"uri": "https://example.org/vienna", "title": "Vienna cafés"}},
                        {
                            "retrievedContext": {
                                "uri": "https://example.org/tokyo",
                                "title": "Tokyo",
                                "text": "東京は日本の首都です。",
                            }
                        },
                        {"web": {"uri": "https://example.org/paris", "title": "Paris"}},
                    ],
                    "groundingSupports": [
                        # startIndex 0 is left out, as proto3 JSON leaves out zero values
                        {
                            "segment": {"endIndex": s0[1], "text": SENTENCES[0]},
                            "groundingChunkIndices": [0],
                            "confidenceScores": [0.9],
                        },
                        {
                            "segment": {"startIndex": s1[0], "endIndex": s1[1], "text": SENTENCES[1]},
                            "groundingChunkIndices": [1, 7],
                        },
                        {
                            "segment": {"startIndex": s2[0], "endIndex": s2[1], "text": SENTENCES[2]},
                            "groundingChunkIndices": [2, 0],
                        },
                    ],
                },
            }
        ]
    }


def check_native(
    answer: CitedAnswer, sources: list[Source] | None = None, *, renumbered: bool = True
) -> None:
    """Every claim where it says it is, every quote copied from its source, references by first appearance."""
    assert "".join(b.text + b.marker_text for b in answer.content) == answer.text
    for claim in answer.claims:
        assert answer.text[claim.start : claim.end] == claim.text
        assert answer.plain_text[claim.plain_start : claim.plain_end] == claim.text
    by_number = {r.source.number: r.source for r in answer.references}
    for citation in answer.citations:
        source = by_number[citation.document_index + 1]
        assert source.text[citation.source_start : citation.source_end] == citation.cited_text
        if sources is not None and source in sources:
            assert citation.cited_text.strip()  # a source given: the quote is always located in it
    first = list(dict.fromkeys(c.reference for c in answer.citations))
    assert first == [r.number for r in answer.references]
    if renumbered:  # not in a session, whose numbers hold for the whole conversation
        assert first == list(range(1, len(first) + 1))
