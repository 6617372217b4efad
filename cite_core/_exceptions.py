"""Exceptions raised by cite_core.

Hierarchy::

    CiteError
    ├── SourceError            a source item, its text or its metadata is unusable
    ├── PromptError            a prompt cannot be built as asked
    │   └── TokenBudgetError   the question, instructions or top source do not fit the budget
    ├── TokenizerUnavailableError   no tiktoken encoding could be loaded (offline, unknown name)
    └── MissingDependencyError      an optional extra is not installed (also an ImportError)

Model output never raises: whatever a model writes, ``parse_answer`` returns a ``CitedAnswer``.
"""

from __future__ import annotations

__all__ = [
    "CiteError",
    "MissingDependencyError",
    "PromptError",
    "SourceError",
    "TokenBudgetError",
    "TokenizerUnavailableError",
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


class TokenizerUnavailableError(CiteError, RuntimeError):
    """No tiktoken encoding could be loaded (unknown name, or offline with no cached BPE file)."""


class MissingDependencyError(CiteError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


def require(module: str, extra: str, feature: str):  # type: ignore[no-untyped-def]
    """Import ``module`` or raise a MissingDependencyError naming ``pip install 'cite-anything[extra]'``."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - exercised by tests with a blocked import
        raise MissingDependencyError(
            f"{feature} needs the '{module}' package: pip install 'cite-anything[{extra}]'"
        ) from exc
