"""The paired verdicts the pages print (SAMPLES.md section 5), as records: what
`comparisons.py` computes and the views and data files read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class PairedResult:
    """This evaluation against `other` on their shared items: the difference (this minus
    other) with its 95 % interval, raw two-sided `p`, the method, and whether it is
    significant after Holm over the tests shown with it."""

    other: str
    shared: int
    effect: float
    low: float
    high: float
    p: float
    method: str
    significant: bool

    def reversed(self, other: str) -> PairedResult:
        return replace(self, other=other, effect=-self.effect, low=-self.high, high=-self.low)


@dataclass(frozen=True)
class Comparisons:
    """Every paired verdict the pages print; empty without trials."""

    min_samples: int = 0
    draws: int = 0
    #: Ranked evaluation -> its test against the next ranked row (Holm over the board's).
    board_next: Mapping[str, PairedResult] = field(default_factory=dict)
    #: Ranked evaluation -> its tests against its neighbours (Holm over each model page's).
    neighbours: Mapping[str, tuple[PairedResult, ...]] = field(default_factory=dict)
    #: The matrix's pairs (row model, result against the column model; Holm over the matrix).
    matrix: tuple[tuple[str, PairedResult], ...] = ()
    #: Task -> evaluation -> its test against the next row of the task page.
    task_next: Mapping[str, Mapping[str, PairedResult]] = field(default_factory=dict)
