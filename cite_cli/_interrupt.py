"""Knowing that Ctrl-C was pressed even when a library turned the interrupt into another error, or
swallowed it.

Python raises ``KeyboardInterrupt`` wherever the main thread is when SIGINT arrives, and two kinds of
place do not let it through (both seen under load in ``cite ask``):

- a library that catches it and raises its own error: pydantic-core, building a validator while
  qdrant-client imports, reports ``SchemaError: ... KeyboardInterrupt``. ``watching()`` installs a handler
  that notes the interrupt before raising it, so ``cite`` can tell "interrupted" from "failed" whatever
  the exception that reaches it (``interrupted()``);
- a weakref callback, a finaliser or a C extension's callback, where Python prints "Exception ignored
  in ..." with a traceback and goes on as if no key was pressed. While ``watching()``, such an ignored
  ``KeyboardInterrupt`` prints nothing and is delivered again a few milliseconds later from another
  thread, so it lands in the main thread's next ordinary line, as the first one would have.

Standard library only: ``cite_cli.__main__`` imports this before anything else.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["interrupted", "is_interrupt", "watching"]

_seen = threading.Event()
_REDELIVER_AFTER = 0.005  # seconds


def _note_and_raise(signum: int, frame: FrameType | None) -> None:
    _seen.set()
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Whether SIGINT arrived since ``watching()`` began."""
    return _seen.is_set()


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` stands for Ctrl-C: a ``KeyboardInterrupt``, or an error that followed one (a library
    raised it in the interrupt's place, or it wraps such an error)."""
    return isinstance(exc, KeyboardInterrupt) or (isinstance(exc, Exception) and interrupted())


def _unraisable(previous: Any) -> Any:
    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # a little later, from another thread: the main thread must first leave this hook and the
            # place that ignored the interrupt (delivered at once, it would land in one of them again)
            timer = threading.Timer(_REDELIVER_AFTER, _thread.interrupt_main)
            timer.daemon = True
            timer.start()
            return
        previous(unraisable)

    return hook


@contextlib.contextmanager
def watching() -> Iterator[None]:
    """Note every SIGINT while the block runs (Python's own behaviour otherwise: it still raises).

    Only Python's default handler is replaced, and only in the main thread; a handler the caller set
    (``main()`` called from another program) is left alone. Both are restored after."""
    _seen.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        yield
        return
    previous_hook = sys.unraisablehook
    signal.signal(signal.SIGINT, _note_and_raise)
    sys.unraisablehook = _unraisable(previous_hook)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
