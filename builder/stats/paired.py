"""Paired comparisons of two evaluations on the items they share (SAMPLES.md section 5).

Two evaluations answering the same items differ far less by chance than two separate
intervals suggest (a hard item is hard for both), so where they share enough items they are
compared on those items, paired: exact McNemar when every shared item has one trial on both
sides, else the paired bootstrap; the effect is the `C_P` difference on the shared items,
with the percentile interval of the same bootstrap (`resample.py`, one seeded draw matrix per
stratum). Over the tests a page shows together, Holm's step-down decides which differences
are called significant. At board level the ReasonScore difference (geometric mean of the
tasks' `C_P` centers x 1000) is bootstrapped the same way, over every (task, params) stratum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import resample

MCNEMAR = "mcnemar"
BOOTSTRAP = "bootstrap"
#: Task centers are floored as STATISTICS.md section 4 floors the bounds, so the board's
#: geometric mean is the ReasonScore's own (10 to 1000).
FLOOR = 0.01
ALPHA = 0.05
#: How a bootstrap p of 0 is printed: it says only that no resample crossed zero (the
#: resolution is 2 / draws), so "< 0.0001" or "0" alone would claim more than the draws show.
#: `compare.js` prints the same words in the browser.
NO_CROSSING = "0 (no resample crossed zero)"


def at_resolution(p: float, method: str) -> bool:
    """Whether `p` is a bootstrap's 0, to be printed as `NO_CROSSING`."""
    return p == 0 and method == BOOTSTRAP


@dataclass(frozen=True)
class Side:
    """One evaluation's counters per shared item of a stratum, in the stratum's item order:
    trials (epochs), correct and truncated trials, and the guess sum (1/options over the
    item's completed trials)."""

    trials: np.ndarray
    correct: np.ndarray
    truncated: np.ndarray
    guess: np.ndarray

    @property
    def epochs(self) -> bool:
        return bool(np.any(np.asarray(self.trials) != 1))

    def features(self) -> np.ndarray:
        return resample.features(self.trials, self.correct, self.truncated, self.guess, self.epochs)


@dataclass(frozen=True)
class Stratum:
    """The items of one `params` stratum of a task that A and B share, sorted by id."""

    params: str
    sample_ids: tuple[str, ...]
    a: Side
    b: Side


@dataclass(frozen=True)
class PairedTest:
    """A against B on their shared items: `effect` (A minus B; `C_P` on a task, ReasonScore
    points on a board) with its 95 % interval, the raw two-sided `p`, and the method."""

    shared: int
    effect: float
    low: float
    high: float
    p: float
    method: str


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar: `min(1, 2 · BinomCDF(min(b, c); b + c, 1/2))`, 1 when b + c = 0."""
    return _binomial_tail(min(b, c), b + c)


@lru_cache(maxsize=65536)
def _binomial_tail(k: int, n: int) -> float:
    """`min(1, 2 · Σ_{i<=k} C(n, i) / 2^n)` in exact integer arithmetic, rounded once."""
    if n == 0:
        return 1.0
    term, total = 1, 1
    for i in range(k):
        term = term * (n - i) // (i + 1)
        total += term
    # Integer true division is correctly rounded in Python, however large the integers.
    return min(1.0, (2 * total) / (1 << n))


def pack(outcomes: np.ndarray) -> np.ndarray:
    """Boolean outcomes `(..., items)` bit-packed per item along the last axis."""
    return np.packbits(np.asarray(outcomes, dtype=bool), axis=-1)


def discordant(correct_a: np.ndarray, correct_b: np.ndarray, shared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """McNemar's `b` (A correct, B not) and `c` (the reverse) over the shared items, from
    bit-packed rows (`pack`); rows broadcast, so one evaluation is tested against many."""
    b = np.bitwise_count(correct_a & ~correct_b & shared).sum(axis=-1, dtype=np.int64)
    c = np.bitwise_count(correct_b & ~correct_a & shared).sum(axis=-1, dtype=np.int64)
    return b, c


def holm(p: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down over the tests shown together: the `i`-th smallest p (from 1) is
    significant while every smaller one was and it is at most `alpha / (m - i + 1)`."""
    order = sorted(range(len(p)), key=lambda i: (p[i], i))
    out = [False] * len(p)
    for rank, i in enumerate(order):
        if p[i] > alpha / (len(p) - rank):
            break
        out[i] = True
    return out


Sums = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _stratum_replicates(seed: int, task: str, stratum: Stratum, draws: int) -> Sums:
    """Observed and replicate feature sums of both sides on one stratum, the same draws."""
    fa, fb = stratum.a.features(), stratum.b.features()
    rng = resample.generator(seed, "paired", task, stratum.params, resample.items_digest(stratum.sample_ids))
    sums = resample.replicate_sums(np.concatenate([fa, fb], axis=1), draws, rng)
    k = fa.shape[1]
    return fa.sum(axis=0), fb.sum(axis=0), sums[:, :k], sums[:, k:]


def _task(seed: int, task: str, strata: Sequence[Stratum], draws: int) -> dict[str, np.ndarray]:
    """Both sides' observed and replicate `C_P` centers and mean-x sums on one task."""
    out: dict[str, np.ndarray] = {}
    for s in strata:
        size = len(s.sample_ids)
        obs_a, obs_b, rep_a, rep_b = _stratum_replicates(seed, task, s, draws)
        parts = {
            "obs_a": resample.effective_counters(obs_a, size), "obs_b": resample.effective_counters(obs_b, size),
            "rep_a": resample.effective_counters(rep_a, size), "rep_b": resample.effective_counters(rep_b, size),
            "x_a": rep_a[:, 4], "x_b": rep_b[:, 4],
        }
        for key, value in parts.items():
            out[key] = out[key] + value if key in out else value
    return {"cp_obs_a": resample.cp_center(out["obs_a"]), "cp_obs_b": resample.cp_center(out["obs_b"]),
            "cp_a": resample.cp_center(out["rep_a"]), "cp_b": resample.cp_center(out["rep_b"]),
            "x_diff": out["x_a"] - out["x_b"]}


def paired_task(task: str, strata: Sequence[Stratum], draws: int, seed: int) -> PairedTest:
    """A against B on one task's shared items (every stratum non-empty)."""
    shared = sum(len(s.sample_ids) for s in strata)
    found = _task(seed, task, strata, draws)
    low, high = resample.percentile_interval(found["cp_a"] - found["cp_b"])
    if not any(s.a.epochs or s.b.epochs for s in strata):
        a = np.concatenate([np.asarray(s.a.correct) > 0 for s in strata])
        b = np.concatenate([np.asarray(s.b.correct) > 0 for s in strata])
        p, method = mcnemar_p(int(np.sum(a & ~b)), int(np.sum(b & ~a))), MCNEMAR
    else:
        p, method = float(resample.two_sided_p(found["x_diff"])), BOOTSTRAP
    return PairedTest(shared, float(found["cp_obs_a"] - found["cp_obs_b"]), float(low), float(high), p, method)


def paired_board(tasks: Sequence[tuple[str, Sequence[Stratum]]], draws: int, seed: int) -> PairedTest:
    """A against B on a board: the ReasonScore difference (1000 x geometric mean of the tasks'
    floored `C_P` centers) on the items they share on every task, each replicate resampling
    every (task, params) stratum."""
    found = [_task(seed, task, strata, draws) for task, strata in tasks]

    def score(key: str) -> np.ndarray:
        logs = [np.log(np.maximum(f[key], FLOOR)) for f in found]
        gm: np.ndarray = 1000.0 * np.exp(np.mean(np.stack(logs, axis=-1), axis=-1))
        return gm

    diff = score("cp_a") - score("cp_b")
    low, high = resample.percentile_interval(diff)
    shared = sum(len(s.sample_ids) for _, strata in tasks for s in strata)
    return PairedTest(shared, float(score("cp_obs_a") - score("cp_obs_b")), float(low), float(high),
                      float(resample.two_sided_p(diff)), BOOTSTRAP)
