"""Every span of generated answers in every unit: mixed scripts, emoji, spans at both ends, overlaps."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cite_core import from_native
from tests.core.native_payloads import check_native

WORDS = ["café", "Vienna", "東京", "首都", "🇦🇹", "🌊", "naïve", "Ω", "𠮷", "data", "ça", "über", "🙂"]
sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(lambda w: " ".join(w) + ".")
answers = st.lists(sentence, min_size=1, max_size=6)


def _gemini(text: str, spans: list[tuple[int, int]], with_text: bool) -> dict:
    supports = []
    for i, (start, end) in enumerate(spans):
        segment = {"startIndex": len(text[:start].encode()), "endIndex": len(text[:end].encode())}
        if with_text:
            segment["text"] = text[start:end]
        supports.append({"segment": segment, "groundingChunkIndices": [i % 3]})
    chunks = [{"web": {"uri": f"https://example.org/{i}", "title": f"Page {i}"}} for i in range(3)]
    return {
        "candidates": [
            {
                "content": {"parts": [{"text": text}]},
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ]
    }


@settings(max_examples=60, deadline=None)
@given(answers, st.booleans())
def test_gemini_byte_spans_cite_exactly_their_sentences(parts: list[str], with_text: bool) -> None:
    text = " ".join(parts)
    spans, at = [], 0
    for part in parts:
        start = text.index(part, at)
        spans.append((start, start + len(part)))
        at = start + len(part)
    answer = from_native(_gemini(text, spans, with_text))
    check_native(answer)
    assert [c.text for c in answer.claims] == [text[a:b] for a, b in spans]
    assert answer.plain_text == text and answer.invalid_markers == []


def _in(text: str, offset: int, unit: str) -> int:
    """A code-point offset of ``text`` counted in ``unit``."""
    if unit == "codepoint":
        return offset
    if unit == "utf16":
        return len(text[:offset].encode("utf-16-le")) // 2
    return len(text[:offset].encode())


@settings(max_examples=60, deadline=None)
@given(answers, st.sampled_from(["codepoint", "utf16", "utf8"]), st.data())
def test_cohere_spans_ending_together_in_any_unit(parts: list[str], unit: str, data: st.DataObject) -> None:
    text = " ".join(parts)
    bounds = []
    for i, part in enumerate(parts):
        start = sum(len(p) + 1 for p in parts[:i])
        bounds.append((start, start + len(part)))
    first = data.draw(st.integers(0, len(parts) - 1))
    last = data.draw(st.integers(first, len(parts) - 1))
    spans = [(bounds[first][0], bounds[last][1]), bounds[last]]  # the inner one ends with the outer
    citations = [
        {
            "start": _in(text, a, unit),
            "end": _in(text, b, unit),
            "text": text[a:b],
            "sources": [{"type": "document", "id": f"d{i}", "document": {"title": f"D{i}"}}],
        }
        for i, (a, b) in enumerate(spans)
    ]
    answer = from_native({"message": {"content": [{"type": "text", "text": text}], "citations": citations}})
    check_native(answer)
    assert answer.invalid_markers == []
    assert [(c.text, [x.document_title for x in c.citations]) for c in answer.claims] == [
        (text[spans[0][0] : spans[0][1]], ["D0", "D1"])
    ]


def test_an_offset_inside_a_character_is_never_cut() -> None:
    text = "東京 🌊."
    for start in range(len(text.encode())):
        for end in range(start, len(text.encode()) + 2):
            payload = _gemini(text, [], False)
            segment = {"startIndex": start, "endIndex": end}
            support = {"segment": segment, "groundingChunkIndices": [0]}
            payload["candidates"][0]["groundingMetadata"]["groundingSupports"] = [support]
            answer = from_native(payload)
            check_native(answer)
            encoded = text.encode()
            whole = end <= len(encoded) and all(
                (encoded[i] & 0xC0) != 0x80 for i in (start, end) if i < len(encoded)
            )
            if not whole:
                assert answer.invalid_markers == ["[1]"] and not answer.citations
            elif start < end and text.encode()[start:end].decode().strip():
                assert [c.text for c in answer.claims] == [encoded[start:end].decode().strip()]
