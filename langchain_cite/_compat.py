"""What langchain_cite needs from langchain-core across versions: content-block helpers (1.x only) and
serialisation under the public module path (``PublicSerializable``)."""

from __future__ import annotations

from typing import Any

from langchain_core import __version__ as LANGCHAIN_CORE_VERSION

from cite_core import MissingDependencyError

__all__ = ["LANGCHAIN_CORE_VERSION", "PublicSerializable", "content_helpers", "has_content_blocks"]


def has_content_blocks() -> bool:
    """Whether the installed langchain-core has standard content blocks (1.x)."""
    try:
        import langchain_core.messages.content  # noqa: F401
    except ImportError:
        return False
    return True


def content_helpers(feature: str) -> Any:
    """``langchain_core.messages.content`` (1.x), or an error naming ``feature`` and the installed version."""
    try:
        from langchain_core.messages import content
    except ImportError as exc:
        raise MissingDependencyError(
            f"{feature} needs langchain-core>=1.0 (content blocks with Citation annotations); "
            f"langchain-core {LANGCHAIN_CORE_VERSION} is installed: pip install -U 'langchain-core>=1.0'"
        ) from exc
    return content


class PublicSerializable:
    """Mixin for a ``Serializable`` class (listed before it): ``dumps`` / ``loads`` under ``langchain_cite``.

    The serialised id is the public module path, not the private module the class is defined in."""

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        """The public module path (``langchain_cite``), for ``dumps`` / ``loads``."""
        return ["langchain_cite"]
