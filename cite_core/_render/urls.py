"""Which URLs may become links: absolute http(s) only, from source metadata, never from the model."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

__all__ = ["md_url", "safe_url"]


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL without spaces or control characters, else ``None``."""
    if not url or not isinstance(url, str) or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def md_url(url: str) -> str:
    """A URL safe inside Markdown ``(...)``: characters that could end or break the link are %-encoded."""
    return quote(url, safe="/:?#@!$&'*+,;=%-._~")
