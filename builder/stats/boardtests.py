"""Paired tests of ReasonScore differences on a board (SAMPLES.md section 5, board level),
from the per-task sides `pairing.task_sides` computes: each side's floored `C_P` centers
are logged once per task and summed over the board's tasks, so a replicate's geometric
means are one `exp` at the end.

Several boards may hold a task and compare the same pair on it (an evaluation's neighbours
on two boards are often the same): a task's sides of a pair are then computed once and
added to every board that needs them (`add_logs` with the rows and orientation of each).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..store.items import TaskItems
from . import paired, resample
from .paired import PairedTest
from .pairing import Sides, task_sides

#: Pairs whose board sums are gathered from shared sides at once.
GATHER = 1024


class BoardTests:
    """The paired test of the ReasonScore difference of each pair, over the tasks `add`ed one
    at a time (one task's items in memory at once); `finish` gives a test per pair, None
    unless the two share at least `min_samples` items on every task."""

    def __init__(self, pairs: np.ndarray, draws: int, seed: int, min_samples: int):
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.draws, self.seed, self.min_samples = draws, seed, min_samples
        n = len(self.pairs)
        self.logs = np.zeros((n, 2, draws + 1))
        self.shared = np.zeros(n, dtype=np.int64)
        self.enough = np.ones(n, dtype=bool)
        self.tasks = 0

    def add(self, items: TaskItems) -> None:
        self.add_sides(task_sides(items, self.pairs, self.draws, self.seed))

    def add_sides(self, found: Sides) -> None:
        """One task's sides of these pairs (`task_sides`, in this order); takes `found.cp`
        over (its log is made in place)."""
        self.add_logs(floored_logs(found), found.shared)

    def add_logs(self, logs: np.ndarray, shared: np.ndarray, rows: np.ndarray | None = None,
                 swapped: np.ndarray | None = None) -> None:
        """One task's `floored_logs` of these pairs' sides, where pair `k` is row `rows[k]`
        of `logs` and `shared` (all rows in order by default), its two sides the other way
        round where `swapped[k]`: several boards share one task's sides of a pair."""
        self.tasks += 1
        if rows is None:
            self.logs += logs
            self.shared += shared
            self.enough &= shared >= self.min_samples
            return
        flip = np.zeros(len(rows), dtype=bool) if swapped is None else swapped
        for lo in range(0, len(rows), GATHER):  # gathered a block at a time: no copy of the whole
            at = slice(lo, lo + GATHER)
            got = logs[rows[at]]
            got[flip[at]] = got[flip[at], ::-1]
            self.logs[at] += got
        self.shared += shared[rows]
        self.enough &= shared[rows] >= self.min_samples

    def finish(self) -> list[PairedTest | None]:
        n, t = len(self.pairs), self.tasks
        if not t or not n:
            return [None] * n
        score = np.exp(self.logs / t)
        diff = 1000.0 * (score[:, 0] - score[:, 1])
        low, high = resample.percentile_interval(diff[:, :-1])
        p = resample.two_sided_p(diff[:, :-1])
        return [PairedTest(int(self.shared[k]), float(diff[k, -1]), float(low[k]), float(high[k]), float(p[k]),
                           paired.BOOTSTRAP) if self.enough[k] else None for k in range(n)]


def floored_logs(found: Sides) -> np.ndarray:
    """`log(max(C_P, FLOOR))` of every side and replicate (`found.cp`, taken over in place):
    what a board's geometric mean sums."""
    cp = found.cp
    np.maximum(cp, paired.FLOOR, out=cp)
    logs: np.ndarray = np.log(cp, out=cp)
    return logs


def board_tests(tasks: Sequence[TaskItems], pairs: np.ndarray, draws: int, seed: int,
                min_samples: int) -> list[PairedTest | None]:
    """`BoardTests` over `tasks` at once."""
    found = BoardTests(pairs, draws, seed, min_samples)
    for items in tasks:
        found.add(items)
    return found.finish()
