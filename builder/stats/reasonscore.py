"""ReasonScore v2: the bootstrap geometric mean of per-task interval bounds (STATISTICS.md §4).

Vectorised over models: one uniform matrix `u[B, T]` (seeded, tasks in sorted order) is
shared by every model, so a model's score depends only on its own task bounds: adding or
removing another model never moves it, which keeps score-change reports honest. Missing
tasks are masked out of the mean, which is how incomplete models get a score over the
tasks they have. Work is done in chunks of models to bound memory (B x T x chunk doubles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FLOOR = 0.01
#: Models per chunk: 64 x 5000 x 12 doubles is about 30 MB per temporary.
CHUNK = 64


@dataclass(frozen=True)
class ReasonScores:
    """Per-model ReasonScore intervals, each an array of length M (1000-point scale)."""

    ci_low: np.ndarray
    ci_high: np.ndarray

    @property
    def center(self) -> np.ndarray:
        center: np.ndarray = (self.ci_low + self.ci_high) / 2.0
        return center

    @property
    def margin(self) -> np.ndarray:
        margin: np.ndarray = (self.ci_high - self.ci_low) / 2.0
        return margin


def bootstrap_uniforms(tasks: int, draws: int, seed: int) -> np.ndarray:
    """The shared `u[i, j]` of step 2: uniform on [0, 1), shape (draws, tasks)."""
    return np.random.default_rng(seed).random((draws, tasks))


def reasonscore_v2(low: np.ndarray, high: np.ndarray, present: np.ndarray, draws: int = 5000,
                   seed: int = 42) -> ReasonScores:
    """Bootstrap geometric-mean intervals for M models over T tasks.

    `low`, `high`: (M, T) task bounds on [0, 1] (any value where `present` is False);
    `present`: (M, T) bool. A model with no task at all gets NaN.
    """
    low = np.maximum(np.asarray(low, dtype=float), FLOOR)
    high = np.maximum(np.asarray(high, dtype=float), FLOOR)
    present = np.asarray(present, dtype=bool)
    m, t = low.shape
    u = bootstrap_uniforms(t, draws, seed)
    k_low, k_high = int(np.floor(0.025 * draws)), int(np.floor(0.975 * draws))
    counts = present.sum(axis=1)
    ci_low = np.full(m, np.nan)
    ci_high = np.full(m, np.nan)
    # Absent tasks get width 0 at 1.0 so log() is 0 and the masked mean ignores them.
    lo = np.where(present, low, 1.0)
    width = np.where(present, high - low, 0.0)
    # Task-major layout: each task's (chunk, draws) slab is one contiguous array operation
    # (a trailing axis of T ~ 12 makes numpy's broadcasting and reductions crawl), and the
    # per-draw sum over tasks adds the slabs in the order numpy's own sum over a contiguous
    # axis uses (`_sum_tasks`), so every figure is bit-identical to `log(x).sum(axis=-1)`.
    u_tasks = np.ascontiguousarray(u.T)
    for start in range(0, m, CHUNK):
        stop = min(start + CHUNK, m)
        x = np.empty((t, stop - start, draws))
        for j in range(t):
            np.multiply(u_tasks[j][None, :], width[start:stop, j, None], out=x[j])
            x[j] += lo[start:stop, j, None]
        np.log(x, out=x)
        log_mean = _sum_tasks(x) / np.maximum(counts[start:stop, None], 1)
        order = np.partition(log_mean, (k_low, k_high), axis=1)
        ci_low[start:stop] = 1000.0 * np.exp(order[:, k_low])
        ci_high[start:stop] = 1000.0 * np.exp(order[:, k_high])
    none = counts == 0
    ci_low[none] = np.nan
    ci_high[none] = np.nan
    return ReasonScores(ci_low, ci_high)


def _sum_tasks(x: np.ndarray) -> np.ndarray:
    """`x.sum(axis=0)`, added in the order numpy's pairwise summation uses along one
    contiguous axis (numpy/_core/src/umath/loops_utils.h.src, `pairwise_sum`): fewer than 8
    terms one after another; up to 128 in eight running sums, combined as
    ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the remainder one by one; more,
    split in two at a multiple of 8. Each term here is a whole (chunk, draws) slab, so the
    sums are vector operations, and the result is what summing each draw's task values
    with `np.sum` gives, to the last bit (tests/test_reasonscore.py checks it)."""
    n = len(x)
    if n < 8:
        total = np.zeros(x.shape[1:])
        for term in x:
            total += term
        return total
    if n <= 128:
        r = [x[j] for j in range(8)]  # new arrays on the first addition: x is not written
        i = 8
        while i < n - n % 8:
            r = [r[j] + x[i + j] for j in range(8)]
            i += 8
        total = np.asarray(((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])))
        for term in x[i:]:
            total += term
        return total
    half = n // 2
    half -= half % 8
    split: np.ndarray = _sum_tasks(x[:half]) + _sum_tasks(x[half:])
    return split


def geometric_mean(values: np.ndarray, present: np.ndarray | None = None, axis: int = -1) -> np.ndarray:
    """Geometric mean along `axis`, over the `present` entries only (NaN when none)."""
    values = np.asarray(values, dtype=float)
    if present is None:
        present = np.isfinite(values)
    safe = np.where(present, values, 1.0)
    counts = present.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.exp(np.log(safe).sum(axis=axis) / counts)
    return np.where(counts > 0, out, np.nan)
