"""Image nodes as sources: what an image node shows (its caption stands for it), and the image blocks a
model that reads images is shown, each after a line naming its source's number."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ImageBlock, TextBlock
from llama_index.core.schema import ImageNode, NodeWithScore

from cite_core import IMAGE_KEY, Source

__all__ = ["caption_of", "image_of", "uncaptioned", "with_image", "with_images"]

logger = logging.getLogger("llamaindex_cite")


def caption_of(inner: Any, text: str) -> tuple[str, dict[str, str] | None, str | None]:
    """A node's citable text (an image node's caption when it has no text of its own), what image it
    holds (None for none), and why an image without a caption cannot be a source."""
    image = image_of(inner)
    if image is None:
        return text, None, None
    caption = image.pop("caption", None)
    if not (text and text.strip()):
        text = caption or ""
    problem = (
        None if text.strip() else "an image without a caption or alt text (a text-only model cites captions)"
    )
    return text, image, problem


def uncaptioned(node: NodeWithScore, problems: list[str]) -> list[NodeWithScore]:
    """The node, logged, when ``problems`` say why it cannot be a source (an image without a caption)."""
    if problems:
        logger.warning("left out node %s: %s", node.node.node_id, "; ".join(problems))
    return [node] if problems else []


def with_image(item: dict[str, Any], image: dict[str, str]) -> dict[str, Any]:
    """A source item of an image node: cited whole by its caption (``IMAGE_KEY``), linked to its URL,
    and introduced to the model as an image's caption (shown, never cited)."""
    item["metadata"][IMAGE_KEY] = image
    item["url"] = item.get("url") or image.get("url")
    item["context"] = "An image; its caption or alt text:"
    return item


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


_CAPTION_KEYS = ("caption", "alt", "alt_text")


def image_of(inner: Any) -> dict[str, str] | None:
    """What an image node (an ``ImageNode``, or a ``Node`` with an ``image_resource``) shows: its
    ``url`` (http or https), ``path``, ``mimetype`` and ``caption`` (its text, the resource's alt text,
    or a caption in its metadata); None for a node that holds no image."""
    resource = getattr(inner, "image_resource", None)
    if isinstance(inner, ImageNode):
        has = inner.image or inner.image_url or inner.image_path
        url, path, mimetype, caption = inner.image_url, inner.image_path, inner.image_mimetype, None
    elif resource is not None:
        has = resource.data or resource.url or resource.path
        url, path, mimetype, caption = resource.url, resource.path, resource.mimetype, resource.text
    else:
        return None
    if not has:
        return None
    meta = inner.metadata
    caption = caption or next((meta[k] for k in _CAPTION_KEYS if _text(meta.get(k))), None)
    found = {"url": str(url) if url else None, "path": str(path) if path else None, "mimetype": mimetype}
    found["caption"] = caption if isinstance(caption, str) else None
    if found["url"] and not found["url"].startswith(("http://", "https://")):
        found["url"] = None  # a data: or file: URL is not a link to show
    return {k: v for k, v in found.items() if v}


def with_images(message: ChatMessage, sources: Sequence[Source]) -> ChatMessage:
    """``message`` followed by each image source as an image block, after a line naming its number."""
    blocks: list[Any] = [TextBlock(text=message.content or "")]
    for source in sources:
        image = source.metadata.get(IMAGE_KEY)
        if isinstance(image, dict) and (image.get("url") or image.get("path")):
            blocks.append(TextBlock(text=f"\nThe image of source [{source.number}]:"))
            blocks.append(
                ImageBlock(url=image.get("url"), path=image.get("path"), image_mimetype=image.get("mimetype"))
            )
    return ChatMessage(role=message.role, blocks=blocks) if len(blocks) > 1 else message
