"""The CLI's one error type: a one-line message, exit status 2."""

from __future__ import annotations

import importlib
from typing import Any

from cite_core import CiteError

__all__ = ["EXIT_ERROR", "CliError", "require"]

EXIT_ERROR = 2


class CliError(CiteError):
    """A problem the user can fix; printed as ``cite: error: <message>`` with exit status 2."""


def require(module: str, what: str, extra: str = "cli") -> Any:
    """Import ``module`` or fail naming the extra with it (``cite-anything[extra]``, and how to install
    it from a clone: the package is not published yet)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise CliError(
            f"{what} needs the '{module.split('.')[0]}' package: install the extra cite-anything[{extra}] "
            f"(in a clone of the repository: pip install -e '.[{extra}]')"
        ) from exc
