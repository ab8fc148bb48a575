"""Paired tests of ReasonScore differences on a board (SAMPLES.md section 5, board level),
from the per-task sides `pairing.task_sides` computes: each variant's floored `C_P` centers
are logged once per task and summed over the board's tasks, so a replicate's geometric
means are one `exp` at the end.

The sums are kept per class, not per side: sides whose variants were the same on every task
so far have the same sum (an evaluation against every partner that answered all its items),
and a class's sum is added to in the same order as a side's would be. Several boards may
hold a task and compare the same pair on it: a task's sides of a pair are then computed once
and added to every board that needs them (`add_logs` with the rows and orientation of each).
The classes' sums live in one array with room for two classes per pair, updated in place a
block of classes at a time: adding a task holds no second copy of them (at 2,500
evaluations a copy is a few hundred MB).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..store.items import TaskItems
from . import paired, resample
from .paired import PairedTest
from .pairing import Sides, task_sides

#: Pairs whose differences are made at once when the tests are finished.
GATHER = 1024
#: Classes whose sums are made at once when a task is added.
ROWS = 256


class BoardTests:
    """The paired test of the ReasonScore difference of each pair, over the tasks `add`ed one
    at a time (one task's items in memory at once); `finish` gives a test per pair, None
    unless the two share at least `min_samples` items on every task."""

    def __init__(self, pairs: np.ndarray, draws: int, seed: int, min_samples: int):
        self.pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        self.draws, self.seed, self.min_samples = draws, seed, min_samples
        n = len(self.pairs)
        #: Each side's class, and each class's sums of logs over the tasks so far: the first
        #: `classes` rows of room for as many classes as there can be (two per pair; rows not
        #: yet used are zero pages, which hold no memory).
        self.cls = np.zeros((n, 2), dtype=np.int64)
        self.logs = np.zeros((max(1, 2 * n), draws + 1))
        self.classes = 1
        self.shared = np.zeros(n, dtype=np.int64)
        self.enough = np.ones(n, dtype=bool)
        self.tasks = 0

    def add(self, items: TaskItems) -> None:
        self.add_sides(task_sides(items, self.pairs, self.draws, self.seed))

    def add_sides(self, found: Sides) -> None:
        """One task's sides of these pairs (`task_sides`, in this order); takes `found.cp`
        over (its log is made in place)."""
        self.add_logs(floored_logs(found), found.side, found.shared)

    def add_logs(self, logs: np.ndarray, side: np.ndarray, shared: np.ndarray, rows: np.ndarray | None = None,
                 swapped: np.ndarray | None = None) -> None:
        """One task's `floored_logs` of its variants, where pair `k`'s sides are the variants
        `side[rows[k]]`, and its items shared `shared[rows[k]]` (all rows in order by
        default), its two sides the other way round where `swapped[k]`: several boards share
        one task's sides of a pair."""
        self.tasks += 1
        picked = side if rows is None else side[rows]
        if swapped is not None:
            picked = np.where(swapped[:, None], picked[:, ::-1], picked)
        found = shared if rows is None else shared[rows]
        keys, cls = np.unique(self.cls * len(logs) + picked, return_inverse=True)
        parent, variant = keys // len(logs), keys % len(logs)
        # Classes only split, in order: new class `j` continues class `parent[j] <= j`. Made
        # from the last down, a block at a time, each block overwrites rows no later one reads.
        for hi in range(len(keys), 0, -ROWS):
            lo = max(0, hi - ROWS)
            block = self.logs[parent[lo:hi]]
            block += logs[variant[lo:hi]]
            self.logs[lo:hi] = block
        self.cls, self.classes = cls.reshape(self.cls.shape), len(keys)
        self.shared += found
        self.enough &= found >= self.min_samples

    def finish(self) -> list[PairedTest | None]:
        n, t = len(self.pairs), self.tasks
        if not t or not n:
            return [None] * n
        score = self.logs[:self.classes]  # the tests are finished once: the sums become scores in place
        np.divide(score, t, out=score)
        np.exp(score, out=score)
        out: list[PairedTest | None] = []
        for lo in range(0, n, GATHER):
            at = slice(lo, lo + GATHER)
            diff = 1000.0 * (score[self.cls[at, 0]] - score[self.cls[at, 1]])
            low, high = resample.percentile_interval(diff[:, :-1])
            p = resample.two_sided_p(diff[:, :-1])
            out += [PairedTest(int(self.shared[lo + k]), float(diff[k, -1]), float(low[k]), float(high[k]),
                               float(p[k]), paired.BOOTSTRAP) if self.enough[lo + k] else None
                    for k in range(len(diff))]
        return out


def floored_logs(found: Sides) -> np.ndarray:
    """`log(max(C_P, FLOOR))` of every variant and replicate (`found.cp`, taken over in
    place): what a board's geometric mean sums."""
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
