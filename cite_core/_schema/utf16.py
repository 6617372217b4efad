"""Offsets in UTF-16 code units, as a browser's JavaScript strings count them.

Python counts code points; a character outside the Basic Multilingual Plane (an emoji, an astral CJK
ideograph such as U+20BB7) is one code point but two UTF-16 code units, so every offset after it
differs by one. The JSON views give both (``*_utf16`` fields beside the code-point offsets).
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .source import Source, analysis_of

__all__ = ["source_utf16", "utf16_length"]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_length(text: str) -> int:
    """The length of ``text`` in UTF-16 code units."""
    return len(text) if text.isascii() else len(text) + len(_ASTRAL.findall(text))


def source_utf16(source: Source, offset: int) -> int:
    """``offset`` (code points into ``source.text``) in UTF-16 code units; the astral characters'
    positions are found once per source."""
    analysis = analysis_of(source)
    astral = analysis.astral
    if astral is None:
        text = source.text
        astral = analysis.astral = () if text.isascii() else tuple(m.start() for m in _ASTRAL.finditer(text))
    return offset + bisect_left(astral, offset) if astral else offset
