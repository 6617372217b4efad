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

class TermTable:
    """Word -> term, remembered (``terms.py``'s word table for the ASCII path of a chunk's analysis)."""

    def __init__(self, stop: list[str], suffixes: list[str], max_words: int) -> None: ...
    def units(
        self, separated: str, spans: list[tuple[int, int]]
    ) -> tuple[list[tuple[str, ...]], list[dict[str, int]], list[int]]:
        """Each span's terms, term counts (in order of first occurrence) and number of terms; a
        ``ValueError`` for a non-ASCII text or a span outside it."""

    def clear(self) -> None:
        """Forget every word's term."""

    def __len__(self) -> int: ...

class PlainPath:
    """The lexer's plain-text scan (``cite_core/_stream/plain_path.py``), stopping at any of ``stops``."""

    def __init__(self, stops: str) -> None: ...
    def scan(self, chunk: str) -> int:
        """The index (code points) of the first character of ``stops`` in ``chunk``, or ``len(chunk)``."""

def _panic() -> None:
    """Panics (for the test that a panic becomes an exception, never an abort)."""
