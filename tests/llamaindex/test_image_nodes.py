"""Image nodes as sources: numbered like any node, cited whole by their caption; one without a caption
is numbered and cited by its name (``Image <name> (no caption)``) when the model is shown images, else
left out, logged, listed in ``dropped_nodes`` and named by the answer's ``left_out`` note. An image held
only as bytes is shown to a multimodal model as an image block all the same."""

from __future__ import annotations

import base64
import json
import logging

from llama_index.core.base.response.schema import Response
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.schema import ImageNode, MediaResource, Node, NodeWithScore, QueryBundle, TextNode

from cite_core import IMAGE_KEY, answer_notes
from llamaindex_cite import CitePostprocessor, CiteQueryEngine

from .conftest import ListRetriever, ReplayLLM

QUESTION = "What is in the harbour picture?"
NODES = [
    NodeWithScore(node=TextNode(text="Kessby harbour holds twelve fishing boats.", id_="text"), score=0.9),
    NodeWithScore(
        node=ImageNode(
            image_url="https://example.org/harbour.png",
            image_mimetype="image/png",
            text="Photo of Kessby harbour. Red boats lie at the pier at dawn.",
            id_="photo",
        ),
        score=0.8,
    ),
    NodeWithScore(node=ImageNode(image_url="https://example.org/blank.png", id_="blank"), score=0.7),
    NodeWithScore(
        node=Node(
            image_resource=MediaResource(url="https://example.org/map.png", text="Map of the Kessby coast."),
            id_="map",
        ),
        score=0.6,
    ),
]


def test_captioned_images_are_numbered_and_cited_whole_uncaptioned_ones_left_out(caplog) -> None:  # type: ignore[no-untyped-def]
    llm = ReplayLLM(
        answers={QUESTION: "Red boats lie at the pier [2]. The coast is mapped [3]. Twelve boats [1]."}
    )
    engine = CiteQueryEngine.from_args(ListRetriever(NODES), llm=llm)
    with caplog.at_level(logging.WARNING):
        response = engine.query(QUESTION)
    prompt = llm.prompts[0]
    assert "Photo of Kessby harbour." in prompt and "Map of the Kessby coast." in prompt
    assert prompt.count("An image; its caption or alt text:") == 2
    answer = response.metadata["cited_answer"]
    photo, coast, boats = answer.citations
    assert boats.cited_text == "Kessby harbour holds twelve fishing boats."
    # the caption stands for the whole image: cited whole, not its best sentence
    assert photo.cited_text == "Photo of Kessby harbour. Red boats lie at the pier at dawn."
    assert coast.cited_text == "Map of the Kessby coast."
    assert [n.node.node_id for n in response.source_nodes] == ["photo", "map", "text"]
    refs = answer.references
    assert refs[0].source.metadata[IMAGE_KEY] == {
        "url": "https://example.org/harbour.png",
        "mimetype": "image/png",
    }
    assert refs[0].url == "https://example.org/harbour.png"
    assert [n.node.node_id for n in response.metadata["dropped_nodes"]] == ["blank"]
    assert any("blank" in r.getMessage() and "caption" in r.getMessage() for r in caplog.records)


class SeeingLLM(ReplayLLM):
    """Records the chat messages it is sent (their image blocks are lost in the text prompt)."""

    def chat(self, messages, **kwargs):  # type: ignore[no-untyped-def, override]
        self._seen.append(list(messages))
        return super().chat(messages, **kwargs)

    @property
    def seen(self):  # type: ignore[no-untyped-def]
        return self._seen

    _seen: list = PrivateAttr(default_factory=list)  # type: ignore[type-arg]


def test_a_multimodal_model_is_shown_each_image_labelled_with_its_number() -> None:
    llm = SeeingLLM(answers={QUESTION: "Red boats lie at the pier [2]. The coast is mapped [4]."})
    engine = CiteQueryEngine.from_args(ListRetriever(NODES), llm=llm, multimodal=True)
    response = engine.query(QUESTION)
    user = llm.seen[0][-1]
    kinds = [type(b).__name__ for b in user.blocks]
    assert kinds == ["TextBlock", *["TextBlock", "ImageBlock"] * 3]
    assert user.blocks[1].text.endswith("The image of source [2]:")
    assert str(user.blocks[2].url) == "https://example.org/harbour.png"
    assert user.blocks[3].text.endswith("The image of source [3]:")  # the uncaptioned one: seen, numbered
    assert str(user.blocks[4].url) == "https://example.org/blank.png"
    assert user.blocks[5].text.endswith("The image of source [4]:")
    assert str(user.blocks[6].url) == "https://example.org/map.png"
    assert "Photo of Kessby harbour." in user.blocks[0].text  # the caption beside it, as for any model
    assert [n.node.node_id for n in response.source_nodes] == ["photo", "map"]
    assert response.metadata["cited_answer"].left_out == []
    text_only = SeeingLLM(answers={QUESTION: "Twelve boats [1]."})
    CiteQueryEngine.from_args(ListRetriever(NODES), llm=text_only).query(QUESTION)
    assert all(type(b).__name__ == "TextBlock" for m in text_only.seen[0] for b in m.blocks)  # captions only


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n-a-tiny-test-image-")


def test_an_uncaptioned_image_shown_to_a_multimodal_model_is_cited_by_its_name() -> None:
    llm = SeeingLLM(answers={QUESTION: "The pier at dawn [3]. Twelve boats [1]."})
    response = CiteQueryEngine.from_args(ListRetriever(NODES), llm=llm, multimodal=True).query(QUESTION)
    answer = response.metadata["cited_answer"]
    pier, boats = answer.citations
    assert boats.cited_text == "Kessby harbour holds twelve fishing boats."
    assert pier.cited_text == "Image blank.png (no caption)"  # the whole image, named
    assert answer.text == "The pier at dawn [1]. Twelve boats [2]."
    assert answer.references[0].source.metadata[IMAGE_KEY] == {"url": "https://example.org/blank.png"}
    assert [n.node.node_id for n in response.source_nodes] == ["blank", "text"]
    assert "Image blank.png (no caption)" in llm.prompts[0]  # the model reads what it will be cited as


def test_an_image_held_only_as_bytes_is_shown_to_a_multimodal_model() -> None:
    nodes = [
        NODES[0],
        NodeWithScore(
            node=ImageNode(image=PNG.decode(), image_mimetype="image/png", id_="inline"), score=0.8
        ),
        NodeWithScore(
            node=Node(
                image_resource=MediaResource(data=PNG, mimetype="image/png"),
                id_="res",
                metadata={"file_name": "chart.png"},
            ),
            score=0.7,
        ),
    ]
    llm = SeeingLLM(answers={QUESTION: "A harbour photo [2] and a chart [3]."})
    response = CiteQueryEngine.from_args(ListRetriever(nodes), llm=llm, multimodal=True).query(QUESTION)
    user = llm.seen[0][-1]
    images = [b for b in user.blocks if type(b).__name__ == "ImageBlock"]
    assert [(b.image, b.url, b.path, b.image_mimetype) for b in images] == [
        (PNG, None, None, "image/png")
    ] * 2
    assert user.blocks[1].text.endswith("The image of source [2]:")
    assert user.blocks[3].text.endswith("The image of source [3]:")
    answer = response.metadata["cited_answer"]
    assert [c.cited_text for c in answer.citations] == [
        "Image inline (no caption)",
        "Image chart.png (no caption)",
    ]
    assert all(r.source.url is None for r in answer.references)  # bytes are no link


def test_with_a_text_only_model_an_uncaptioned_image_is_left_out_with_a_note() -> None:
    llm = ReplayLLM(answers={QUESTION: "Red boats lie at the pier [2]."})
    response = CiteQueryEngine.from_args(ListRetriever(NODES), llm=llm).query(QUESTION)
    answer = response.metadata["cited_answer"]
    assert answer.left_out == ["Image blank.png (no caption)"]
    assert "blank.png" not in llm.prompts[0]
    [note] = [n for n in answer_notes(answer) if n.kind == "left_out"]
    assert note.items == ["Image blank.png (no caption)"]
    assert "left out of the sources: Image blank.png" in answer.to_markdown()
    assert json.loads(answer.model_dump_json())["left_out"] == ["Image blank.png (no caption)"]


def test_a_streamed_answer_and_the_postprocessor_report_it_too() -> None:
    llm = ReplayLLM(answers={QUESTION: "Red boats lie at the pier [2]."})
    engine = CiteQueryEngine.from_args(ListRetriever(NODES), llm=llm, streaming=True)
    streamed = engine.query(QUESTION)
    assert "".join(streamed.response_gen) == "Red boats lie at the pier [1]."
    assert streamed.answer.left_out == ["Image blank.png (no caption)"]
    assert streamed.metadata["cited_answer"].left_out == ["Image blank.png (no caption)"]
    post = CitePostprocessor()
    numbered = post.postprocess_nodes(list(NODES), query_bundle=QueryBundle(QUESTION))
    assert [n.node.node_id for n in numbered][-1] == "blank"  # kept, unnumbered, at the end
    cited = post.cite(Response("Red boats lie at the pier [2].", source_nodes=numbered))
    assert cited.metadata["cited_answer"].left_out == ["Image blank.png (no caption)"]
    assert [n.node.node_id for n in cited.metadata["dropped_nodes"]] == ["blank"]
