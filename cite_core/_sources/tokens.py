"""Token counting with tiktoken that works offline.

tiktoken downloads its BPE files on first use. Before trying that, we look for files already on disk:
``TIKTOKEN_CACHE_DIR`` (or ``DATA_GYM_CACHE_DIR``), tiktoken's default cache, and the copy of
``cl100k_base`` / ``o200k_base`` that llama-index-core ships (found on ``sys.path`` without
importing it). When nothing works a ``TokenizerUnavailableError`` says what was tried.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._args import check_text, shown
from .._exceptions import TokenizerUnavailableError

__all__ = ["TokenCounter", "clear_counts", "get_encoding", "token_counter"]

TokenCounter = Callable[[str], int]
EncodingSpec = str | Any | TokenCounter  # a name, a tiktoken.Encoding, or a counting function

DEFAULT_ENCODING = "o200k_base"
_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}
_COUNTERS: dict[str, TokenCounter] = {}

COUNT_CACHE_SIZE = 4096
"""Token counts of this many texts (source blocks, instructions) are kept per named encoding: the same
chunks come back query after query, and encoding them costs about 50 µs per KB."""
COUNT_CACHE_MAX_CHARS = 65536
"""Longer texts are counted every time rather than kept."""


def _cache_dirs() -> list[Path]:
    dirs = [
        os.environ.get("TIKTOKEN_CACHE_DIR"),
        os.environ.get("DATA_GYM_CACHE_DIR"),
        os.path.join(tempfile.gettempdir(), "data-gym-cache"),
    ]
    dirs += [os.path.join(p, "llama_index", "core", "_static", "tiktoken_cache") for p in sys.path if p]
    seen, out = set(), []
    for d in dirs:
        if d and d not in seen and os.path.isdir(d) and any(os.scandir(d)):
            seen.add(d)
            out.append(Path(d))
    return out


def _blocked_read(blobpath: str) -> bytes:
    raise FileNotFoundError(f"not in this cache: {blobpath}")


def get_encoding(name: str = DEFAULT_ENCODING) -> Any:
    """A ``tiktoken.Encoding`` by name, loaded from local files when possible, else by tiktoken itself."""
    check_text(name, "name")
    if name in _LOADED:
        return _LOADED[name]
    try:
        import tiktoken
        import tiktoken.load
    except ImportError as exc:  # pragma: no cover - tiktoken is a base dependency
        raise TokenizerUnavailableError("tiktoken is not installed: pip install tiktoken") from exc
    if name not in tiktoken.list_encoding_names():
        raise TokenizerUnavailableError(
            f"unknown tiktoken encoding {shown(name)}; known: {', '.join(tiktoken.list_encoding_names())}"
        )
    tried: list[str] = []
    with _LOCK:
        if name in _LOADED:
            return _LOADED[name]
        saved_env = os.environ.get("TIKTOKEN_CACHE_DIR")
        saved_read = tiktoken.load.read_file
        tiktoken.load.read_file = _blocked_read  # offline: only files already on disk
        try:
            for directory in _cache_dirs():
                os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)
                try:
                    encoding = _fresh_encoding(tiktoken, name)
                except (FileNotFoundError, ValueError, OSError):
                    tried.append(str(directory))
                    continue
                _LOADED[name] = encoding
                return encoding
        finally:
            tiktoken.load.read_file = saved_read
            if saved_env is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = saved_env
        try:  # last resort: tiktoken's own loading, which downloads when a network is there
            encoding = tiktoken.get_encoding(name)
        except Exception as exc:
            where = "; ".join(tried) or "no local tiktoken cache found"
            raise TokenizerUnavailableError(
                f"cannot load the tiktoken encoding {shown(name)}: it is not cached locally ({where}) and "
                f"downloading it failed ({type(exc).__name__}: {exc}). Set TIKTOKEN_CACHE_DIR to a folder "
                "holding its BPE file, install llama-index-core (which ships cl100k_base and o200k_base), "
                "or pass token_counter= / encoding= yourself."
            ) from exc
        _LOADED[name] = encoding
        return encoding


def _fresh_encoding(tiktoken: Any, name: str) -> Any:
    """Build the named encoding from its constructor, bypassing tiktoken's registry cache of failures."""
    from tiktoken import registry

    if registry.ENCODING_CONSTRUCTORS is None:
        registry._find_constructors()
    constructor = registry.ENCODING_CONSTRUCTORS[name]  # type: ignore[index]
    return tiktoken.Encoding(**constructor())


def token_counter(encoding: EncodingSpec | None = None) -> TokenCounter:
    """A function counting tokens: from an encoding name, a ``tiktoken.Encoding`` or a callable."""
    if encoding is None:
        encoding = DEFAULT_ENCODING
    if isinstance(encoding, str):
        check_text(encoding, "encoding")
        counter = _COUNTERS.get(encoding)
        if counter is None:
            counter = _COUNTERS[encoding] = _cached_counter(get_encoding(encoding))
        return counter
    if hasattr(encoding, "encode_ordinary"):
        return lambda text: len(encoding.encode_ordinary(text))
    if callable(encoding):
        return encoding
    raise TokenizerUnavailableError(
        f"encoding must be a tiktoken encoding name, a tiktoken.Encoding or a function str -> int, "
        f"got {type(encoding).__name__}"
    )


def clear_counts() -> None:
    """Forget the remembered token counts of every named encoding."""
    for counter in _COUNTERS.values():
        counter.cache_clear()  # type: ignore[attr-defined]


def _cached_counter(enc: Any) -> TokenCounter:
    """``len(enc.encode_ordinary(text))``, remembered for the last ``COUNT_CACHE_SIZE`` short texts."""
    encode = enc.encode_ordinary

    @lru_cache(maxsize=COUNT_CACHE_SIZE)
    def cached(text: str) -> int:
        return len(encode(text))

    def count(text: str) -> int:
        return cached(text) if len(text) <= COUNT_CACHE_MAX_CHARS else len(encode(text))

    count.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    count.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return count
