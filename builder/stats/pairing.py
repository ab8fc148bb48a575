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
  sums of a replicate are one whole number in float64 (`Packed`: guess sums scaled by the
  common multiple of the option counts): every sum above is one column, not three, and exact.
  Evaluations with epochs keep the design effect's columns (`Moments`, SAMPLES.md section 2).

The observed sums ride along as one more row of each draw matrix (all ones). McNemar's
discordant counts come from outcomes bit-packed per item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..store.items import TaskItems
from . import paired, resample
from .paired import PairedTest
from .pairsums import Grid, Moments, Packed

#: Bytes of own sums a block of evaluations holds at once (one row per stratum each).
BLOCK_BYTES = 64 << 20
#: Variants whose `C_P` is computed together.
FINISH = 128
#: Bytes of draw matrices kept for reuse within a task.
DRAW_BYTES = 512 << 20


@dataclass(frozen=True)
class Sides:
    """Both sides of each pair on one task, by variant. A variant is one evaluation's sums
    over the items of one side: its own items in every stratum but those where the partner
    answered fewer (there, the shared ones). An evaluation's side is the same variant against
    every partner that answered all its items, so each variant's replicates are made once.

    `cp`: each variant's replicate `C_P` centers, observed in the last column, `(U, draws + 1)`;
    `x`: the sums of the epoch means of correct of the variants `with_x` asked for, variant
    `u`'s in row `xrow[u]`; `side`: each pair's two variants `(P, 2)`; per pair the
    shared items, whether a shared item has several trials on a side, and McNemar's
    discordant counts."""

    cp: np.ndarray
    x: np.ndarray
    xrow: np.ndarray
    side: np.ndarray
    shared: np.ndarray
    epochs: np.ndarray
    b: np.ndarray
    c: np.ndarray

    def take(self, rows: slice) -> Sides:
        """The pairs `rows`, with the same variants."""
        return Sides(self.cp, self.x, self.xrow, self.side[rows], self.shared[rows], self.epochs[rows], self.b[rows],
                     self.c[rows])


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
            matrix = resample.draw_matrix(len(which), self.draws, rng, np.float32)
            self.bytes += matrix.nbytes
            while self.found and self.bytes > DRAW_BYTES:
                self.bytes -= self.found.pop(next(iter(self.found))).nbytes
        self.found[key] = matrix
        return matrix


def task_sides(items: TaskItems, pairs: np.ndarray, draws: int, seed: int, with_x: Sequence[int] | None = None) -> Sides:
    """Both sides of each pair `(a, b)` (evaluation indices of `items`) on their shared items;
    the sums of epoch means (`Sides.x`) only for the pairs `with_x` lists (all by default)."""
    if with_x is None:
        with_x = range(len(np.asarray(pairs).reshape(-1, 2)))
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    p = len(pairs)
    grid = Grid(items, np.unique(pairs))
    pos = grid.lookup[pairs]
    shared = np.zeros(p, dtype=np.int64)
    epochs = np.zeros(p, dtype=bool)
    b, c = np.zeros(p, dtype=np.int64), np.zeros(p, dtype=np.int64)
    strata = len(grid.present)
    # Per side and stratum: 0 where the side sums its own items, k where it sums the k-th
    # of the stratum's fewer shared item sets (`fewer[s][k - 1]`).
    codes = np.zeros((p, 2, strata), dtype=np.int64)
    fewer: list[np.ndarray] = []
    for s, present in enumerate(grid.present):
        masks = present[pos[:, 0]] & present[pos[:, 1]]
        counts = masks.sum(axis=1)
        shared += counts
        epochs |= (grid.epochs[s][pos[:, 0]] | grid.epochs[s][pos[:, 1]]) & (counts > 0)
        correct = paired.pack(grid.correct[s])
        db, dc = paired.discordant(correct[pos[:, 0]], correct[pos[:, 1]], paired.pack(masks))
        b += db
        c += dc
        short = counts[:, None] != present.sum(axis=1)[pos]
        rows = np.flatnonzero(short.any(axis=1))
        _, first, which = np.unique(np.packbits(masks[rows], axis=1), axis=0, return_index=True, return_inverse=True)
        fewer.append(masks[rows[first]])
        code = np.zeros(p, dtype=np.int64)
        code[rows] = which.ravel() + 1
        codes[:, :, s] = np.where(short, code[:, None], 0)
    keys, side = np.unique(np.concatenate([pos.reshape(-1, 1), codes.reshape(2 * p, strata)], axis=1), axis=0,
                           return_inverse=True)
    variants = _Variants(keys[:, 0], keys[:, 1:], fewer, grid)
    side = side.reshape(p, 2)
    marked = np.zeros(len(keys), dtype=bool)
    marked[side[np.asarray(with_x, dtype=np.int64)].ravel()] = True
    xrow = np.cumsum(marked) - 1
    out = Sides(np.empty((len(keys), draws + 1)), np.zeros((int(marked.sum()), draws + 1)), xrow, side,
                shared, epochs, b, c)
    packed = Packed(grid, items)
    with_epochs = np.any(np.stack(grid.epochs), axis=0) if strata else np.zeros(grid.size, dtype=bool)
    kinds: list[tuple[Packed | Moments, np.ndarray]] = (
        [(packed, ~with_epochs), (Moments(grid, np.flatnonzero(with_epochs)), with_epochs)] if packed.ok
        else [(Moments(grid, np.arange(grid.size)), np.ones(grid.size, dtype=bool))])
    found = _Draws(items, draws, seed)
    counts = variants.items()
    scratch = _Scratch()
    for kind, members in kinds:
        chosen = np.flatnonzero(members)
        step = max(1, BLOCK_BYTES // (kind.dtype.itemsize * kind.width * (draws + 1) * max(strata, 1)))
        for start in range(0, len(chosen), step):
            _block(kind, variants, counts, found, chosen[start:start + step], out, marked, scratch)
    return out


@dataclass(frozen=True)
class _Variants:
    """A task's variants (`Sides`): each one's evaluation (grid position) and, per stratum,
    its item set's code; `fewer[s]` the stratum's fewer shared item sets."""

    evaluation: np.ndarray
    codes: np.ndarray
    fewer: list[np.ndarray]
    grid: Grid

    def items(self) -> np.ndarray:
        """How many items each variant sums."""
        own = np.stack([present.sum(axis=1) for present in self.grid.present], axis=1)[self.evaluation]
        counts = [np.concatenate([[0], m.sum(axis=1)]) for m in self.fewer]
        less = np.stack([counts[s][self.codes[:, s]] for s in range(len(counts))], axis=1)
        found: np.ndarray = np.where(self.codes > 0, less, own).sum(axis=1)
        return found


class _Scratch:
    """Zeroed arrays made in buffers kept from one block to the next: a new array of tens of
    MB is new pages from the system each time, and faulting them in cost more than the
    additions made in them."""

    def __init__(self) -> None:
        self.found: dict[int, np.ndarray] = {}

    def zeros(self, key: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        size = int(np.prod(shape))
        buffer = self.found.get(key)
        if buffer is None or buffer.size < size or buffer.dtype != dtype:
            buffer = self.found[key] = np.empty(size, dtype=dtype)
        view: np.ndarray = buffer[:size].reshape(shape)
        view.fill(0)
        return view


def _block(kind: Packed | Moments, variants: _Variants, counts: np.ndarray, found: _Draws, block: np.ndarray,
           out: Sides, marked: np.ndarray, scratch: _Scratch) -> None:
    """The variants of the evaluations `block` (grid positions), summing `counts` items each,
    into `out.cp` (and `out.x` where `marked`).

    Each evaluation's own sums per stratum are made once (one matrix product per stratum and
    item set, for every evaluation of the block with that set) and added up in stratum order:
    the variants that keep their own items everywhere. A variant with fewer items somewhere
    adds, in stratum order, the own sums of the strata where it keeps its items, then its sums
    over the fewer shared items: the additions, in their order, of one sum over those rows."""
    grid, cols = variants.grid, found.draws + 1
    local = np.full(grid.size, -1, dtype=np.int64)
    local[block] = np.arange(len(block))
    mine = np.flatnonzero(local[variants.evaluation] >= 0)
    at, codes = local[variants.evaluation[mine]], variants.codes[mine]
    fewer = np.any(codes > 0, axis=1)
    whole = scratch.zeros(0, (len(block), kind.width, cols), kind.dtype)
    part = scratch.zeros(1, (int(fewer.sum()), kind.width, cols), kind.dtype)
    part_at, part_codes = at[fewer], codes[fewer]
    slot = np.full(len(block), -1, dtype=np.int64)
    for s, present in enumerate(grid.present):
        for members, mask in _groups(np.arange(len(block)), present[block]):
            sums = kind.sums(found.get(s, mask), s, block[members], mask)
            _add_rows(whole, members, sums)
            slot[members] = np.arange(len(members))
            hit = np.flatnonzero((part_codes[:, s] == 0) & (slot[part_at] >= 0))
            _add_rows(part, hit, sums, slot[part_at[hit]])
            slot[members] = -1
    for s in range(len(grid.present)):
        for code in np.unique(part_codes[:, s]).tolist():
            if code and variants.fewer[s][code - 1].any():  # no shared item there: nothing to add
                rows = np.flatnonzero(part_codes[:, s] == code)
                shared = variants.fewer[s][code - 1]
                _add_rows(part, rows, kind.sums(found.get(s, shared), s, block[part_at[rows]], shared))
    for rows, totals, index in ((mine[~fewer], whole, at[~fewer]), (mine[fewer], part, np.arange(len(part)))):
        for lo in range(0, len(rows), FINISH):
            # A few hundred rows at a time: the temporaries stay in cache, not page-faulted.
            done = rows[lo:lo + FINISH]
            cp, x = kind.finish(totals[index[lo:lo + FINISH]], counts[done])
            out.cp[done] = cp
            keep = marked[done]
            out.x[out.xrow[done[keep]]] = x[keep]


def _add_rows(out: np.ndarray, rows: np.ndarray, values: np.ndarray, picks: np.ndarray | None = None) -> None:
    """`out[rows] += values[picks]` (every row of `values` by default; `rows` distinct), one
    row at a time in place: a row is thousands of numbers, so the loop costs half of fancy
    indexing's gathered copies, and each number gets the same one addition."""
    for r, k in zip(rows.tolist(), range(len(rows)) if picks is None else picks.tolist()):
        row = out[r]
        row += values[k]


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
    a, b = found.side[:, 0], found.side[:, 1]
    low, high = resample.percentile_interval(found.cp[a, :-1] - found.cp[b, :-1])
    x_p = resample.two_sided_p(found.x[found.xrow[a], :-1] - found.x[found.xrow[b], :-1])
    out: list[PairedTest | None] = []
    for k in range(len(found.shared)):
        if found.shared[k] < min_samples:
            out.append(None)
            continue
        if found.epochs[k]:
            p, method = float(x_p[k]), paired.BOOTSTRAP
        else:
            p, method = paired.mcnemar_p(int(found.b[k]), int(found.c[k])), paired.MCNEMAR
        effect = float(found.cp[a[k], -1] - found.cp[b[k], -1])
        out.append(PairedTest(int(found.shared[k]), effect, float(low[k]), float(high[k]), p, method))
    return out
