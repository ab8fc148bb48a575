"""PointsDB aggregates as (rows × tasks) arrays, and the rounding every published figure gets.

The leaderboard, the tiers and the difficulty curves all start from an aggregate sorted by
its keys; `grid` scatters one into arrays with a row per evaluation (or per evaluation and
tier) and a column per task, looking each run of equal keys up once.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..store.pointsdb import EVALUATION, Aggregate

#: The columns naming an evaluation in the PointsDB.
EVAL_KEYS = EVALUATION


def rounded(values: np.ndarray, digits: int) -> list[Any]:
    """An array rounded to `digits` as nested Python lists, NaN as None (JSON null)."""
    values = np.asarray(values, dtype=float)
    # + 0.0 turns -0.0 (a bound like W(0, t).low = -3e-17 rounded) into 0.0.
    out = (np.round(values, digits) + 0.0).astype(object)
    out[~np.isfinite(values)] = None
    as_lists: list[Any] = out.tolist()
    return as_lists


# One value at a time with `math.isfinite`: numpy's test of one float costs three times the
# rounding, and the analyses files round every bin and budget of every task.
def r3(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 3) + 0.0


def r6(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6) + 0.0


@dataclass(frozen=True)
class Tables:
    """An aggregate reshaped to (evaluations × tasks) arrays."""

    present: np.ndarray
    columns: dict[str, np.ndarray]


def grid(agg: Aggregate, row_index: Mapping[tuple[str, ...], int], key_cols: tuple[str, ...], tasks: list[str],
         names: list[str], shape_rows: int) -> Tables:
    """Scatter aggregate rows into (rows, tasks) arrays by their evaluation and task keys."""
    task_index = {t: j for j, t in enumerate(tasks)}
    size = len(agg)
    # The rows come sorted by their keys: look up each run of equal keys once (a run break
    # wherever any key changes, so unsorted rows would only make shorter runs).
    starts = run_starts([agg[c] for c in key_cols]) if size else np.zeros(0, dtype=np.int64)
    keys = zip(*(agg[c][starts].tolist() for c in key_cols))
    run_rows = np.fromiter((row_index.get(k, -1) for k in keys), dtype=int, count=len(starts))
    rows = np.repeat(run_rows, np.diff(np.append(starts, size)))
    cols = np.fromiter(map(task_index.get, agg["base_task"].tolist(), itertools.repeat(-1)), dtype=int, count=size)
    keep = (rows >= 0) & (cols >= 0)
    present = np.zeros((shape_rows, len(tasks)), dtype=bool)
    present[rows[keep], cols[keep]] = True
    out = {}
    for name in names:
        values = np.full((shape_rows, len(tasks)), np.nan)
        values[rows[keep], cols[keep]] = agg[name][keep]
        out[name] = values
    return Tables(present, out)


def run_starts(columns: list[np.ndarray]) -> np.ndarray:
    """Positions where any of the (sorted) key columns changes value: the starts of runs.

    NULL keys come as masked entries (DuckDB's `fetchnumpy`): a change of mask is a change,
    and whatever lies under two masks may differ, which only splits a run of NULLs in two
    (each part is still one key)."""
    changed = np.zeros(len(columns[0]), dtype=bool)
    changed[0] = True
    for col in columns:
        data, mask = np.ma.getdata(col), np.ma.getmaskarray(col)
        changed[1:] |= (data[1:] != data[:-1]) | (mask[1:] != mask[:-1])
    return np.flatnonzero(changed)
