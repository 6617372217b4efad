"""``from_native``: each provider's raw response as a ``CitedAnswer``, spans checked in every unit."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from cite_core import (
    ArgumentError,
    CiteError,
    answer_notes,
    detect_provider,
    from_anthropic_content,
    from_native,
    number_sources,
    render_html,
)
from tests.core.native_payloads import (
    ANSWER,
    PARIS,
    SENTENCES,
    TOKYO,
    VIENNA,
    check_native,
    gemini,
    units,
    user_sources,
)


def _claims(answer: Any) -> list[tuple[str, list[int]]]:
    return [(c.text, [x.reference for x in c.citations]) for c in answer.claims]


def _snake(value: Any) -> Any:
    """The payload as a provider's Python SDK dumps it (snake_case keys)."""
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)(?=[A-Z])", "_", k).lower(): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


# -- Gemini: UTF-8 bytes ------------------------------------------------------------------------


def test_gemini_byte_offsets_cite_the_sentences_they_delimit_without_sources() -> None:
    answer = from_native(gemini())
    check_native(answer)
    assert _claims(answer) == [(SENTENCES[0], [1]), (SENTENCES[1], [2]), (SENTENCES[2], [3, 1])]
    assert answer.invalid_markers == ["[8]"]  # groundingChunkIndices 7 of 3 chunks
    assert answer.text == f"{SENTENCES[0]} [1] {SENTENCES[1]} [2] {SENTENCES[2]} [3][1]"
    refs = [(r.number, r.title, r.url) for r in answer.references]
    assert refs == [
        (1, "Vienna cafés", "https://example.org/vienna"),
        (2, "Tokyo", "https://example.org/tokyo"),
        (3, "Paris", "https://example.org/paris"),
    ]
    # without sources: the provider's retrieved text is the quote, marked unverified
    assert answer.claims[1].citations[0].cited_text == "東京は日本の首都です。"
    assert all(r.source.metadata["native_citation"]["quote_verified"] is False for r in answer.references)


@pytest.mark.parametrize("unit", ["utf8", "codepoint", "utf16"])
def test_gemini_segment_text_picks_the_unit_that_reproduces_it(unit: str) -> None:
    """A proxy that converted the offsets: ``segment.text`` says which unit they count."""
    answer = from_native(gemini(unit))
    assert [c.text for c in answer.claims] == SENTENCES


def test_gemini_bytes_without_segment_text_are_bytes_and_a_mid_character_offset_is_invalid() -> None:
    payload = gemini()
    supports = payload["candidates"][0]["groundingMetadata"]["groundingSupports"]
    for support in supports:
        del support["segment"]["text"]
    start, end = units(ANSWER, SENTENCES[1], "utf8")
    supports[1]["segment"] = {"startIndex": start + 1, "endIndex": end}  # inside 東 (3 bytes)
    answer = from_native(payload)
    check_native(answer)
    assert [c.text for c in answer.claims] == [SENTENCES[0], SENTENCES[2]]
    assert answer.invalid_markers == ["[2]", "[8]"]


def test_gemini_span_outside_the_text_is_invalid_and_a_span_at_the_very_end_is_kept() -> None:
    payload = gemini()
    supports = payload["candidates"][0]["groundingMetadata"]["groundingSupports"]
    size = len(ANSWER.encode())
    supports[0]["segment"] = {"startIndex": size - len("🌊.".encode()), "endIndex": size}
    supports[1]["segment"] = {"startIndex": 3, "endIndex": size + 4}
    answer = from_native(payload)
    check_native(answer)
    assert "[2]" in answer.invalid_markers
    # two spans end at the last byte: one claim from the earlier start, cited by both
    assert _claims(answer) == [(SENTENCES[2], [1, 2])]
    assert [r.title for r in answer.references] == ["Paris", "Vienna cafés"]
    assert answer.text.endswith("🌊. [1][2]")


def test_gemini_snake_case_sdk_dump_and_parts_thoughts_are_read_alike() -> None:
    assert from_native(_snake(gemini())) == from_native(gemini())
    payload = gemini()
    parts = payload["candidates"][0]["content"]["parts"]
    parts.insert(0, {"text": "Let me think about cafés…", "thought": True})
    for support in payload["candidates"][0]["groundingMetadata"]["groundingSupports"]:
        support["segment"]["partIndex"] = 1
    answer = from_native(payload)
    assert answer.plain_text == ANSWER and [c.text for c in answer.claims] == SENTENCES


def test_gemini_with_sources_locates_each_quote_in_the_source_text() -> None:
    sources = number_sources(user_sources())
    answer = from_native(gemini(), sources)
    check_native(answer, sources)
    by_title = {c.document_title: c for c in answer.citations}
    tokyo = by_title["Tokyo"]
    assert (tokyo.cited_text, tokyo.start_char_index) == ("東京は日本の首都です。", TOKYO.index("東京"))
    assert "native_citation" not in answer.references[0].source.metadata
    # no quote from the provider (a web chunk): the locator picks the sentence, as for a [n] marker
    assert by_title["Paris"].cited_text == "The Seine flows through Paris to the sea."
    assert by_title["Vienna cafés"].cited_text.endswith("Café culture began in Vienna, says the guide.")
    assert [r.source.number for r in answer.references] == [2, 3, 1]


# -- OpenAI ----------------------------------------------------------------------------------------


def _responses(
    text: str, annotations: list[dict[str, Any]], results: list[Any] | None = None
) -> dict[str, Any]:
    output: list[dict[str, Any]] = [{"type": "web_search_call", "id": "ws_1", "status": "completed"}]
    if results is not None:
        output.append({"type": "file_search_call", "id": "fs_1", "queries": ["x"], "results": results})
    output.append(
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": annotations}],
        }
    )
    return {"id": "resp_1", "object": "response", "status": "completed", "output": output}


def test_openai_responses_url_citations_cite_the_sentence_they_close() -> None:
    text = "Le café viennois 🇦🇹 date de 1685 ([vienna](https://example.org/vienna)). Fin 🌊 ([paris](https://example.org/paris))"
    link1, link2 = "([vienna](https://example.org/vienna))", "([paris](https://example.org/paris))"
    a1, a2 = units(text, link1, "codepoint"), units(text, link2, "codepoint")
    notes = [
        {
            "type": "url_citation",
            "start_index": a1[0],
            "end_index": a1[1],
            "url": "https://example.org/vienna",
            "title": "Vienna",
        },
        {
            "type": "url_citation",
            "start_index": a2[0],
            "end_index": a2[1],
            "url": "https://example.org/paris",
            "title": "Paris",
        },
        {
            "type": "url_citation",
            "start_index": 5,
            "end_index": len(text) + 3,
            "url": "https://x.example",
            "title": "X",
        },
    ]
    answer = from_native(_responses(text, notes))
    check_native(answer)
    assert detect_provider(_responses(text, notes)) == "openai-responses"
    assert [c.text for c in answer.claims] == [text[: a1[1]], text[a1[1] + 2 :]]
    assert answer.invalid_markers == ["[3]"]
    assert [(r.title, r.url) for r in answer.references] == [
        ("Vienna", "https://example.org/vienna"),
        ("Paris", "https://example.org/paris"),
    ]
    assert answer.citations[0].cited_text == ""  # nothing quoted: unverified, and said so
    notes_ = answer_notes(answer)
    assert [n.kind for n in notes_] == ["invalid_markers", "unverified"]
    assert "cite-marker cite-weak" not in render_html(answer)  # unverified, not weak


def test_openai_file_citations_use_file_search_results_and_match_sources_by_file_id() -> None:
    text = "東京は日本の首都です。 Paris lies on the Seine."
    notes = [
        {
            "type": "file_citation",
            "file_id": "file-tokyo",
            "filename": "tokyo.txt",
            "index": len("東京は日本の首都です。"),
        },
        {
            "type": "container_file_citation",
            "container_id": "c1",
            "file_id": "file-paris",
            "filename": "paris.txt",
            "start_index": text.index("Paris"),
            "end_index": len(text),
        },
    ]
    results = [
        {"file_id": "file-tokyo", "filename": "tokyo.txt", "score": 0.9, "text": "東京は日本の首都です。"}
    ]
    answer = from_native(_responses(text, notes, results))
    check_native(answer)
    assert _claims(answer) == [("東京は日本の首都です。", [1]), ("Paris lies on the Seine.", [2])]
    assert answer.citations[0].cited_text == "東京は日本の首都です。"
    sources = number_sources(
        [
            {"text": TOKYO, "file_id": "file-tokyo", "title": "tokyo.txt"},
            {"text": PARIS, "title": "paris.txt"},
        ]
    )
    answer = from_native(_responses(text, notes, results), sources)
    check_native(answer, sources)
    assert [c.document_index for c in answer.citations] == [0, 1]
    assert answer.citations[0].start_char_index == TOKYO.index("東京")
    assert answer.citations[1].cited_text == "The Seine flows through Paris to the sea."


def test_openai_chat_completions_annotations() -> None:
    text = "Vienna's café culture 🇦🇹 is old [vienna](https://example.org/vienna)."
    link = units(text, "[vienna](https://example.org/vienna)", "codepoint")
    payload = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": text,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "start_index": link[0],
                                "end_index": link[1],
                                "url": "https://example.org/vienna",
                                "title": "Vienna",
                            },
                        }
                    ],
                },
                "finish_reason": "stop",
            }
        ],
    }
    assert detect_provider(payload) == "openai-chat"
    answer = from_native(payload, user_sources())
    check_native(answer)
    assert _claims(answer) == [(text[: link[1]], [1])]
    assert answer.references[0].source.title == "Vienna cafés"  # matched by URL
    assert answer.text == text[: link[1]] + " [1]."


# -- Cohere ----------------------------------------------------------------------------------------


def _cohere(citations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "c1",
        "finish_reason": "COMPLETE",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": ANSWER}],
            "citations": citations,
        },
    }


def _doc(key: str, **body: Any) -> dict[str, Any]:
    return {"type": "document", "id": key, "document": {"id": key, **body}}


def test_cohere_overlapping_spans_and_sources_by_id() -> None:
    whole = units(ANSWER, SENTENCES[0] + " " + SENTENCES[1], "codepoint")
    tokyo = units(ANSWER, SENTENCES[1], "codepoint")
    paris = units(ANSWER, "Seine flows through Paris 🌊.", "codepoint")
    citations = [
        {
            "start": whole[0],
            "end": whole[1],
            "text": ANSWER[whole[0] : whole[1]],
            "type": "TEXT_CONTENT",
            "sources": [_doc("doc-vienna", snippet="Café culture began in Vienna")],
        },
        {
            "start": tokyo[0],
            "end": tokyo[1],
            "text": SENTENCES[1],
            "sources": [_doc("doc-tokyo", text=TOKYO)],
        },
        {
            "start": paris[0],
            "end": paris[1],
            "text": "Seine flows through Paris 🌊.",
            "sources": [
                _doc("doc-paris", title="Paris"),
                {"type": "tool", "id": "tool-9", "tool_output": {}},
            ],
        },
    ]
    sources = number_sources(user_sources())
    answer = from_native(_cohere(citations), sources)
    check_native(answer, sources)
    # the two overlapping spans end together: one claim, both documents (in citation order)
    assert _claims(answer) == [
        (SENTENCES[0] + " " + SENTENCES[1], [1, 2]),
        ("Seine flows through Paris 🌊.", [3]),
    ]
    assert answer.invalid_markers == ["[tool-9]"]  # a tool output no source holds, known only by id
    vienna = answer.citations[0]
    assert (vienna.cited_text, vienna.start_char_index) == (
        "Café culture began in Vienna",
        VIENNA.index("Café culture"),
    )
    assert answer.citations[1].cited_text == TOKYO  # the document's whole text, found whole


@pytest.mark.parametrize("unit", ["utf16", "utf8"])
def test_cohere_offsets_in_another_unit_are_recognised_by_the_cited_text(unit: str) -> None:
    span = units(ANSWER, SENTENCES[2], unit)
    citation = {"start": span[0], "end": span[1], "text": SENTENCES[2], "sources": [_doc("d", title="Paris")]}
    answer = from_native(_cohere([citation]))
    assert _claims(answer) == [(SENTENCES[2], [1])]


def test_cohere_nested_span_is_cut_not_cited_twice() -> None:
    outer = units(ANSWER, SENTENCES[1] + " " + SENTENCES[2], "codepoint")
    inner = units(ANSWER, SENTENCES[1], "codepoint")
    answer = from_native(
        _cohere(
            [
                {"start": outer[0], "end": outer[1], "sources": [_doc("a", title="A")]},
                {"start": inner[0], "end": inner[1], "sources": [_doc("b", title="B")]},
            ]
        )
    )
    check_native(answer)
    assert _claims(answer) == [(SENTENCES[1], [1]), (SENTENCES[2], [2])]


# -- Mistral ---------------------------------------------------------------------------------------


def test_mistral_reference_chunks_cite_the_sentence_before_them() -> None:
    payload = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Intro sentence. " + SENTENCES[0]},
                        {"type": "reference", "reference_ids": [2]},
                        {"type": "text", "text": " " + SENTENCES[1]},
                        {"type": "reference", "reference_ids": [3, 9]},
                        {"type": "text", "text": " Done."},
                    ],
                },
            }
        ],
    }
    assert detect_provider(payload) == "mistral"
    sources = number_sources(
        [
            {"text": PARIS, "document_id": "1"},
            {"text": VIENNA, "document_id": "2"},
            {"text": TOKYO, "document_id": "3"},
        ]
    )
    answer = from_native(payload, sources)
    check_native(answer, sources)
    assert _claims(answer) == [(SENTENCES[0], [1]), (SENTENCES[1], [2])]
    assert answer.invalid_markers == ["[ref 9]"]
    assert answer.text == f"Intro sentence. {SENTENCES[0]} [1] {SENTENCES[1]} [2] Done."
    assert [r.source.number for r in answer.references] == [2, 3]


# -- Perplexity --------------------------------------------------------------------------------------


def test_perplexity_markers_name_citations_described_by_search_results() -> None:
    payload = {
        "id": "p1",
        "model": "sonar",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Café culture began in Vienna 🇦🇹 [2]. 東京は日本の首都です [1][9]。",
                },
            }
        ],
        "citations": ["https://example.org/tokyo", "https://example.org/vienna"],
        "search_results": [
            {"title": "Vienna cafés", "url": "https://example.org/vienna", "snippet": VIENNA},
            {"title": "Tokyo", "url": "https://example.org/tokyo", "date": "2024-01-01"},
        ],
    }
    assert detect_provider(payload) == "perplexity"
    answer = from_native(payload)
    check_native(answer)
    assert answer.invalid_markers == ["[9]"]
    assert [(r.number, r.title, r.source.number) for r in answer.references] == [
        (1, "Vienna cafés", 2),
        (2, "Tokyo", 1),
    ]
    assert answer.citations[0].cited_text == "Café culture began in Vienna, says the guide."
    with_sources = from_native(payload, user_sources())
    check_native(with_sources)
    assert with_sources.citations[1].cited_text == "東京は日本の首都です。"


# -- Anthropic ------------------------------------------------------------------------------------


def _claude() -> dict[str, Any]:
    cited = "Café culture began in Vienna, says the guide."
    start = VIENNA.index(cited)
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "stop_reason": "end_turn",
        "content": [
            {"type": "text", "text": "According to the guide, "},
            {
                "type": "text",
                "text": "café culture began in Vienna.",
                "citations": [
                    {
                        "type": "char_location",
                        "cited_text": cited,
                        "document_index": 1,
                        "document_title": "Vienna cafés",
                        "start_char_index": start,
                        "end_char_index": start + len(cited),
                    }
                ],
            },
            {
                "type": "text",
                "text": " The Seine crosses Paris.",
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": "https://example.org/paris",
                        "title": "Paris",
                        "cited_text": "The Seine flows through Paris",
                        "encrypted_index": "x",
                    }
                ],
            },
        ],
    }


def test_anthropic_is_delegated_to_from_anthropic_content() -> None:
    sources = number_sources(user_sources())
    payload = _claude()
    payload["content"] = payload["content"][:2]
    assert detect_provider(payload) == "anthropic"
    assert from_native(payload, sources) == from_anthropic_content(payload["content"], sources)


def test_anthropic_without_sources_and_web_results() -> None:
    answer = from_native(_claude())
    check_native(answer)
    assert [(r.title, r.url) for r in answer.references] == [
        ("Vienna cafés", None),
        ("Paris", "https://example.org/paris"),
    ]
    assert [c.cited_text for c in answer.citations] == [
        "Café culture began in Vienna, says the guide.",
        "The Seine flows through Paris",
    ]
    sources = number_sources(user_sources())
    answer = from_native(_claude(), sources)  # the web result is the user's source of that URL
    check_native(answer, sources)
    assert [r.source.number for r in answer.references] == [2, 1]


# -- bad payloads ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "names"),
    [
        ("text", "response"),
        ({"hello": 1}, "response"),
        ({"candidates": []}, "response.candidates"),
        ({"candidates": [{"content": {"parts": [{"text": 3}]}}]}, "candidates[0].content.parts[0].text"),
        (
            {
                "candidates": [
                    {
                        "content": {"parts": []},
                        "groundingMetadata": {
                            "groundingSupports": [
                                {"segment": {"endIndex": "4"}, "groundingChunkIndices": [0]}
                            ]
                        },
                    }
                ]
            },
            "segment.endIndex",
        ),
        (
            {
                "candidates": [
                    {"groundingMetadata": {"groundingSupports": [{"groundingChunkIndices": ["a"]}]}}
                ]
            },
            "groundingChunkIndices[0]",
        ),
        (
            {
                "choices": [
                    {
                        "message": {
                            "content": "x",
                            "annotations": [{"type": "url_citation", "url_citation": 5}],
                        }
                    }
                ]
            },
            "annotations[0].url_citation",
        ),
        ({"message": {"content": [], "citations": [{"start": "0", "end": 3}]}}, "citations[0].start"),
        (
            {"choices": [{"message": {"content": [{"type": "reference", "reference_ids": [1, {}]}]}}]},
            "reference_ids[1]",
        ),
        ({"choices": []}, "response.choices"),
    ],
)
def test_bad_payloads_raise_a_cite_error_naming_the_field(payload: Any, names: str) -> None:
    with pytest.raises(CiteError) as raised:
        from_native(payload)
    assert isinstance(raised.value, ArgumentError)
    assert names in str(raised.value)


def test_model_output_never_raises_and_sdk_objects_are_read() -> None:
    class Dumped:
        def model_dump(self) -> dict[str, Any]:
            return copy.deepcopy(gemini())

    assert from_native(Dumped()) == from_native(gemini())
    empty = from_native({"candidates": [{"content": {"parts": []}}]})
    assert (empty.text, empty.references, empty.invalid_markers) == ("", [], [])
