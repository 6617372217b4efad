"""Whether the compiled hot path runs: ``NATIVE`` is the extension module ``cite_core._native`` (the Rust
crate in ``native/``), or None when it is not built (a source checkout without Rust, an unusual
platform) or when ``CITE_PURE_PYTHON`` is set to anything but ``0``, read once at import.

The Python implementation is the reference and the fallback, as in aiohttp, multidict and markupsafe:
each stage chooses its implementation in one place from ``NATIVE`` (``_sources.segmenter``,
``_stream.plain_path``), and both return the same results (tests/core/test_native_properties.py,
tests/core/test_native_lexer.py; CI runs the suite under both).
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["NATIVE", "PURE_PYTHON_VARIABLE", "native_module"]

PURE_PYTHON_VARIABLE = "CITE_PURE_PYTHON"


def native_module() -> ModuleType | None:
    """The extension module, unless it is missing or the pure-Python implementation is asked for."""
    if os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        return None
    try:
        from . import _native
    except ImportError:
        return None
    return _native


NATIVE = native_module()
"""The extension module in use, or None: the pure-Python implementation runs."""
