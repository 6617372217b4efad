"""Exceptions raised by cite_core.

Hierarchy::

    CiteError
    ├── SourceError            a source item, its text or its metadata is unusable (also a ValueError)
    ├── PromptError            a prompt cannot be built as asked (also a ValueError)
    │   └── TokenBudgetError   the question, instructions or top source do not fit the budget
    ├── ArgumentError          an argument has the wrong type or value (also a TypeError and a ValueError)
    ├── StreamClosedError      a stream was fed after finish(), or read after it failed (a RuntimeError)
    ├── TruncatedOutputError   a structured answer was cut off before it was complete (also a ValueError)
    ├── TokenizerUnavailableError   no tiktoken encoding could be loaded (offline, unknown name)
    ├── MissingDependencyError      an optional extra is not installed (also an ImportError)
    └── NativeError            the compiled extension failed: a bug, reported (also a RuntimeError)

Each also subclasses the built-in exception that callers caught before it existed, so ``except
ValueError`` keeps working. Model output never raises: whatever a model writes, ``parse_answer``
returns a ``CitedAnswer``.
"""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "CiteError",
    "MissingDependencyError",
    "NativeError",
    "PromptError",
    "SourceError",
    "StreamClosedError",
    "TokenBudgetError",
    "TokenizerUnavailableError",
    "TruncatedOutputError",
]


class CiteError(Exception):
    """Base class of every error raised by this library."""


class SourceError(CiteError, ValueError):
    """A source item, its text or its metadata is unusable.

    ``index`` is the 0-based position of the offending item in what the caller passed, when known.
    """

    def __init__(self, message: str, *, index: int | None = None) -> None:
        self.index = index
        if index is not None:
            message = f"item {index}: {message}"
        super().__init__(message)


class PromptError(CiteError, ValueError):
    """A prompt cannot be built as asked (bad question, template or style)."""


class TokenBudgetError(PromptError):
    """The instructions, the question or the top-ranked source alone exceed the token budget."""


class ArgumentError(CiteError, TypeError, ValueError):
    """An argument has the wrong type or value (``split_sentences(b"...")``, a ``threshold`` of "high")."""


class StreamClosedError(CiteError, RuntimeError):
    """``feed`` was called on a stream after ``finish()``, or a stream's answer was read after the stream
    failed (the cause is chained)."""


class TokenizerUnavailableError(CiteError, RuntimeError):
    """No tiktoken encoding could be loaded (unknown name, or offline with no cached BPE file)."""


class MissingDependencyError(CiteError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class NativeError(CiteError, RuntimeError):
    """The compiled extension ``cite_core._native`` failed (a panic in its Rust code: a bug, to be
    reported with the input); ``CITE_PURE_PYTHON=1`` runs the Python implementation instead."""


def require(module: str, extra: str, feature: str):  # type: ignore[no-untyped-def]
    """Import ``module`` or raise a MissingDependencyError naming the extra ``cite-anything[extra]`` and
    how to install it from a clone (the package is not published yet)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised by tests with a blocked import
        raise MissingDependencyError(
            f"{feature} needs the '{module}' package: install the extra cite-anything[{extra}] "
            f"(in a clone of the repository: pip install -e '.[{extra}]')"
        ) from exc


class TruncatedOutputError(CiteError, ValueError):
    """The model's output was cut off (its token limit: ``finish_reason="length"``, ``stop_reason=
    "max_tokens"``) before a structured answer was complete: nothing is parsed out of a partial object.
    A text answer cut off is not an error: it is parsed with ``truncated=True`` and says so in a note."""

    REASONS = frozenset({"length", "max_tokens"})
    """The finish or stop reasons, in lower case, of an output cut off at its token limit: OpenAI-compatible
    ``finish_reason="length"``, Anthropic's ``stop_reason="max_tokens"`` (Gemini's ``MAX_TOKENS``); the
    one list both adapters read."""

    @classmethod
    def at_token_limit(cls, reason: object = "length") -> TruncatedOutputError:
        """The error for a structured output the model stopped writing for ``reason`` (its finish reason)."""
        return cls(
            f"the model's structured output was cut off at its token limit (finish reason {reason!r}) before "
            "the object was complete: raise the model's max_tokens or ask for less"
        )
