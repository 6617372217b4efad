"""The CLI's one error type: a one-line message, exit status 2."""

from __future__ import annotations

import errno
import importlib
import os
from pathlib import Path
from typing import Any

from cite_core import CiteError

__all__ = ["EXIT_ERROR", "CliError", "os_reason", "require", "shown"]

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


_LINE_BREAKS = str.maketrans({"\n": "\u240a", "\r": "\u240d"})


def shown(path: Path | str) -> str:
    """A file name as every message prints it: bytes that are not UTF-8 as ``\\xff`` escapes, and a line
    break as ``␊`` (``\\r`` as ``␍``), so that ``a\\nb.txt`` is neither two lines nor ``a b.txt``, a
    name with a space (messages are one line: ``cite: error: ...``); other controls are made visible
    by ``strip_controls`` where the message is printed."""
    return os.fsencode(path).decode("utf-8", "backslashreplace").translate(_LINE_BREAKS)


_REASONS = {
    errno.ENOENT: "no such file or folder",
    errno.ELOOP: "a symbolic link loop (a link that leads back to itself)",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def os_reason(exc: OSError) -> str:
    """Why ``exc`` happened, in the words of the CLI's messages (``strerror`` for the rest)."""
    return _REASONS.get(exc.errno or 0) or exc.strerror or str(exc)
