"""Image nodes as sources: what an image node shows (its caption stands for it), and the image blocks a
model that reads images is shown, each after a line naming its source's number."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ImageBlock, TextBlock
from llama_index.core.schema import ImageNode, NodeWithScore

from cite_core import IMAGE_KEY, Source

__all__ = ["caption_of", "image_data", "image_name", "image_of", "with_image", "with_images"]


def caption_of(inner: Any, text: str, images: bool = False) -> tuple[str, dict[str, str] | None, str | None]:
    """A node's citable text (an image node's caption when it has no text of its own; with ``images``, a
    model shown the image, ``Image <name> (no caption)`` for one without), what image it holds (None for
    none), and why an image without a caption cannot be a source."""
    image = image_of(inner)
    if image is None:
        return text, None, None
    caption = image.pop("caption", None)
    if not (text and text.strip()):
        text = caption or ""
    if not text.strip() and images:  # the model sees the image: the citation names it
        text = f"Image {image_name(inner, image)} (no caption)"
    problem = (
        None if text.strip() else "an image without a caption or alt text (a text-only model cites captions)"
    )
    return text, image, problem


def image_name(inner: Any, image: dict[str, str]) -> str:
    """What to call an image: its file name (metadata, path or URL), else its node's id."""
    named = inner.metadata.get("file_name")
    if isinstance(named, str) and named.strip():
        return named.strip()
    for where in (image.get("path"), image.get("url")):
        tail = where.split("?")[0].rstrip("/").rsplit("/", 1)[-1] if where else ""
        if tail:
            return tail
    return str(inner.node_id)


def image_data(inner: Any) -> bytes | None:
    """The image bytes a node holds itself (base64, as LlamaIndex keeps them), None when it has none."""
    if isinstance(inner, ImageNode):
        data: Any = inner.image
    else:
        resource = getattr(inner, "image_resource", None)
        data = resource.data if resource is not None else None
    if isinstance(data, str):
        data = data.encode("ascii", "ignore")
    return data if isinstance(data, bytes) and data else None


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


def with_images(
    message: ChatMessage,
    sources: Sequence[Source],
    nodes: Mapping[int, Sequence[NodeWithScore]] | None = None,
) -> ChatMessage:
    """``message`` followed by each image source as an image block, after a line naming its number; an
    image held only as bytes (no URL, no path) is read from its node (``nodes``: by source number)."""
    blocks: list[Any] = [TextBlock(text=message.content or "")]
    for source in sources:
        image = source.metadata.get(IMAGE_KEY)
        if not isinstance(image, dict):
            continue
        mimetype = image.get("mimetype")
        if image.get("url") or image.get("path"):
            block = ImageBlock(url=image.get("url"), path=image.get("path"), image_mimetype=mimetype)
        else:
            data = next(
                filter(None, (image_data(n.node) for n in (nodes or {}).get(source.number, ()))), None
            )
            if data is None:
                continue
            block = ImageBlock(image=data, image_mimetype=mimetype)
        blocks.append(TextBlock(text=f"\nThe image of source [{source.number}]:"))
        blocks.append(block)
    return ChatMessage(role=message.role, blocks=blocks) if len(blocks) > 1 else message
