"""Pickling the statistics' records quickly: they cross a pipe on every build.

The ranked board (`stats/board.py`) is made by a forked process and pickled back to the
build (forking.py): 2,500 evaluations are some 50,000 frozen, slotted dataclasses. For such
a class `dataclasses` pickles through `__getstate__` and `__setstate__` methods that call
`dataclasses.fields()` on every object, a fifth of a second each way at that size.
`quick_pickle` gives the class the same two methods over its field names found once: the
state is the same tuple of field values, in field order.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def quick_pickle(cls: type[T]) -> type[T]:
    """Apply above `@dataclass(frozen=True, slots=True)`."""
    names = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    values = attrgetter(*names)
    one = len(names) == 1
    setter = object.__setattr__

    def __getstate__(self: Any) -> tuple[Any, ...]:
        return (values(self),) if one else values(self)

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        for name, value in zip(names, state):
            setter(self, name, value)

    cls.__getstate__ = __getstate__  # type: ignore[method-assign]
    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
    return cls
