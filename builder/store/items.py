"""Per-item counters of the trials table, for paired comparisons (SAMPLES.md sections 3 and 5).

One task at a time, every trial of the wanted evaluations is summed per item: trials
(epochs), correct and truncated trials, and the guess sum (1/options over the completed
trials, as a point's `guess`). DuckDB turns the names into integers; the sums are counted in
numpy. Items are numbered within their `params` stratum in sample-id order and rows come
sorted by evaluation, so the statistics take them as dense integer arrays without touching a
string per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import lcm

import duckdb
import numpy as np

from .pointsdb import PointsDB


@dataclass(frozen=True)
class TaskItems:
    """One task's per-item counters of every evaluation: one row per (evaluation, item), items
    numbered within their stratum (`params`), whose ids `sample_ids` lists in sorted order.

    Indices and counts are int32, the guess sums float64: at 10,000 evaluations a task has
    about 15 million rows (442 MB held; 1.10 GB at the read's peak, counted with int32
    indices as well), and the paired phase may read the next task's while it holds one."""

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
    #: A common multiple of the task's option counts: guess sums times it are whole numbers.
    guess_unit: int = 27720

    @property
    def offsets(self) -> np.ndarray:
        """Where each stratum's items start, and (last) how many items the task has, when its
        items are numbered across the strata in (params, sample_id) order."""
        return np.cumsum([0, *(len(ids) for ids in self.sample_ids)])

    @property
    def column(self) -> np.ndarray:
        """Each row's item in that numbering: its column in an (evaluation, item) array."""
        found: np.ndarray = self.offsets[self.stratum] + self.item
        return found


#: Cells (evaluation and item, or stratum and sample) counted in a dense array below this
#: many (8 bytes each).
DENSE_CELLS = 1 << 24

_WANTED = """
CREATE OR REPLACE TEMP TABLE wanted AS
SELECT unnest(?::VARCHAR[]) AS model, unnest(?::VARCHAR[]) AS template, unnest(?::VARCHAR[]) AS sampler,
       unnest(?::INTEGER[]) AS evaluation
"""

#: The task's points (every evaluation's: the items are the task's, below), each with its
#: wanted evaluation's position (NULL: not wanted) and its stratum, its params' rank.
_POINTS = """
CREATE OR REPLACE TEMP TABLE item_points AS
SELECT p.point, w.evaluation, p.params, (dense_rank() OVER (ORDER BY p.params))::INTEGER AS stratum
FROM trial_points p LEFT JOIN wanted w USING (model, template, sampler) WHERE p.base_task = ?
"""

#: One row per trial of the task, as integers: which evaluation (-1: not wanted; its items
#: are the task's all the same), which item (stratum and sample), its outcome and options.
#: One scan of the trials per task; the items are numbered from these rows.
_TRIALS = """
SELECT coalesce(p.evaluation, -1)::INTEGER AS evaluation, p.stratum, t.sample, t.correct, t.truncated,
       coalesce(t.options, 0)::INTEGER AS options
FROM trials t JOIN item_points p USING (point)
"""


def _numbered(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct `values` (whole numbers below `size`), ascending, and each value's index
    among them (int32 when they fit: at 10,000 evaluations a task has about 15 million rows,
    and every 8 bytes per row is another 115 MB at the read's peak)."""
    if size <= DENSE_CELLS:  # counting beats sorting
        found = np.flatnonzero(np.bincount(values, minlength=size))
        lookup = np.zeros(size, dtype=_index_type(len(found)))
        lookup[found] = np.arange(len(found))
        return found, lookup[values]
    found, at = np.unique(values, return_inverse=True)
    return found, at.ravel().astype(_index_type(len(found)))


def _index_type(size: int) -> type[np.signedinteger]:
    """The narrowest of int32 and int64 holding every whole number below `size`."""
    return np.int32 if size < 2**31 else np.int64


def _counted(at: np.ndarray, size: int, where: np.ndarray | None = None) -> np.ndarray:
    """How many rows (or, with `where`, how many of those it marks) fall in each of `size`
    cells, as int32: whole numbers below 2**31 (the trials of one item)."""
    found: np.ndarray = np.bincount(at if where is None else at[where], minlength=size).astype(np.int32)
    return found


def has_trials(db: PointsDB) -> bool:
    """Whether the store holds any trial (a store made before trials were kept has no table)."""
    found = db.con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'trials'").fetchone()
    if not found or not found[0]:
        return False
    row = db.con.execute("SELECT EXISTS (SELECT 1 FROM trials)").fetchone()
    return bool(row and row[0])


def task_trials(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """How many trials the store holds of each task (from the analyses' per-task counts,
    trialsummary.py: a few rows per task, not a scan of the trials)."""
    return dict(con.execute("SELECT p.base_task, sum(c.trials)::BIGINT FROM trial_counts c "
                            "JOIN trial_points p ON p.point = c.task GROUP BY p.base_task").fetchall())


def task_items(con: duckdb.DuckDBPyConnection, task: str, evaluations: Sequence[tuple[str, str, str]]) -> TaskItems:
    """The per-item counters of `evaluations` (model, template, sampler) on `task`, each
    evaluation named by its position in `evaluations`, from the `trials` table (or view) of
    `con` (the PointsDB's, or published per-sample outcomes: diff/samples.py); the items are the task's in the store
    (SAMPLES.md section 3), each stratum's listed in `sample_ids`.

    DuckDB joins the points to evaluations and items and hands over one row per trial; the sums per
    (evaluation, item) are counted in numpy (grouping millions of rows by strings in SQL
    cost several times more). A guess sum adds `1/k` per completed trial with `k` options,
    counted per `k` and added in ascending `k`: the same sum whatever order the rows come in."""
    names = [list(col) for col in zip(*evaluations)] if evaluations else [[], [], []]
    con.execute(_WANTED, [*names, list(range(len(evaluations)))])
    con.execute(_POINTS, [task])
    cols = con.execute(_TRIALS).fetchnumpy()
    ranked = [p for _, p in con.execute("SELECT DISTINCT stratum, params FROM item_points ORDER BY 1").fetchall()]
    con.execute("DROP TABLE item_points")
    con.execute("DROP TABLE wanted")
    # The items answered (stratum, sample), numbered in (params, sample_id) order.
    top = int(np.max(cols["sample"], initial=-1)) + 1
    wide = _index_type(len(ranked) * top)
    key = cols.pop("stratum").astype(wide)
    key -= 1
    key *= top
    key += cols.pop("sample")
    found, of_row = _numbered(key, len(ranked) * top)
    del key
    named = dict(con.execute("SELECT sample, sample_id FROM trial_samples WHERE sample IN (SELECT unnest(?::INTEGER[]))",
                             [np.unique(found % top).tolist() if top else []]).fetchall())
    keys = sorted((int(k) // top, named[int(k) % top], i) for i, k in enumerate(found.tolist()))
    n = len(keys)
    wide = _index_type(len(evaluations) * n)
    code_of = np.empty(n, dtype=wide)
    code_of[[i for _, _, i in keys]] = np.arange(n)
    strata = sorted({s for s, _, _ in keys})  # the params with an item answered
    params = [ranked[q] for q in strata]
    sample_ids = tuple(tuple(sid for s, sid, _ in keys if s == q) for q in strata)
    sizes = np.array([len(ids) for ids in sample_ids], dtype=np.int64)
    wanted = np.asarray(cols["evaluation"]) >= 0
    if not wanted.all():  # usually every row is wanted: no copy of the columns then
        cols = {name: np.asarray(values)[wanted] for name, values in cols.items()}
        of_row = of_row[wanted]
    del wanted
    # Each array is dropped as soon as the next is made: the read's peak is a few of them.
    cell = cols.pop("evaluation").astype(wide)
    cell *= n
    cell += code_of[of_row]
    del of_row
    cells, at = _numbered(cell, len(evaluations) * n)
    del cell
    correct = np.asarray(cols.pop("correct"), dtype=bool)
    truncated = np.asarray(cols.pop("truncated"), dtype=bool)
    options = np.asarray(cols.pop("options"))
    completed = ~truncated & (options > 0)
    kinds = np.unique(options[completed]).tolist()
    guess = np.zeros(len(cells))
    for k in kinds:
        guess += np.bincount(at[completed & (options == k)], minlength=len(cells)) / k
    del options, completed
    cells = cells.astype(wide, copy=False)
    code = cells % n if n else cells
    ends = np.cumsum(sizes)
    stratum = np.searchsorted(ends, code, side="right")
    return TaskItems(
        task=task, params=tuple(params), sample_ids=sample_ids,
        evaluation=(cells // n if n else cells).astype(np.int32), stratum=stratum.astype(np.int32),
        item=(code - (ends - sizes)[stratum]).astype(np.int32),
        trials=_counted(at, len(cells)), correct=_counted(at, len(cells), correct),
        truncated=_counted(at, len(cells), truncated), guess=guess,
        guess_unit=lcm(1, *kinds))
