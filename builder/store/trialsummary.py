"""What the per-sample analyses read of each (evaluation, task)'s trials, summed once as the
trials are stored (SAMPLES.md section 6; the `sum_*` statements of sql/analyses.sql).

The analyses group a task's trials by outcome (compression quartiles), by bin of output
tokens (the hazard and the recorded counts) and, at each budget, into points and samples
(the budget sweep). Summed here, in the same transaction that stores the trials, their rows
are kept beside them (`trial_counts`, `trial_outcomes`, `trial_budgets`) and removed with
them (trialcodes.py `remove_sources`), so the statistics read a few rows per task and never
the trials: a cached PointsDB's summaries are those of the trials it holds.

Counts and quartiles depend on the trials alone and are summed when a file's trials are
stored (`summarise_trials`). The budget sweep also depends on the run's token limit, from
`evals.json`, which the same part of the store reads after the trials: `summarise_budgets`
runs then, sums the tasks that have no sums for their current limit and drops the others.
Quartiles hold every value of a group in memory, which DuckDB does not spill, so the trials
are read in batches of whole tasks (`BATCH_TRIALS`): the memory taken is the batch's.
"""

from __future__ import annotations

import duckdb
import numpy as np

from ..sources.trials import ANSWER_CAP
from .pointsdb import named_statements
from .setup import TOKEN_LIMIT_KEYS

SQL_FILE = "analyses.sql"
#: Trials summed at once (a larger task alone).
BATCH_TRIALS = 4_000_000

#: The run's token limit under each harness's spelling, in the order `with_token_limit`
#: (setup.py) takes them: an lm-eval run records `max_gen_toks`, not `max_tokens`.
_LIMIT_COLUMNS = ", ".join(f"TRY_CAST(json_extract_string(generation_args, '$.{key}') AS BIGINT)"
                           for key in TOKEN_LIMIT_KEYS)

#: Each (evaluation, task) of a trials file, numbered `et` by its smallest point (a file's
#: points are numbered together: its tasks' numbers are runs of their own), with the run's
#: token limit (a limit of `ANSWER_CAP` tokens or fewer caps an answer letter, not a
#: generation: `answer_cap`, and no limit).
TASKS = f"""
SELECT min(point)::INTEGER AS et, model, template, sampler, base_task,
       CASE WHEN any_value(token_limit) > {int(ANSWER_CAP)} THEN any_value(token_limit) END AS token_limit,
       CASE WHEN any_value(token_limit) <= {int(ANSWER_CAP)} THEN any_value(token_limit) END AS answer_cap
FROM trial_points
LEFT JOIN (SELECT model, template, sampler, coalesce({_LIMIT_COLUMNS}) AS token_limit FROM evaluations)
    USING (model, template, sampler)
GROUP BY source, model, template, sampler, base_task
"""

#: Each point of a trials file with its task's number (`TASKS`' `et`).
_POINT_TASKS = ("SELECT point, min(point) OVER (PARTITION BY source, model, template, sampler, base_task) AS et "
                "FROM trial_points")


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create the analyses' macros (temporary: a read-only database gets them too)."""
    con.execute(named_statements(SQL_FILE)[0])


def summarise_trials(con: duckdb.DuckDBPyConnection, first: int, totals: str | None = "point_trials") -> None:
    """Sum the trials of the points numbered from `first` (whole tasks: the trials files
    just stored) into `trial_counts` and `trial_outcomes`; `totals` is a relation of
    (point, total) giving each point's trials (staging has one; None: they are counted)."""
    if totals is None:
        totals = "(SELECT point, count(*) AS total FROM trials WHERE point >= $first GROUP BY point)"
    con.execute(f"CREATE OR REPLACE TEMP TABLE summary_points AS {_POINT_TASKS} WHERE point >= ?", [first])
    sizes = con.execute(f"""SELECT s.et, sum(c.total)::BIGINT AS total FROM summary_points s
                            JOIN (SELECT point, total FROM {totals} WHERE point >= $first) c USING (point)
                            GROUP BY s.et ORDER BY s.et""", {"first": first}).fetchnumpy()
    install(con)
    statements = named_statements(SQL_FILE)[1]
    for low, high in _ranges(sizes["et"], sizes["total"]):
        _batch(con, low, high)
        con.execute(f"INSERT INTO trial_counts {statements['sum_counts']}")
        con.execute(f"INSERT INTO trial_outcomes {statements['sum_outcomes']}")
    _drop(con)


def summarise_budgets(con: duckdb.DuckDBPyConnection) -> None:
    """Bring `trial_budgets` to the token limits the evaluations now record: the sums of a
    task whose limit changed (or that now has none, or some trial without its tokens) go,
    and each task with a limit and every trial's tokens, but no sums for that limit, is
    summed (after the evaluations are stored, once per change of the trials or the limit)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE summary_tasks AS {TASKS}")
    con.execute("""CREATE OR REPLACE TEMP TABLE summary_wanted AS
                   SELECT t.et, t.token_limit FROM summary_tasks t
                   JOIN (SELECT task AS et, bool_or(untold) AS untold FROM trial_counts GROUP BY task) c USING (et)
                   WHERE t.token_limit IS NOT NULL AND NOT c.untold""")
    con.execute("""DELETE FROM trial_budgets WHERE NOT EXISTS (
                       SELECT 1 FROM summary_wanted w WHERE w.et = trial_budgets.task
                       AND w.token_limit = trial_budgets.token_limit)""")
    con.execute("""CREATE OR REPLACE TEMP TABLE analysis_tasks AS
                   SELECT * FROM summary_tasks SEMI JOIN (SELECT et FROM summary_wanted
                                                          ANTI JOIN (SELECT task AS et FROM trial_budgets) USING (et))
                   USING (et)""")
    con.execute(f"CREATE OR REPLACE TEMP TABLE summary_points AS SELECT * FROM ({_POINT_TASKS}) "
                "SEMI JOIN analysis_tasks USING (et)")
    sizes = con.execute("""SELECT task AS et, sum(trials)::BIGINT AS total FROM trial_counts
                           SEMI JOIN (SELECT et AS task FROM analysis_tasks) USING (task)
                           GROUP BY task ORDER BY task""").fetchnumpy()
    install(con)
    statement = named_statements(SQL_FILE)[1]["sum_budgets"]
    for low, high in _ranges(sizes["et"], sizes["total"]):
        _batch(con, low, high)
        con.execute(f"INSERT INTO trial_budgets {statement}")
    _drop(con)
    con.execute("DROP TABLE IF EXISTS summary_tasks")
    con.execute("DROP TABLE IF EXISTS summary_wanted")


def remove_summaries(con: duckdb.DuckDBPyConnection, removed: str) -> None:
    """Drop the summaries of the tasks whose points the relation `removed` (one column,
    `point`) lists (their trials go with them)."""
    for table in ("trial_counts", "trial_outcomes", "trial_budgets"):
        con.execute(f"DELETE FROM {table} WHERE task IN (SELECT point FROM {removed})")


def _batch(con: duckdb.DuckDBPyConnection, low: int, high: int) -> None:
    """`analysis_trials` over the trials of the tasks numbered `low` to `high` of
    `summary_points` (point, et)."""
    con.execute("CREATE OR REPLACE TEMP TABLE analysis_points AS SELECT point, et FROM summary_points "
                "WHERE et BETWEEN ? AND ?", [low, high])
    con.execute("""CREATE OR REPLACE TEMP VIEW analysis_trials AS
                   SELECT a.et, t.point, t.sample, t.epoch, t.correct, t.truncated, t.options, t.tokens, t.compressed
                   FROM trials t JOIN analysis_points a USING (point)""")


def _drop(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DROP VIEW IF EXISTS analysis_trials")
    for table in ("analysis_points", "summary_points", "analysis_tasks"):
        con.execute(f"DROP TABLE IF EXISTS {table}")


def _ranges(tasks: np.ndarray, totals: np.ndarray) -> list[tuple[int, int]]:
    """Ranges [low, high] of task numbers (sorted), each of whole tasks with at most
    `BATCH_TRIALS` trials between them (a larger task alone)."""
    ranges: list[tuple[int, int]] = []
    held = BATCH_TRIALS + 1
    for task, total in zip(tasks.tolist(), totals.tolist()):
        if held + total > BATCH_TRIALS:
            ranges.append((task, task))
            held = 0
        ranges[-1] = (ranges[-1][0], task)
        held += total
    return ranges
