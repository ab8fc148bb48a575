"""Paired tests for many pairs at once: what a build needs for its boards, task pages, model
pages and pairwise matrix (SAMPLES.md section 5; one pair's rules are in `paired.py`, and the
results here equal them pair by pair).

The cost is in the bootstrap: every replicate of a pair sums each side's per-item counters
under one draw of the shared items. Three facts make it cheap at thousands of evaluations:

* A draw matrix belongs to a (stratum, shared item set), not to a pair (`resample.py`): one
  matrix product gives the replicate sums of every evaluation that uses that item set.
* Most pairs share, in a stratum, exactly the items one side answered (every model gets the
  same items, or a side has the smaller sample of a nested one). A side's sums over a task are
  then its own sums, computed once per evaluation, plus a correction for the strata where its
  partner answered fewer items: one correction row per (evaluation, stratum, item set), added
  to every side that needs it by one small matrix product per evaluation.
* Without epochs the effective counters are the raw sums, so the correct, truncated and guess
  sums of a replicate are one whole number in float64 (`_Packed`: guess sums scaled by the
  common multiple of the option counts): every sum above is one column, not three, and exact.
  Evaluations with epochs keep the design effect's columns (`_Moments`, SAMPLES.md section 2).

The observed sums ride along as one more row of each draw matrix (all ones). McNemar's
discordant counts come from outcomes bit-packed per item.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..store.items import TaskItems
from . import paired, resample
from .paired import PairedTest

#: Bytes of replicate sums a chunk of evaluations holds at once (its own sums and corrections).
CHUNK_BYTES = 256 << 20
#: Evaluations whose sides are summed together, and sides whose `C_P` is computed together.
BLOCK = 32
FINISH = 128
#: Bytes of draw matrices kept for reuse within a task.
DRAW_BYTES = 512 << 20


@dataclass(frozen=True)
class Sides:
    """Both sides of each pair on one task: observed (column `draws`) and replicate `C_P`
    centers `(P, 2, draws + 1)` and sums of the epoch means of correct, shared items, whether
    a shared item has several trials on a side, and McNemar's discordant counts."""

    cp: np.ndarray
    x: np.ndarray
    shared: np.ndarray
    epochs: np.ndarray
    b: np.ndarray
    c: np.ndarray

    def take(self, rows: slice) -> Sides:
        return Sides(self.cp[rows], self.x[rows], self.shared[rows], self.epochs[rows], self.b[rows], self.c[rows])


class _Grid:
    """One task's evaluations as dense (evaluation, item) arrays, whole and per stratum."""

    def __init__(self, items: TaskItems, evaluations: np.ndarray):
        top = int(max(items.evaluation.max(initial=0), evaluations.max(initial=0))) + 1
        self.lookup = np.full(top, -1, dtype=np.int64)
        self.lookup[evaluations] = np.arange(len(evaluations))
        rows = np.flatnonzero(self.lookup[items.evaluation] >= 0)
        e = self.size = len(evaluations)
        starts = np.cumsum([0] + [len(ids) for ids in items.sample_ids])
        width = int(starts[-1])
        cell = self.lookup[items.evaluation[rows]] * width + starts[items.stratum[rows]] + items.item[rows]
        whole = np.zeros((4, e * width))  # trials, correct, truncated, guess
        for c, values in enumerate((items.trials, items.correct, items.truncated, items.guess)):
            whole[c][cell] = values[rows]
        self.whole = whole.reshape(4, e, width)
        self.spans = list(itertools.pairwise(starts.tolist()))  # each stratum's columns of `whole`
        self.cols = [self.whole[:, :, a:b] for a, b in self.spans]
        self.present = [cols[0] > 0 for cols in self.cols]
        self.epochs = [np.any(cols[0] > 1, axis=1) for cols in self.cols]  # per stratum, (E,)


class _Draws:
    """A task's draw matrices (`resample.draw_matrix`: a last row of ones) by (stratum, shared
    item set); one task's live at once, the least recently used dropped past `DRAW_BYTES`
    (a matrix is drawn again the same from its seed)."""

    def __init__(self, items: TaskItems, draws: int, seed: int):
        self.items, self.draws, self.seed = items, draws, seed
        self.found: dict[tuple[int, bytes], np.ndarray] = {}
        self.bytes = 0

    def get(self, s: int, mask: np.ndarray) -> np.ndarray:
        key = (s, np.packbits(mask).tobytes())
        matrix = self.found.pop(key, None)
        if matrix is None:
            which = np.flatnonzero(mask)
            ids = self.items.sample_ids[s]
            rng = resample.generator(self.seed, "paired", self.items.task, self.items.params[s],
                                     resample.items_digest([ids[i] for i in which.tolist()]))
            matrix = resample.draw_matrix(len(which), self.draws, rng)
            self.bytes += matrix.nbytes
            while self.found and self.bytes > DRAW_BYTES:
                self.bytes -= self.found.pop(next(iter(self.found))).nbytes
        self.found[key] = matrix
        return matrix


class _Packed:
    """Evaluations with one trial per item: a replicate's correct, truncated and guess sums as
    one whole number `e + 2^B t + 2^2B round(g L)` (`L` a common multiple of the option
    counts, `2^B` above any sum of a task), exact in float64 below 2^53."""

    width = 1

    def __init__(self, grid: _Grid, items: TaskItems):
        total = sum(len(ids) for ids in items.sample_ids)
        self.shift = float(2 ** max(1, int(total).bit_length()))
        self.unit = float(items.guess_unit)
        guess = grid.whole[3] * self.unit
        whole = np.round(guess)
        self.ok = bool(self.unit > 0 and np.all(np.abs(guess - whole) < 1e-6)
                       and total * self.shift**2 * max(float(whole.max(initial=0.0)), 1.0) < 2.0**52)
        values = grid.whole[1] + self.shift * grid.whole[2] + self.shift**2 * whole
        self.values = [values[:, a:b] for a, b in grid.spans] if self.ok else []

    def sums(self, draws: np.ndarray, s: int, evals: np.ndarray, mask: np.ndarray) -> np.ndarray:
        found: np.ndarray = (self.values[s][np.ix_(evals, mask)] @ draws.T)[:, None, :]  # (G, 1, draws + 1)
        return found

    def finish(self, totals: np.ndarray, shared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`C_P` and the correct sums of `(F, 1, draws + 1)` packed totals, `shared` items each
        (one trial per item: trials = items). Powers of two divide exactly."""
        v = totals[:, 0]
        g = v * (1.0 / self.shift**2)
        np.floor(g, out=g)
        e = v - g * self.shift**2
        t = e * (1.0 / self.shift)
        np.floor(t, out=t)
        e -= t * self.shift
        g *= 1.0 / self.unit
        return _cp(shared[:, None].astype(np.float64), t, e, g), e


class _Moments:
    """Evaluations with epochs: per stratum the design effect's feature sums (SAMPLES.md
    section 2) give effective counters, summed over strata with the epoch means of correct."""

    width = 5

    def __init__(self, grid: _Grid):
        self.grid = grid

    def sums(self, draws: np.ndarray, s: int, evals: np.ndarray, mask: np.ndarray) -> np.ndarray:
        m, e, t, g = self.grid.cols[s][:, evals][:, :, mask]                   # (G, n) each
        f = np.stack([m, e, t, g, e / m, e * e, e * m, m * m, t * t, t * m], axis=2).transpose(1, 0, 2)
        size, g_count, k = f.shape
        sums = (draws @ f.reshape(size, g_count * k)).reshape(-1, g_count, k)
        eff = resample.effective_counters(sums, size)                           # (draws + 1, G, 4)
        return np.concatenate([eff, sums[:, :, 4:5]], axis=2).transpose(1, 2, 0)

    @staticmethod
    def finish(totals: np.ndarray, shared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _cp(totals[:, 0], totals[:, 1], totals[:, 2], totals[:, 3]), totals[:, 4]


def _cp(n: np.ndarray, nt: np.ndarray, ne: np.ndarray, g: np.ndarray) -> np.ndarray:
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


def task_sides(items: TaskItems, pairs: np.ndarray, draws: int, seed: int, with_x: Sequence[int] | None = None) -> Sides:
    """Both sides of each pair `(a, b)` (evaluation indices of `items`) on their shared items;
    the sums of epoch means (`Sides.x`) only for the pairs `with_x` lists (all by default)."""
    if with_x is None:
        with_x = range(len(np.asarray(pairs).reshape(-1, 2)))
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    p = len(pairs)
    evaluations = np.unique(pairs)
    grid = _Grid(items, evaluations)
    pos = grid.lookup[pairs]
    shared = np.zeros(p, dtype=np.int64)
    epochs = np.zeros(p, dtype=bool)
    b, c = np.zeros(p, dtype=np.int64), np.zeros(p, dtype=np.int64)
    short: list[tuple[np.ndarray, np.ndarray]] = []  # per stratum: flat sides (2 pair + side), masks
    for s, present in enumerate(grid.present):
        masks = present[pos[:, 0]] & present[pos[:, 1]]
        counts = masks.sum(axis=1)
        shared += counts
        epochs |= (grid.epochs[s][pos[:, 0]] | grid.epochs[s][pos[:, 1]]) & (counts > 0)
        correct = paired.pack(grid.cols[s][1] > 0)
        db, dc = paired.discordant(correct[pos[:, 0]], correct[pos[:, 1]], paired.pack(masks))
        b += db
        c += dc
        flat = np.flatnonzero(counts[:, None] != present.sum(axis=1)[pos])
        short.append((flat, masks[flat // 2]))
    out = Sides(np.empty((p, 2, draws + 1)), np.zeros((p, 2, draws + 1)), shared, epochs, b, c)
    side_eval = pos.ravel()
    marked = np.zeros((p, 2), dtype=bool)
    marked[np.asarray(with_x, dtype=np.int64)] = True
    packed = _Packed(grid, items)
    with_epochs = np.any(np.stack(grid.epochs), axis=0) if grid.epochs else np.zeros(len(evaluations), dtype=bool)
    kinds: list[tuple[_Packed | _Moments, np.ndarray]] = (
        [(packed, ~with_epochs), (_Moments(grid), with_epochs)] if packed.ok
        else [(_Moments(grid), np.ones(len(evaluations), dtype=bool))])
    found = _Draws(items, draws, seed)
    sides_of = np.bincount(side_eval, minlength=len(evaluations))
    for kind, members in kinds:
        # Evaluations with as many sides together (one chunk's selections are as wide as its
        # widest), as many per chunk as its rows of sums allow.
        chosen = np.flatnonzero(members)
        chosen = chosen[np.argsort(-sides_of[chosen], kind="stable")]
        row_bytes = 8 * kind.width * (draws + 1)
        start = 0
        while start < len(chosen):
            step = max(1, CHUNK_BYTES // (row_bytes * (int(sides_of[chosen[start]]) + 2 * len(grid.present))))
            _chunk(kind, grid, found, chosen[start:start + step], short, side_eval, shared, out, marked.ravel())
            start += step
    return out


def _chunk(kind: _Packed | _Moments, grid: _Grid, found: _Draws, chunk: np.ndarray,
           short: Sequence[tuple[np.ndarray, np.ndarray]], side_eval: np.ndarray, shared: np.ndarray,
           out: Sides, with_x: np.ndarray) -> None:
    """The sides of the evaluations `chunk` (grid positions) into `out.cp` (and `out.x` for
    the sides `with_x` marks).

    Each evaluation gets rows of sums, one per stratum (its own items there) and one per
    (stratum, fewer shared items) some partner needs; each of its sides is the sum of the rows
    it needs, a 0/1 selection: one small matrix product per evaluation (`np.matmul` over the
    chunk), no pass over replicate-sized arrays per stratum."""
    local = np.full(grid.size, -1, dtype=np.int64)
    local[chunk] = np.arange(len(chunk))
    sides = np.flatnonzero(local[side_eval] >= 0)
    owner = local[side_eval[sides]]
    order = np.argsort(owner, kind="stable")
    sides, owner = sides[order], owner[order]
    slot_of = np.zeros(len(side_eval), dtype=np.int64)  # a side's place among its owner's sides
    slot_of[sides] = np.arange(len(sides)) - np.searchsorted(owner, owner)
    strata = len(grid.present)
    # Rows beyond the strata: each (evaluation, stratum, shared items) a partner needs.
    taken = np.zeros(len(chunk), dtype=np.int64)
    combos: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for s in range(strata):
        flat, masks = short[s]
        mine = local[side_eval[flat]] >= 0
        flat, masks = flat[mine], masks[mine]
        who = local[side_eval[flat]]
        keys = np.concatenate([who.astype(">i8").view(np.uint8).reshape(len(who), 8), np.packbits(masks, axis=1)],
                              axis=1)
        _, first, combo = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        owners = who[first]  # ascending: the keys start with the owner, big-endian
        rank = np.arange(len(first)) - np.searchsorted(owners, owners)
        row = strata + taken[owners] + rank
        np.add.at(taken, owners, 1)
        combos.append((flat, row[combo.ravel()], owners, row, masks[first]))
    width, cols = kind.width, found.draws + 1
    rows = np.zeros((len(chunk), strata + int(taken.max(initial=0)), width, cols))
    select = np.zeros((len(chunk), int(slot_of[sides].max(initial=-1)) + 1, rows.shape[1]))
    for s, present in enumerate(grid.present):
        for members, mask in _groups(np.arange(len(chunk)), present[chunk]):
            rows[members, s] = kind.sums(found.get(s, mask), s, chunk[members], mask)
        select[owner, slot_of[sides], s] = present[chunk].any(axis=1)[owner]
        flat, row, owners, combo_rows, masks = combos[s]
        for members, mask in _groups(np.arange(len(owners)), masks):
            rows[owners[members], combo_rows[members]] = kind.sums(found.get(s, mask), s, chunk[owners[members]], mask)
        who = local[side_eval[flat]]
        select[who, slot_of[flat], s] = 0.0
        select[who, slot_of[flat], row] = 1.0
    flat_rows = rows.reshape(len(chunk), rows.shape[1], width * cols)
    cp_out, x_out = out.cp.reshape(-1, cols), out.x.reshape(-1, cols)
    bounds = np.searchsorted(owner, np.arange(0, len(chunk) + BLOCK, BLOCK))
    for start in range(0, len(chunk), BLOCK):
        at = slice(bounds[start // BLOCK], bounds[start // BLOCK + 1])
        wide = int(slot_of[sides[at]].max(initial=-1)) + 1  # the chunk comes widest first
        totals = np.matmul(select[start:start + BLOCK, :wide], flat_rows[start:start + BLOCK])
        got = totals[owner[at] - start, slot_of[sides[at]]].reshape(-1, width, cols)
        for lo in range(0, len(got), FINISH):
            # A few hundred rows at a time: the temporaries stay in cache, not page-faulted.
            done = sides[at][lo:lo + FINISH]
            cp, x = kind.finish(got[lo:lo + FINISH], shared[done // 2])
            cp_out[done] = cp
            keep = with_x[done]
            x_out[done[keep]] = x[keep]


def _runs(values: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each run of equal values."""
    if not len(values):
        return []
    cuts = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate([[0], cuts])
    return list(zip(starts.tolist(), np.append(cuts, len(values)).tolist()))


def _groups(index: np.ndarray, masks: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """`index` grouped by equal rows of `masks` (items), each group with its mask; empty
    masks left out."""
    if not len(index):
        return []
    keep = masks.any(axis=1)
    index, masks = index[keep], masks[keep]
    if not len(index):
        return []
    _, first, inverse = np.unique(np.packbits(masks, axis=1), axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    return [(index[order[a:z]], masks[first[inverse[order[a]]]]) for a, z in _runs(inverse[order])]


def task_tests(items: TaskItems, pairs: np.ndarray, draws: int, seed: int, min_samples: int) -> list[PairedTest | None]:
    """The paired test of each pair `(a, b)` (evaluation indices) on one task; None where the
    two share fewer than `min_samples` items (the overlap rule speaks there)."""
    return tests_of(task_sides(items, pairs, draws, seed), min_samples)


def tests_of(found: Sides, min_samples: int) -> list[PairedTest | None]:
    """A task's paired tests from its pairs' `Sides`."""
    cp, x = found.cp[:, :, :-1], found.x[:, :, :-1]
    low, high = resample.percentile_interval(cp[:, 0] - cp[:, 1])
    x_p = resample.two_sided_p(x[:, 0] - x[:, 1])
    out: list[PairedTest | None] = []
    for k in range(len(found.shared)):
        if found.shared[k] < min_samples:
            out.append(None)
            continue
        if found.epochs[k]:
            p, method = float(x_p[k]), paired.BOOTSTRAP
        else:
            p, method = paired.mcnemar_p(int(found.b[k]), int(found.c[k])), paired.MCNEMAR
        effect = float(found.cp[k, 0, -1] - found.cp[k, 1, -1])
        out.append(PairedTest(int(found.shared[k]), effect, float(low[k]), float(high[k]), p, method))
    return out
