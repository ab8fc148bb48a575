"""The replicate sums of a task's variants (`pairing.py`), by kind: the task's items as dense
(evaluation, item) arrays (`Grid`), and the two ways a block of evaluations' sums over one
stratum's item set are made from its draw matrix and finished into `C_P` centers.

* Evaluations with one trial per item (`Packed`): correct, truncated and guess sums are
  whole numbers (guess sums scaled by the common multiple of the option counts), packed into
  few columns whose sums are exact; a sum of whole numbers is the same number in whatever
  order it is added, so the engine may add them in any order and any precision that holds
  them. In float32 (below 2**24) the matrix products cost a third of float64's.
* Evaluations with epochs (`Moments`): the design effect's feature sums (SAMPLES.md
  section 2) give effective counters per stratum, summed over strata with the epoch means
  of correct, in float64 and in the engine's fixed order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ..store.items import TaskItems
from . import resample


class Grid:
    """One task's evaluations as dense (evaluation, item) arrays per stratum: which items each
    answered, which correctly, and whether any with several trials; the counters themselves
    only where a kind of sums asks for them (`dense`)."""

    def __init__(self, items: TaskItems, evaluations: np.ndarray):
        top = int(max(items.evaluation.max(initial=0), evaluations.max(initial=0))) + 1
        self.lookup = np.full(top, -1, dtype=np.int64)
        self.lookup[evaluations] = np.arange(len(evaluations))
        self.items = items
        self.rows = np.flatnonzero(self.lookup[items.evaluation] >= 0)
        #: Every row of the items is the grid's (the usual case): no copy of a column to take.
        self.every = len(self.rows) == len(items.evaluation)
        e = self.size = len(evaluations)
        starts = items.offsets
        self.width = int(starts[-1])
        self.column = self.of(items.column)
        self.cell = self.lookup[self.of(items.evaluation)] * self.width + self.column
        self.spans = list(itertools.pairwise(starts.tolist()))  # each stratum's columns
        flags = np.zeros((3, e * self.width), dtype=bool)  # answered, correct, several trials
        flags[0][self.cell] = True
        flags[1][self.cell] = self.of(items.correct) > 0
        flags[2][self.cell] = self.of(items.trials) > 1
        dense = flags.reshape(3, e, self.width)
        self.present = [dense[0, :, a:b] for a, b in self.spans]
        self.correct = [dense[1, :, a:b] for a, b in self.spans]
        self.epochs = [np.any(dense[2, :, a:b], axis=1) for a, b in self.spans]  # per stratum, (E,)

    def of(self, column: np.ndarray) -> np.ndarray:
        """A column of the items, for the grid's rows."""
        return column if self.every else column[self.rows]

    def dense(self, columns: Sequence[np.ndarray], members: np.ndarray | None = None,
              dtype: type = np.float64) -> np.ndarray:
        """`(len(members), len(columns), width)` of counters given per row of the items (for the
        grid's rows: `of`), 0 where not answered; every evaluation by default."""
        keep: slice | np.ndarray = slice(None)
        if members is None:
            row, size = self.cell // self.width if self.width else self.cell, self.size
        else:
            local = np.full(self.size, -1, dtype=np.int64)
            local[members] = np.arange(len(members))
            which = local[self.cell // self.width] if self.width else self.cell
            keep = np.flatnonzero(which >= 0)
            row, size = which[keep], len(members)
        out: np.ndarray = np.zeros((size, len(columns), self.width), dtype=dtype)
        flat = out.reshape(size, len(columns) * self.width)
        for k, values in enumerate(columns):
            flat[row, k * self.width + self.column[keep]] = values[keep]
        return out


class Packed:
    """Evaluations with one trial per item: a replicate's correct and truncated sums as one
    whole number `e + 2^B t` (`2^B` above any sum of the task), its guess sum as the whole
    number `round(g L)` (`L` a common multiple of the option counts; no column when the task
    has no guess). In float32 when every such sum of the task stays below 2^24 (the matrix
    products and the additions over strata exact); else both in one float64 column
    `e + 2^B t + 2^2B round(g L)`, exact below 2^53."""

    def __init__(self, grid: Grid, items: TaskItems):
        total = int(items.offsets[-1])
        self.shift = float(2 ** max(1, int(total).bit_length()))
        self.unit = float(items.guess_unit)
        guess = grid.of(items.guess) * self.unit
        whole = np.round(guess)
        top = max(float(whole.max(initial=0.0)), 1.0)
        self.ok = bool(self.unit > 0 and np.all(np.abs(guess - whole) < 1e-6) and total * self.shift**2 * top < 2.0**52)
        self.single = self.ok and total * (self.shift + 1.0) < resample.EXACT32 and total * top < resample.EXACT32
        counts = grid.of(items.correct) + self.shift * grid.of(items.truncated)
        if not self.ok:
            values = np.zeros((0, 1, 0))
        elif self.single:
            values = grid.dense([counts, whole] if np.any(whole > 0) else [counts], dtype=np.float32)
        else:
            values = grid.dense([counts + self.shift**2 * whole])
        self.width, self.dtype = values.shape[1], values.dtype
        self.values = [values[:, :, a:b] for a, b in grid.spans] if self.ok else []

    def sums(self, draws: np.ndarray, s: int, evals: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(G, width, draws + 1)` sums of the evaluations `evals` over the items `mask`."""
        x = self.values[s][np.ix_(evals, np.arange(self.width), np.flatnonzero(mask))]
        found: np.ndarray = (x.reshape(-1, x.shape[2]) @ draws.astype(self.dtype, copy=False).T)
        return found.reshape(len(evals), self.width, -1)

    def finish(self, totals: np.ndarray, shared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`C_P` and the correct sums of `(F, width, draws + 1)` totals, `shared` items each
        (one trial per item: trials = items). Powers of two divide exactly."""
        if self.single:
            e = totals[:, 0].astype(np.float64)
            g = totals[:, 1].astype(np.float64) if self.width > 1 else np.zeros_like(e)
        else:
            v = totals[:, 0]
            g = v * (1.0 / self.shift**2)
            np.floor(g, out=g)
            e = v - g * self.shift**2
        t = e * (1.0 / self.shift)
        np.floor(t, out=t)
        e -= t * self.shift
        g *= 1.0 / self.unit
        return cp(shared[:, None].astype(np.float64), t, e, g), e


class Moments:
    """Evaluations with epochs: per stratum the design effect's feature sums (SAMPLES.md
    section 2) give effective counters, summed over strata with the epoch means of correct."""

    width, dtype = 5, np.dtype(np.float64)

    def __init__(self, grid: Grid, members: np.ndarray):
        self.local = np.full(grid.size, -1, dtype=np.int64)
        self.local[members] = np.arange(len(members))
        items = grid.items
        whole = grid.dense([grid.of(values) for values in (items.trials, items.correct, items.truncated, items.guess)],
                           members)
        self.cols = [whole[:, :, a:b] for a, b in grid.spans]

    def sums(self, draws: np.ndarray, s: int, evals: np.ndarray, mask: np.ndarray) -> np.ndarray:
        m, e, t, g = self.cols[s][self.local[evals]][:, :, mask].transpose(1, 0, 2)  # (G, n) each
        f = np.stack([m, e, t, g, e / m, e * e, e * m, m * m, t * t, t * m], axis=2).transpose(1, 0, 2)
        size, g_count, k = f.shape
        sums = (draws.astype(np.float64) @ f.reshape(size, g_count * k)).reshape(-1, g_count, k)
        columns = np.ascontiguousarray(sums.transpose(2, 1, 0))                 # (k, G, draws + 1)
        eff = resample.effective_counters(columns.transpose(1, 2, 0), size)     # (G, draws + 1, 4)
        out = np.empty((g_count, 5, sums.shape[0]))
        out[:, :4] = eff.transpose(0, 2, 1)
        out[:, 4] = columns[4]
        return out

    @staticmethod
    def finish(totals: np.ndarray, shared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return cp(totals[:, 0], totals[:, 1], totals[:, 2], totals[:, 3]), totals[:, 4]


def cp(n: np.ndarray, nt: np.ndarray, ne: np.ndarray, g: np.ndarray) -> np.ndarray:
    """`resample.cp_center` of counters given apart, in fewer passes: each Wilson center
    `(p + z²/2t) / (1 + z²/t)` as `(s + z²/2) / (t + z²)`, `s` clipped to `[0, t]` (`s <= t`
    holds already: correct trials are completed ones), 0.5 where `t <= 0`."""
    z2 = resample.Z975**2
    nu = n - nt
    t = nu - g
    a: np.ndarray = ne - g
    np.maximum(a, 0.0, out=a)
    a += z2 / 2
    if np.all(t > 0):
        t += z2
        a /= t
    else:
        a = np.where(t > 0, np.minimum(a, np.maximum(t, 0.0) + z2 / 2) / (t + z2), 0.5)
    np.maximum(nu, 0.0, out=nu)
    nu += z2 / 2
    nu /= n + z2
    a *= np.where(n > 0, nu, 0.5)
    return a


