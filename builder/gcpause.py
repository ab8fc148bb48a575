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


@contextmanager
def long_lived() -> Iterator[Callable[[], None]]:
    """Inside the block, the function it gives freezes every object alive at that moment
    (collections no longer walk them); on leaving the block they are collectable again.
    Freeze only what lives to the end of the block: a frozen object that becomes garbage
    inside it is freed by reference counting only."""
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()
