"""A source that is an image (``IMAGE_KEY`` in its metadata): its caption stands for it, cited whole."""

from __future__ import annotations

from cite_core import IMAGE_KEY, number_sources, parse_answer

CAPTION = "Photo of Kessby harbour. Red boats lie at the pier at dawn. Gulls circle above."


def test_an_image_source_is_cited_by_its_whole_caption_a_text_source_by_its_sentence() -> None:
    image = {
        "text": CAPTION,
        "title": "Harbour photo",
        "metadata": {IMAGE_KEY: {"url": "https://example.org/h.png"}},
    }
    sources = number_sources([image, {"text": CAPTION, "title": "Harbour text"}])
    answer = parse_answer("Red boats lie at the pier [1]. Red boats lie at the pier [2].", sources)
    whole, sentence = answer.citations
    assert (whole.cited_text, whole.start_char_index, whole.end_char_index) == (CAPTION, 0, len(CAPTION))
    assert sentence.cited_text == "Red boats lie at the pier at dawn."
    assert answer.references[0].source.metadata[IMAGE_KEY] == {"url": "https://example.org/h.png"}
