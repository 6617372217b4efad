"""The CLI's one error type: a one-line message, exit status 2."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["CliError", "require"]

EXIT_ERROR = 2


class CliError(Exception):
    """A problem the user can fix; printed as ``cite: error: <message>`` with exit status 2."""


def require(module: str, what: str) -> Any:
    """Import ``module`` or fail naming the extra that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise CliError(
            f"{what} needs the '{module.split('.')[0]}' package: pip install 'cite-anything[cli]'"
        ) from exc
