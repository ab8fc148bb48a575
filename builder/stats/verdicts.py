"""The paired verdicts the pages print (SAMPLES.md section 5), as records: what
`comparisons.py` computes and the views and data files read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .paired import PairedTest

#: Published precision of a paired p: six decimals, as every fraction of the data files (a
#: smaller p reads 0.0; the verdict is decided on the unrounded p).
P_DECIMALS = 6


@dataclass(frozen=True)
class PairedVerdict(PairedTest):
    """A paired test as published: rounded, and `significant` after Holm over the tests shown
    (or reported) with it."""

    significant: bool

    @classmethod
    def of(cls, t: PairedTest, decimals: int, significant: bool) -> PairedVerdict:
        """`t` rounded to `decimals` (its effect and interval) and `P_DECIMALS` (its p)."""
        return cls(t.shared, round(t.effect, decimals), round(t.low, decimals), round(t.high, decimals),
                   round(t.p, P_DECIMALS), t.method, significant)


@dataclass(frozen=True)
class PairedResult(PairedVerdict):
    """This evaluation against `other` on their shared items: the difference (this minus
    other) with its 95 % interval, raw two-sided `p`, the method and Holm's verdict."""

    other: str

    @classmethod
    def against(cls, other: str, v: PairedVerdict) -> PairedResult:
        return cls(v.shared, v.effect, v.low, v.high, v.p, v.method, v.significant, other)

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
    #: Each board after the first, by name -> ranked evaluation -> its test against the next
    #: ranked row of that board (Holm over the board's).
    boards: Mapping[str, Mapping[str, PairedResult]] = field(default_factory=dict)

    def board(self, name: str, first: bool) -> Mapping[str, PairedResult]:
        """The adjacent tests of the board `name` (`first`: the front page's)."""
        return self.board_next if first else self.boards.get(name, {})
