"""Pausing Python's cyclic garbage collector around allocation-heavy output stages.

Serialising the data files and making the pages allocate millions of short-lived objects
next to a large live heap (the statistics and signals of the build). Each automatic
collection walks that whole heap: at 2,500 models the collections took about as long as
building the page model itself, and a third of writing the data files. Reference counting
still frees everything these stages drop (they make no reference cycles worth
collecting), and collection resumes afterwards.

Resuming has a price of its own: the allocations counted during the pause trigger a
collection as soon as collection is back on, and that one walks the whole live heap again
(about 0.8 s a build at 2,500 models). What the build computes before it renders lives
until the build ends, so `long_lived` moves it out of the collector's sight instead
(`gc.freeze`) and gives it back when the build is over.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Collection off inside the block; back to what it was afterwards (nesting is safe)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


#: How many `long_lived` blocks are open (only the outermost one unfreezes).
_open = 0


@contextmanager
def long_lived() -> Iterator[Callable[[], None]]:
    """Inside the block, the function it gives freezes every object alive at that moment
    (collections no longer walk them); on leaving the block they are collectable again.
    Freeze only what no reference cycle holds: a frozen object that becomes garbage
    inside the block is freed by reference counting only."""
    global _open
    _open += 1
    try:
        yield gc.freeze
    finally:
        _open -= 1
        if not _open:
            gc.unfreeze()


def settle() -> None:
    """Inside a `long_lived` block, freeze what is alive now; outside one, do nothing.

    For a large structure made with collection paused that is dropped before the block
    ends, but without cycles, so reference counting frees it (the page model): left young,
    the first collection after the pause would walk all of it (0.6 s at 2,500 models when
    every page was made before rendering). Everything alive is frozen, cyclic garbage made
    since collection was paused included: it stays until the `long_lived` block ends, so
    settle after steps that make little of it. Outside a build (a test rendering pages)
    nothing is frozen, so nothing is kept from the collector."""
    if _open:
        gc.freeze()
