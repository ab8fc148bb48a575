"""Pausing Python's cyclic garbage collector around allocation-heavy output stages.

Serialising the data files and making the pages allocate millions of short-lived objects
next to a large live heap (the statistics and signals of the build). Each automatic
collection walks that whole heap: at 2,500 models the collections took about as long as
building the page model itself, and a third of writing the data files. Reference counting
still frees everything these stages drop (they make no reference cycles worth
collecting), and collection resumes afterwards.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


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
