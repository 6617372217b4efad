"""Types of the extension module built from the Rust crate in ``native/`` (``native/src/python.rs``).

Offsets are ``str`` indices (code points). A text with a lone surrogate has no UTF-8 form and raises
``UnicodeEncodeError``: callers pass it with U+FFFD in place of each surrogate.
"""

WRAP_MIN: int

class PanicException(BaseException):
    """A panic in the Rust code (PyO3's ``pyo3_runtime.PanicException``)."""

def split_sentences(text: str) -> list[tuple[int, int]]:
    """``cite_core._sources.segment.split_sentences``."""

def split_lines(piece: str, offset: int) -> list[tuple[int, int]]:
    """``split_lines(text, offset, offset + len(piece))`` where ``piece`` is that span of ``text``."""

def split_units(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` cut at their line breaks (the units of a chunk)."""

def _panic() -> None:
    """Panics (for the test that a panic becomes an exception, never an abort)."""
