"""Paired tests for many pairs at once: what a build needs for its boards, task pages, model
pages and pairwise matrix (SAMPLES.md section 5; one pair's rules are in `paired.py`).

A task's per-item counters arrive as one table (`TaskItems`). Pairs are taken in batches;
within a batch, for each stratum, the pairs are grouped by the exact set of items they share
there, and each group's draw matrix (seeded by the stratum and those items, `resample.py`)
multiplies the features of every evaluation in the group at once: one matrix product per
(stratum, shared item set), whatever the number of pairs using it. Each pair's effective
counters are summed over the strata of the task; the board test sums the logs of the task
centers over the tasks. McNemar's discordant counts come from outcomes bit-packed per item.
The results equal `paired.paired_task` and `paired.paired_board` pair by pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import paired, resample
from .paired import PairedTest

#: Pairs per batch: their accumulators hold 2 x 5 x draws doubles each (16 MB at 2,000 draws).
BATCH = 200


@dataclass(frozen=True)
class TaskItems:
    """One task's per-item counters of every evaluation: one row per (evaluation, item), items
    numbered within their stratum (`params`), whose ids `sample_ids` lists in sorted order."""

    task: str
    params: tuple[str, ...]
    sample_ids: tuple[tuple[str, ...], ...]
    evaluation: np.ndarray  # row -> evaluation index, ascending (rows sorted by evaluation)
    stratum: np.ndarray
    item: np.ndarray
    trials: np.ndarray
    correct: np.ndarray
    truncated: np.ndarray
    guess: np.ndarray


class _Dense:
    """A batch's evaluations on one task as dense (evaluation, item) arrays per stratum."""

    def __init__(self, items: TaskItems, evaluations: np.ndarray):
        lookup = np.full(int(max(items.evaluation.max(initial=0), evaluations.max(initial=0))) + 1, -1, dtype=np.int64)
        lookup[evaluations] = np.arange(len(evaluations))
        self.lookup = lookup
        rows = _rows_of(items, evaluations)
        pos = lookup[items.evaluation[rows]]
        e = len(evaluations)
        self.present: list[np.ndarray] = []
        self.feature: list[np.ndarray] = []
        self.epochs: list[np.ndarray] = []
        self.correct: list[np.ndarray] = []
        stratum = items.stratum[rows]
        for s, ids in enumerate(items.sample_ids):
            here = stratum == s
            at = rows[here]
            where = (pos[here], items.item[at])
            present = np.zeros((e, len(ids)), dtype=bool)
            present[where] = True
            cols = np.zeros((4, e, len(ids)))
            for c, values in enumerate((items.trials, items.correct, items.truncated, items.guess)):
                cols[c][where] = values[at]
            self.present.append(present)
            self.feature.append(cols)
            self.epochs.append(np.any(cols[0] > 1, axis=1))
            self.correct.append(cols[1] > 0)


def _rows_of(items: TaskItems, evaluations: np.ndarray) -> np.ndarray:
    """The rows of `evaluations` (sorted) in a table whose rows are sorted by evaluation."""
    starts = np.searchsorted(items.evaluation, evaluations, side="left")
    stops = np.searchsorted(items.evaluation, evaluations, side="right")
    lengths = stops - starts
    if not lengths.sum():
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    rows: np.ndarray = np.arange(int(lengths.sum()), dtype=np.int64) + offsets
    return rows


def task_tests(items: TaskItems, pairs: np.ndarray, draws: int, seed: int, min_samples: int) -> list[PairedTest | None]:
    """The paired test of each pair `(a, b)` (evaluation indices) on one task; None where the
    two share fewer than `min_samples` items (the overlap rule speaks there)."""
    out: list[PairedTest | None] = []
    for start in range(0, len(pairs), BATCH):
        found = _task_batch(items, np.asarray(pairs[start:start + BATCH]), draws, seed)
        for k in range(len(found.shared)):
            if found.shared[k] < min_samples:
                out.append(None)
                continue
            low, high = resample.percentile_interval(found.cp_rep[k, 0] - found.cp_rep[k, 1])
            if found.epochs[k]:
                p, method = float(resample.two_sided_p(found.x_diff[k])), paired.BOOTSTRAP
            else:
                p, method = paired.mcnemar_p(int(found.b[k]), int(found.c[k])), paired.MCNEMAR
            out.append(PairedTest(int(found.shared[k]), float(found.cp_obs[k, 0] - found.cp_obs[k, 1]),
                                  float(low), float(high), p, method))
    return out


def board_tests(tasks: Sequence[TaskItems], pairs: np.ndarray, draws: int, seed: int,
                min_samples: int) -> list[PairedTest | None]:
    """The paired test of the ReasonScore difference of each pair over `tasks`; None unless the
    two share at least `min_samples` items on every task."""
    out: list[PairedTest | None] = []
    for start in range(0, len(pairs), BATCH):
        batch = np.asarray(pairs[start:start + BATCH])
        logs = np.zeros((len(batch), 2, draws))
        obs = np.zeros((len(batch), 2))
        shared = np.zeros(len(batch), dtype=np.int64)
        enough = np.ones(len(batch), dtype=bool)
        for items in tasks:
            found = _task_batch(items, batch, draws, seed)
            logs += np.log(np.maximum(found.cp_rep, paired.FLOOR))
            obs += np.log(np.maximum(found.cp_obs, paired.FLOOR))
            shared += found.shared
            enough &= found.shared >= min_samples
        t = max(len(tasks), 1)
        score = 1000.0 * np.exp(logs / t)
        diff = score[:, 0] - score[:, 1]
        low, high = resample.percentile_interval(diff)
        p = resample.two_sided_p(diff)
        effect = 1000.0 * (np.exp(obs[:, 0] / t) - np.exp(obs[:, 1] / t))
        for k in range(len(batch)):
            out.append(PairedTest(int(shared[k]), float(effect[k]), float(low[k]), float(high[k]), float(p[k]),
                                  paired.BOOTSTRAP) if enough[k] and tasks else None)
    return out


@dataclass(frozen=True)
class _Found:
    shared: np.ndarray   # (P,)
    cp_obs: np.ndarray   # (P, 2)
    cp_rep: np.ndarray   # (P, 2, draws)
    x_diff: np.ndarray   # (P, draws)
    epochs: np.ndarray   # (P,) some shared item has several trials on a side
    b: np.ndarray
    c: np.ndarray


def _task_batch(items: TaskItems, pairs: np.ndarray, draws: int, seed: int) -> _Found:
    """Observed and replicate `C_P` of both sides of each pair on one task.

    Most pairs share, in most strata, exactly the items each side answered (every model gets
    the same items): there a side's contribution is its own, computed once per evaluation
    (`own`). Only where a side answered items the other did not does the pair get its own
    contribution on the shared items, kept as a correction `shared - own` (`fix`)."""
    p = len(pairs)
    evaluations = np.unique(pairs)
    dense = _Dense(items, evaluations)
    pos = dense.lookup[pairs.reshape(p, 2)]
    e = len(evaluations)
    own = np.zeros((e, 5, draws))
    own_obs = np.zeros((e, 4))
    fix = np.zeros((p, 2, 5, draws))
    fix_obs = np.zeros((p, 2, 4))
    shared = np.zeros(p, dtype=np.int64)
    epochs = np.zeros(p, dtype=bool)
    b = np.zeros(p, dtype=np.int64)
    c = np.zeros(p, dtype=np.int64)
    for s in range(len(items.sample_ids)):
        present = dense.present[s]
        masks = present[pos[:, 0]] & present[pos[:, 1]]                      # (P, items)
        counts = masks.sum(axis=1)
        shared += counts
        epochs |= (dense.epochs[s][pos[:, 0]] | dense.epochs[s][pos[:, 1]]) & (counts > 0)
        packed = paired.pack(masks)
        db, dc = paired.discordant(paired.pack(dense.correct[s][pos[:, 0]]), paired.pack(dense.correct[s][pos[:, 1]]),
                                   packed)
        b += db
        c += dc
        # Sides whose shared items are not all the items they answered here.
        short = masks.sum(axis=1)[:, None] != present[pos].sum(axis=2)          # (P, 2)
        kept = np.zeros(e, dtype=bool)
        kept[pos[short]] = True
        own_here: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for key_rows in _groups(paired.pack(present), np.asarray(present.any(axis=1))):
            rep, obs = _contributions(items, dense, s, key_rows, present[key_rows[0]], draws, seed)
            own[key_rows] += rep
            own_obs[key_rows] += obs
            for k, row in enumerate(key_rows.tolist()):
                if kept[row]:
                    own_here[row] = (rep[k], obs[k])
        for members in _groups(packed, short.any(axis=1)):
            sides = pos[members]
            need = np.unique(sides[short[members]])
            if counts[members[0]]:
                rep, obs = _contributions(items, dense, s, need, masks[members[0]], draws, seed)
            else:
                rep, obs = np.zeros((len(need), 5, draws)), np.zeros((len(need), 4))
            at = {int(x): k for k, x in enumerate(need.tolist())}
            for pair, row in zip(members.tolist(), sides.tolist()):
                for side in (0, 1):
                    if short[pair, side]:
                        k = at[row[side]]
                        base_rep, base_obs = own_here[row[side]]
                        fix[pair, side] += rep[k] - base_rep
                        fix_obs[pair, side] += obs[k] - base_obs
    acc = own[pos] + fix                                                        # (P, 2, 5, draws)
    cp_rep = resample.cp_center(acc[:, :, :4].transpose(0, 1, 3, 2))
    cp_obs = resample.cp_center(own_obs[pos] + fix_obs)
    return _Found(shared, cp_obs, cp_rep, acc[:, 0, 4] - acc[:, 1, 4], epochs, b, c)


def _groups(packed: np.ndarray, keep: np.ndarray) -> list[np.ndarray]:
    """Rows of `packed` with equal bytes, among those `keep` marks, in first-seen order."""
    groups: dict[bytes, list[int]] = {}
    for k in np.flatnonzero(keep).tolist():
        groups.setdefault(packed[k].tobytes(), []).append(k)
    return [np.asarray(g, dtype=np.int64) for g in groups.values()]


def _contributions(items: TaskItems, dense: _Dense, s: int, evals: np.ndarray, mask: np.ndarray, draws: int,
                   seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The replicate `(E, 5, draws)` and observed `(E, 4)` effective counters (and, fifth, the
    sum of x) of `evals` on the items `mask` selects in stratum `s`: one draw matrix for all."""
    which = np.flatnonzero(mask)
    feature = dense.feature[s]
    moments = bool(np.any(feature[0][np.ix_(evals, which)] > 1))
    f = np.stack([resample.features(feature[0][x, which], feature[1][x, which], feature[2][x, which],
                                    feature[3][x, which], moments)
                  for x in evals.tolist()], axis=1)                             # (items, E, K)
    size, k_cols = len(which), f.shape[2]
    ids = items.sample_ids[s]
    rng = resample.generator(seed, "paired", items.task, items.params[s],
                             resample.items_digest([ids[i] for i in which.tolist()]))
    sums = resample.replicate_sums(f.reshape(size, -1), draws, rng).reshape(draws, len(evals), k_cols)
    eff = resample.effective_counters(sums, size)                               # (draws, E, 4)
    rep = np.concatenate([eff, sums[:, :, 4:5]], axis=2).transpose(1, 2, 0)     # (E, 5, draws)
    return rep, resample.effective_counters(f.sum(axis=0), size)
