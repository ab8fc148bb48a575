"""Ctrl-C: one line, exit status 130, never a traceback, never a half-replaced output.

Every output is staged first and moved into place at the end (atomic.py, the site writer),
so an interrupt before that moment leaves the previous files as they were; during it, the
interrupt is held (`held_interrupts`) until the last file is in place. A forked helper
process ignores the terminal's SIGINT (`ignore_in_child`): its parent, which gets the same
signal, stops it, so a Ctrl-C prints the parent's one line and no worker's traceback.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Iterator

#: The shell's convention for a command ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130


def message(command: str | None) -> str:
    """What a command interrupted by Ctrl-C leaves behind, in one line."""
    if command == "ingest":
        return "interrupted; nothing was written"
    return "interrupted; the previous site is untouched"


#: Set by `install`'s handler: a Ctrl-C arrived, even if a library caught what it raised.
_received = False


def install() -> None:
    """Raise KeyboardInterrupt on Ctrl-C, as Python does, and remember it: DuckDB turns the
    interrupt of a running query into one of its errors, which a reader may catch as a bad
    file, so `held_interrupts` asks this flag before anything is moved into place."""
    if threading.current_thread() is not threading.main_thread():
        return

    def interrupted(signum: int, frame: FrameType | None) -> None:
        global _received
        _received = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)


def is_interrupt(exc: BaseException) -> bool:
    """A Ctrl-C, as Python raises it or as DuckDB reports the query it stopped for one."""
    if isinstance(exc, KeyboardInterrupt) or type(exc).__name__ == "InterruptException":
        return True
    return isinstance(exc, RuntimeError) and str(exc).startswith("Query interrupted")


@contextmanager
def held_interrupts() -> Iterator[None]:
    """Renames that must all happen or none: a Ctrl-C during them takes effect after the last.

    Only the main thread can install a signal handler; elsewhere this holds nothing (the
    main thread then gets the interrupt, as it does anyway)."""
    if _received:  # an interrupt some library swallowed: nothing moves
        raise KeyboardInterrupt
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


def ignore_in_child() -> None:
    """In a forked helper: leave Ctrl-C to the parent, which ends this process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
