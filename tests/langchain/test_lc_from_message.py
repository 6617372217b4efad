"""from_message: AIMessages whose content blocks carry LangChain 1.x citation annotations, as each
provider's integration fills them (through langchain-core's own block translators)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage

from cite_core import ArgumentError, parse_answer
from langchain_cite import documents_to_sources, from_message, to_ai_message
from tests.core.native_payloads import ANSWER, PARIS, SENTENCES, TOKYO, VIENNA, check_native, gemini, units

pytestmark = pytest.mark.skipif(
    not hasattr(AIMessage, "content_blocks"), reason="citation annotations need langchain-core 1.x"
)

DOCUMENTS = [
    Document(page_content=PARIS, metadata={"title": "Paris", "source": "https://example.org/paris"}),
    Document(page_content=VIENNA, metadata={"title": "Vienna cafés", "source": "https://example.org/vienna"}),
    Document(page_content=TOKYO, metadata={"title": "Tokyo", "source": "https://example.org/tokyo"}),
]


def _google() -> AIMessage:
    """langchain-google's message: the text, Gemini's grounding metadata (snake_case) beside it."""
    meta = gemini()["candidates"][0]["groundingMetadata"]
    snake = {
        "grounding_chunks": [
            {
                "web": c.get("web")
                or {"uri": c["retrievedContext"]["uri"], "title": c["retrievedContext"]["title"]}
            }
            for c in meta["groundingChunks"]
        ],
        "grounding_supports": [
            {
                "segment": {
                    "start_index": s["segment"].get("startIndex"),
                    "end_index": s["segment"]["endIndex"],
                    "text": s["segment"]["text"],
                },
                "grounding_chunk_indices": s["groundingChunkIndices"],
            }
            for s in meta["groundingSupports"]
        ],
    }
    return AIMessage(
        content=ANSWER, response_metadata={"model_provider": "google_genai", "grounding_metadata": snake}
    )


def test_langchain_google_byte_offsets_are_detected_and_converted() -> None:
    message = _google()
    notes = [a for b in message.content_blocks for a in b.get("annotations", [])]
    # langchain-core copies Gemini's byte offsets: in code points they cut other words
    first = next(a for a in notes if a["cited_text"] == SENTENCES[1])
    assert ANSWER[first["start_index"] : first["end_index"]] != SENTENCES[1]
    answer = from_message(message)
    check_native(answer)
    assert [c.text for c in answer.claims] == SENTENCES
    assert [r.url for r in answer.references] == [
        "https://example.org/vienna",
        "https://example.org/tokyo",
        "https://example.org/paris",
    ]
    # cited_text was the answer's own segment, not a quote: located in the documents when given
    answer = from_message(message, DOCUMENTS)
    check_native(answer)
    tokyo = next(c for c in answer.citations if c.document_title == "Tokyo")
    assert (tokyo.cited_text, tokyo.start_char_index) == ("東京は日本の首都です。", TOKYO.index("東京"))


def test_langchain_anthropic_citations_name_documents_by_index() -> None:
    cited = "Café culture began in Vienna, says the guide."
    start = VIENNA.index(cited)
    content: list[dict[str, Any]] = [
        {
            "type": "text",
            "text": "Café culture began in Vienna 🇦🇹.",
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
            "text": " 東京は日本の首都です。",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": "東京は日本の首都です。",
                    "document_index": 2,
                    "document_title": "Tokyo",
                    "start_char_index": 13,
                    "end_char_index": 24,
                },
                {
                    "type": "char_location",
                    "cited_text": "Nowhere.",
                    "document_index": 7,
                    "document_title": "?",
                    "start_char_index": 0,
                    "end_char_index": 8,
                },
            ],
        },
    ]
    message = AIMessage(content=content, response_metadata={"model_provider": "anthropic"})
    answer = from_message(message, DOCUMENTS)
    check_native(answer)
    assert [(c.text, [x.document_index for x in c.citations]) for c in answer.claims] == [
        ("Café culture began in Vienna 🇦🇹.", [1]),
        ("東京は日本の首都です。", [2]),
    ]
    assert answer.citations[0].start_char_index == start
    assert answer.invalid_markers == ["[8]"]
    unverified = from_message(message)  # without documents: one source per document, its quotes
    assert [r.title for r in unverified.references] == ["Vienna cafés", "Tokyo", "?"]


def test_langchain_openai_url_citations_in_code_points() -> None:
    text = "Le café 🇦🇹 ([vienna](https://example.org/vienna))."
    start, end = units(text, "([vienna](https://example.org/vienna))", "codepoint")
    content = [
        {
            "type": "text",
            "text": text,
            "annotations": [
                {
                    "type": "url_citation",
                    "start_index": start,
                    "end_index": end,
                    "url": "https://example.org/vienna",
                    "title": "Vienna",
                }
            ],
        }
    ]
    message = AIMessage(content=content, response_metadata={"model_provider": "openai"})
    answer = from_message(message, DOCUMENTS)
    check_native(answer)
    assert [c.text for c in answer.claims] == [text[:end]]
    assert answer.references[0].source.title == "Vienna cafés"


def test_a_message_without_citations_and_a_bad_argument() -> None:
    answer = from_message(AIMessage(content="No sources here."))
    assert (answer.text, answer.references) == ("No sources here.", [])
    with pytest.raises(ArgumentError, match="AIMessage"):
        from_message("text")  # type: ignore[arg-type]


def test_langchain_cites_own_message_round_trips_and_one_with_markers_is_refused() -> None:
    sources = documents_to_sources(DOCUMENTS)
    answer = parse_answer("The Seine flows through Paris [1]. 東京は日本の首都です [3]。", sources)
    again = from_message(to_ai_message(answer), DOCUMENTS)
    check_native(again)
    assert again.text == answer.text
    assert [(c.text, [x.cited_text for x in c.citations]) for c in again.claims] == [
        (c.text, [x.cited_text for x in c.citations]) for c in answer.claims
    ]
    with pytest.raises(ArgumentError, match="holds its citation markers"):
        from_message(to_ai_message(answer, markers=True), DOCUMENTS)


def test_own_message_keeps_the_quote_where_it_was_when_the_source_says_it_twice() -> None:
    tides = "The tide is high at noon. Boats wait in the harbour. The tide is high at noon."
    documents = [Document(page_content=tides, metadata={"title": "Tides"})]
    answer = parse_answer(
        "The tide is high at noon [1:3].", documents_to_sources(documents), style="sentences"
    )
    [quoted] = answer.citations
    assert quoted.source_start == tides.index("The tide", 1)  # the third sentence, not the first
    again = from_message(to_ai_message(answer), documents)
    check_native(again)
    assert [(c.source_start, c.source_end) for c in again.citations] == [
        (quoted.source_start, quoted.source_end)
    ]
