"""The difficulty curves of the task pages: C_P per level of each difficulty coordinate."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..store.pointsdb import KeySet, PointsDB
from .board import CurvePoint, Curves
from .grid import EVAL_KEYS, rounded, run_starts


def difficulty_curves(db: PointsDB, tasks: list[str], index: Mapping[tuple[str, ...], int], ids: list[str],
                      listed: Mapping[str, Sequence[tuple[str, ...]]]) -> Curves:
    """C_P per level of each difficulty coordinate: the task pages' difficulty curves, of the
    evaluations each task page lists (`listed`: task -> evaluation keys) and no other.

    DuckDB aggregates only the points of those (evaluation, task) pairs (a semi-join, see
    `PointsDB.aggregate`): the pages list at most `page_size` models per task, so the work
    stays bounded as the board grows, where every evaluation's curves grew with it.

    The aggregate has a row per (evaluation, task, coordinate, level), sorted by those keys.
    Each row gets integer codes (its evaluation's id rank, its task, its coordinate in
    order of first appearance within the task, its level's `_level_key` rank) and one
    `np.lexsort` puts all of them in published order: per task and coordinate, by id, then
    by level. Only the few distinct keys go through Python; the rows stay arrays until the
    points are made.
    """
    if not tasks:
        return {}
    wanted = KeySet((*EVAL_KEYS, "base_task"), [(*key, task) for task in tasks for key in listed.get(task, ())])
    agg = db.aggregate(among=wanted, group_by=(*EVAL_KEYS, "base_task", "param_level"), mode="C_P")
    curves: dict[str, dict[str, tuple[CurvePoint, ...]]] = {t: {} for t in tasks}
    size = len(agg)
    if size == 0:
        return curves
    # Evaluation and task: the rows come sorted by them, so codes change only at run starts.
    starts = run_starts([agg[c] for c in (*EVAL_KEYS, "base_task")])
    run_keys = zip(*(agg[c][starts].tolist() for c in (*EVAL_KEYS, "base_task")))
    id_rank = {v: r for r, v in enumerate(sorted(ids))}
    task_at = {t: j for j, t in enumerate(tasks)}
    run_eval, run_task = [], []
    for model, template, sampler, task in run_keys:
        i = index.get((model, template, sampler))
        run_eval.append(-1 if i is None else i)
        run_task.append(task_at.get(task, -1))
    lengths = np.diff(np.append(starts, size))
    evaluation = np.repeat(np.asarray(run_eval, dtype=np.int64), lengths)
    task_code = np.repeat(np.asarray(run_task, dtype=np.int64), lengths)
    # Coordinates and levels: few distinct values, coded through dicts.
    names, values = agg["param_name"].tolist(), agg["param_value"].tolist()
    name_code = _codes(names)
    value_code = _codes(values)
    distinct_values = list(dict.fromkeys(values))
    level_rank = np.empty(len(distinct_values), dtype=np.int64)
    level_rank[sorted(range(len(distinct_values)), key=lambda k: _level_key(distinct_values[k]))] = \
        np.arange(len(distinct_values))
    keep = (evaluation >= 0) & (task_code >= 0)
    # A point without a coordinate (NULL name or level) draws no curve point.
    keep &= (name_code != _code_of(names, None)) & (value_code != _code_of(values, None))
    rows = np.flatnonzero(keep)
    if len(rows) == 0:
        return curves
    # A coordinate's place in its task's dict: the order in which the rows first name it.
    pair = task_code[rows] * (int(name_code.max()) + 1) + name_code[rows]
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    group = np.argsort(np.argsort(first))[inverse.ravel()]
    id_code = np.asarray([id_rank[x] for x in ids], dtype=np.int64)
    perm = np.lexsort((rows, level_rank[value_code[rows]], id_code[evaluation[rows]], group))
    order = rows[perm]
    est, low, high = (rounded(agg[c][order], 6) for c in ("est", "low", "high"))
    n = agg["trials"][order].astype(np.int64).tolist()
    point_ids = [ids[i] for i in evaluation[order].tolist()]
    point_values = [values[k] for k in order.tolist()]
    points = list(map(CurvePoint, point_ids, point_values, est, low, high, n))
    bounds = np.flatnonzero(np.diff(group[perm])) + 1
    for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), len(order)]):
        k = int(order[lo])
        curves[tasks[int(task_code[k])]][names[k]] = tuple(points[lo:hi])
    return curves


def _codes(values: list[Any]) -> np.ndarray:
    """Each value's position among the distinct values in order of first appearance."""
    at = {v: k for k, v in enumerate(dict.fromkeys(values))}
    return np.fromiter(map(at.__getitem__, values), dtype=np.int64, count=len(values))


def _code_of(values: list[Any], value: Any) -> int:
    """`value`'s code in `_codes(values)`, -1 when it does not occur."""
    return next((k for k, v in enumerate(dict.fromkeys(values)) if v == value), -1)


def _level_key(value: str) -> tuple[int, float, str]:
    """Sort difficulty levels numerically when they are numbers, else as text."""
    try:
        return (0, float(value), value)
    except (TypeError, ValueError):
        return (1, 0.0, str(value))
