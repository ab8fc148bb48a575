"""Trials stored as integers (schema.sql: `trials`, `trial_points`, `trial_samples`).

A trials file repeats a few names over many rows: its evaluation, task and params on every
trial, a sample id on each of its epochs. The store keeps each (file, evaluation, task,
params) once as a numbered point and each sample id once as a numbered sample; a trial is
then a row of integers, flags and counts. Storing 36 million trials this way costs a
fraction of storing their names, and every grouping after it (trials into samples, samples
into points, items for paired tests) compares integers.

The trials arrive as a relation that names them as a trials file does (`raw`: the file's
name as `filename`, the columns as written, `tiers`, `source_row`); `trial_files` maps each
`filename` to its `source` (the name relative to the data dir). `group_points` reads the
relation once into its points as written (`raw_points`, a few thousand rows, where names
are trimmed and params made canonical: never per trial), `store` reads it again to store
its trials as integers.
"""

from __future__ import annotations

from typing import Any, Sequence

import duckdb

from .trialsummary import remove_summaries, summarise_trials

#: The identity of a point as written in a trials file (before trimming and canonical params).
WRITTEN = "filename, model, template, sampler, base_task, params"


def group_points(con: duckdb.DuckDBPyConnection, raw: str, parameters: Sequence[Any], flagged: str) -> None:
    """`raw_points`: each point of `raw` as written, with its least tier labels, whether any
    of its trials meets the SQL condition `flagged` (a bad value, looked for in detail only
    then) and its trials with partial credit (INGEST.md section 3; the credit is not stored);
    `fresh_samples`: the sample ids `raw` holds."""
    con.execute(f"""CREATE OR REPLACE TEMP TABLE raw_points AS
                    SELECT {WRITTEN}, min(tiers) AS tiers, coalesce(bool_or({flagged}), false) AS flagged,
                           count(*) FILTER (WHERE credit > 0 AND credit < 1) AS partial
                    FROM {raw} GROUP BY {WRITTEN}""", list(parameters))
    con.execute(f"CREATE OR REPLACE TEMP TABLE fresh_samples AS SELECT DISTINCT sample_id FROM {raw}",
                list(parameters))


def store(con: duckdb.DuckDBPyConnection, raw: str, parameters: Sequence[Any]) -> int:
    """Number the points of `raw_points` (names trimmed, params through the temp table
    `canonical` (raw, canon) where it lists them) after the stored ones and add them to
    `trial_points`, the new sample ids to `trial_samples`, and every trial of `raw` to
    `trials`; `raw_map` keeps each point as written with its number and its trials with
    partial credit. Returns the first new point's number: the fresh points are those from
    it on. Numbers follow the names' order, so the same files give the same tables."""
    first = _next(con, "trial_points", "point")
    con.execute(
        """CREATE OR REPLACE TEMP TABLE raw_map AS
           SELECT r.filename, r.model, r.template, r.sampler, r.base_task, r.params, f.source,
                  trim(r.model) AS t_model, trim(r.template) AS t_template, trim(r.sampler) AS t_sampler,
                  trim(r.base_task) AS t_base_task, coalesce(c.canon, r.params) AS t_params, r.tiers, r.partial
           FROM raw_points r JOIN trial_files f USING (filename) LEFT JOIN canonical c ON c.raw = r.params""")
    con.execute(
        """INSERT INTO trial_points
           SELECT ? + row_number() OVER (ORDER BY source, t_model, t_template, t_sampler, t_base_task, t_params) - 1,
                  source, t_model, t_template, t_sampler, t_base_task, t_params, min(tiers)
           FROM raw_map GROUP BY source, t_model, t_template, t_sampler, t_base_task, t_params""", [first])
    con.execute(
        """CREATE OR REPLACE TEMP TABLE raw_map AS
            SELECT m.filename, m.model, m.template, m.sampler, m.base_task, m.params, m.partial, p.point FROM raw_map m
            JOIN trial_points p ON p.point >= ? AND p.source = m.source AND p.model = m.t_model
                 AND p.template = m.t_template AND p.sampler = m.t_sampler AND p.base_task = m.t_base_task
                 AND p.params = m.t_params""", [first])
    con.execute("""INSERT INTO trial_samples
                   SELECT ? + row_number() OVER (ORDER BY sample_id) - 1, sample_id
                   FROM fresh_samples ANTI JOIN trial_samples USING (sample_id)""",
                [_next(con, "trial_samples", "sample")])
    con.execute(
        f"""INSERT INTO trials
            SELECT m.point, s.sample, r.epoch, r.correct, r.truncated, r.options, r.tokens, r.compressed
            FROM {raw} r JOIN raw_map m USING ({WRITTEN}) JOIN trial_samples s USING (sample_id)""",
        list(parameters))
    con.execute("DROP TABLE fresh_samples")
    return first


def _next(con: duckdb.DuckDBPyConnection, table: str, column: str) -> int:
    """The number after the largest of `column` in `table` (1 when it is empty)."""
    row = con.execute(f"SELECT coalesce(max({column}), 0) + 1 FROM {table}").fetchone()
    return int(row[0]) if row else 1


def remove_sources(con: duckdb.DuckDBPyConnection, kept: str) -> None:
    """Remove the trials, points and summaries (trialsummary.py) of every trials file not in
    the relation `kept` (one column, `source`). Sample ids stay numbered: a later file may name them again."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE removed_points AS SELECT point FROM trial_points "
                f"WHERE source NOT IN (SELECT source FROM {kept})")
    con.execute("DELETE FROM trials WHERE point IN (SELECT point FROM removed_points)")
    remove_summaries(con, "removed_points")
    con.execute("DELETE FROM trial_points WHERE point IN (SELECT point FROM removed_points)")
    con.execute("DROP TABLE removed_points")


#: Every stored trial with its names, as a trials file gives them (for what reads few rows).
NAMED = """(SELECT p.model, p.template, p.sampler, p.base_task, p.params, s.sample_id, t.epoch, t.correct,
                   t.truncated, t.options, t.tokens, t.compressed, p.tiers, p.source
            FROM trials t JOIN trial_points p USING (point) JOIN trial_samples s USING (sample))"""


def copy_named(con: duckdb.DuckDBPyConnection, relation: str) -> None:
    """Add the trials of `relation`, a table naming them (an earlier PointsDB's `trials`,
    whose rows were checked when it was written: names trimmed, params canonical), and
    their summaries (the budget sweep's, which read the evaluations, by the caller)."""
    raw = f"(SELECT source AS filename, * EXCLUDE (source) FROM {relation})"
    con.execute(f"CREATE OR REPLACE TEMP TABLE trial_files AS SELECT DISTINCT source AS filename, source "
                f"FROM {relation}")
    con.execute("CREATE OR REPLACE TEMP TABLE canonical (raw VARCHAR, canon VARCHAR)")
    group_points(con, raw, [], "false")
    summarise_trials(con, store(con, raw, []), totals=None)
    for table in ("trial_files", "canonical", "raw_points", "raw_map"):
        con.execute(f"DROP TABLE {table}")
