"""Image nodes as sources: numbered like any node, cited whole by their caption with a text-only model;
one without a caption is left out, logged and listed in ``dropped_nodes``."""

from __future__ import annotations

import logging

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.schema import ImageNode, MediaResource, Node, NodeWithScore, TextNode

from cite_core import IMAGE_KEY
from llamaindex_cite import CiteQueryEngine

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
    llm = SeeingLLM(answers={QUESTION: "Red boats lie at the pier [2]. The coast is mapped [3]."})
    engine = CiteQueryEngine.from_args(ListRetriever(NODES), llm=llm, multimodal=True)
    response = engine.query(QUESTION)
    user = llm.seen[0][-1]
    kinds = [type(b).__name__ for b in user.blocks]
    assert kinds == ["TextBlock", "TextBlock", "ImageBlock", "TextBlock", "ImageBlock"]
    assert user.blocks[1].text.endswith("The image of source [2]:")
    assert str(user.blocks[2].url) == "https://example.org/harbour.png"
    assert user.blocks[3].text.endswith("The image of source [3]:")
    assert str(user.blocks[4].url) == "https://example.org/map.png"
    assert "Photo of Kessby harbour." in user.blocks[0].text  # the caption beside it, as for any model
    assert [n.node.node_id for n in response.source_nodes] == ["photo", "map"]
    text_only = SeeingLLM(answers={QUESTION: "Twelve boats [1]."})
    CiteQueryEngine.from_args(ListRetriever(NODES), llm=text_only).query(QUESTION)
    assert all(type(b).__name__ == "TextBlock" for m in text_only.seen[0] for b in m.blocks)  # captions only
