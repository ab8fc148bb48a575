"""Keeping the collector off the build's results while the pages are made.

What a build computes before it renders (the statistics and the signals: hundreds of
thousands of objects) lives until the build ends and holds no reference cycle. Making the
pages allocates millions of short-lived objects beside it, and every automatic collection
of the oldest generation would walk that whole heap again. `gc.freeze()` moves it out of
the collector's sight for the render phase; the objects are given back at the end.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Every object alive now is ignored by the collector inside the block."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
