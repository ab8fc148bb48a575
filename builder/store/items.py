"""Per-item counters of the trials table, for paired comparisons (SAMPLES.md sections 3 and 5).

One task at a time, every trial of the wanted evaluations is summed per item in DuckDB:
trials (epochs), correct and truncated trials, and the guess sum (1/options over the
completed trials, as a point's `guess`). Items are numbered within their `params` stratum
in sample-id order and rows come sorted by evaluation, so the statistics take them as dense
integer arrays without touching a string per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .pointsdb import PointsDB


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


_ITEMS = """
WITH wanted AS (SELECT unnest(?::VARCHAR[]) AS model, unnest(?::VARCHAR[]) AS template,
                       unnest(?::VARCHAR[]) AS sampler, unnest(?::INTEGER[]) AS evaluation),
     summed AS (
    SELECT w.evaluation, t.params, t.sample_id, count(*) AS trials,
           count(*) FILTER (WHERE t.correct) AS correct, count(*) FILTER (WHERE t.truncated) AS truncated,
           coalesce(fsum(1.0 / t.options) FILTER (WHERE NOT t.truncated AND t.options IS NOT NULL), 0) AS guess
    FROM trials t JOIN wanted w USING (model, template, sampler)
    WHERE t.base_task = ?
    GROUP BY w.evaluation, t.params, t.sample_id)
SELECT s.evaluation, k.stratum, k.item, s.trials, s.correct, s.truncated, s.guess
FROM summed s JOIN keys k USING (params, sample_id)
ORDER BY s.evaluation, k.stratum, k.item
"""

_KEYS = """
CREATE OR REPLACE TEMP TABLE keys AS
SELECT params, sample_id, dense_rank() OVER (ORDER BY params) - 1 AS stratum,
       row_number() OVER (PARTITION BY params ORDER BY sample_id) - 1 AS item
FROM (SELECT DISTINCT t.params, t.sample_id FROM trials t
      JOIN (SELECT unnest(?::VARCHAR[]) AS model, unnest(?::VARCHAR[]) AS template,
                   unnest(?::VARCHAR[]) AS sampler) w USING (model, template, sampler)
      WHERE t.base_task = ?)
"""


def has_trials(db: PointsDB) -> bool:
    """Whether the store holds any trial (a store made before trials were kept has no table)."""
    found = db.con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'trials'").fetchone()
    if not found or not found[0]:
        return False
    row = db.con.execute("SELECT EXISTS (SELECT 1 FROM trials)").fetchone()
    return bool(row and row[0])


def task_items(db: PointsDB, task: str, evaluations: Sequence[tuple[str, str, str]]) -> TaskItems:
    """The per-item counters of `evaluations` (model, template, sampler) on `task`, each
    evaluation named by its position in `evaluations`. The items are those the given
    evaluations answered (the union of their items, SAMPLES.md section 3)."""
    names = [list(col) for col in zip(*evaluations)] if evaluations else [[], [], []]
    con = db.con
    con.execute(_KEYS, [*names, task])
    keys = con.execute("SELECT params, list(sample_id ORDER BY item) FROM keys GROUP BY stratum, params "
                       "ORDER BY stratum").fetchall()
    cols = con.execute(_ITEMS, [*names, list(range(len(evaluations))), task]).fetchnumpy()
    con.execute("DROP TABLE keys")
    return TaskItems(
        task=task, params=tuple(str(p) for p, _ in keys), sample_ids=tuple(tuple(ids) for _, ids in keys),
        evaluation=np.asarray(cols["evaluation"], dtype=np.int64), stratum=np.asarray(cols["stratum"], dtype=np.int64),
        item=np.asarray(cols["item"], dtype=np.int64), trials=np.asarray(cols["trials"], dtype=np.int64),
        correct=np.asarray(cols["correct"], dtype=np.int64), truncated=np.asarray(cols["truncated"], dtype=np.int64),
        guess=np.asarray(cols["guess"], dtype=np.float64))
