"""The PointsDB: a DuckDB database of evaluation points, evaluations and reported results.

The statistics never loop over points in Python: they ask `aggregate()` for summed
counters and estimates, and DuckDB does the work with the macros of `sql/macros.sql`
(STATISTICS.md sections 1-3). Column names in queries come from fixed whitelists and
every value is a bound parameter, so no data is ever formatted into SQL.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence, TypeVar

import duckdb
import numpy as np

from ..vocabulary import MODES

SQL_DIR = Path(__file__).parent / "sql"
#: The share of the machine's memory DuckDB's buffer pool may take for a PointsDB, and its
#: bounds. DuckDB's default, 80 %, let one 2,500-evaluation build with trials (36 million)
#: reach 18.7 GB grouping the trials by sample; bounded, DuckDB spills such groupings to
#: disk, so the build's memory does not grow with its trials. The per-sample analyses'
#: quantiles, which do not spill, read a bounded batch of trials at a time
#: (stats/analyses.py). Measured on the demo's 625 evaluations (9 million trials): the same
#: CPU time with 1 GB as with 8 GB.
MEMORY_SHARE, MEMORY_FLOOR, MEMORY_CAP = 0.1, 512 << 20, 1 << 30


def memory_limit() -> str:
    """DuckDB's `memory_limit` for a PointsDB: `MEMORY_SHARE` of the machine, within bounds."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 0
    return f"{min(max(int(total * MEMORY_SHARE), MEMORY_FLOOR), MEMORY_CAP) >> 20}MB"
IDENTITY = ("model", "template", "sampler", "base_task", "params")
EVALUATION = ("model", "template", "sampler")
#: Columns `aggregate()` may group or filter by. `tier` and `group` unnest the lists;
#: `param:<name>` groups by one difficulty coordinate; `param_level` by every coordinate at
#: once (each point counts once per coordinate: columns `param_name`, `param_value`).
GROUPABLE = {
    "model": "model",
    "template": "template",
    "sampler": "sampler",
    "base_task": "base_task",
    "params": "params",
    "tier": "tier",
    "group": "grp",
    "param_level": "param_name, param_value",
}
FILTERABLE = ("model", "template", "sampler", "base_task", "params", "tiers", "groups")
#: Columns a `KeySet` may name: the identity's, plain text (not the label lists).
KEY_COLUMNS = IDENTITY
#: The summed counters of `aggregate()`: the effective ones the estimators read (SAMPLES.md
#: section 2: each point's divided by its design effect), tokens, and the raw counts.
COUNTERS = ("n", "n_t", "n_e", "g", "tok", "points", "trials", "trials_truncated", "trials_correct", "trials_guess",
            "samples", "sampled", "partial")
#: The type the fractional counters (guess, tokens) are summed in: fixed-point decimals add
#: exactly, so a group's sum does not depend on the order its points are stored or read in
#: (an incremental ingest keeps another order than a fresh one, and DuckDB's threads split
#: a table where they like). Twelve decimals put a guess of 1/3 within 5e-13 of its double;
#: 26 integer digits hold a group's sum of tokens (store/checks.py bounds them below 10^18
#: a point) and of guesses (each at most its point's total, a BIGINT: a group would need
#: ten million points of 10^19 trials to overflow).
EXACT = "DECIMAL(38,12)"


def sql_string(text: str | Path) -> str:
    """`text` as a quoted SQL string literal. For a file name where DuckDB takes no
    placeholder before 2.0 (`ATTACH ?`), or binds it out of order (`COPY ... TO ?`)."""
    return "'" + str(text).replace("'", "''") + "'"


def load_sql(name: str) -> str:
    return (SQL_DIR / name).read_text(encoding="utf-8")


_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


@cache
def named_statements(name: str) -> tuple[str, dict[str, str]]:
    """A SQL file of named statements: the part before the first `-- name: x` line (tables or
    macros to create first), and each statement by its name."""
    parts = _NAME.split(load_sql(name))
    rest = parts[1:]
    return parts[0], {rest[i]: rest[i + 1].strip() for i in range(0, len(rest), 2)}


Record = TypeVar("Record")


def record_fields(record: type) -> tuple[str, ...]:
    """The field names of a NamedTuple or a dataclass, in order."""
    named: tuple[str, ...] | None = getattr(record, "_fields", None)
    return named if named is not None else tuple(f.name for f in dataclasses.fields(record))


def picker(description: Sequence[Sequence[Any]] | None, record: type,
           query: str = "query") -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """A function taking a result row to `record`'s field values, each from the column of
    the field's name (reordering a statement's columns cannot move a value to
    another field, and a missing column is an error, not a shifted row)."""
    at = {d[0]: i for i, d in enumerate(description or ())}
    fields = record_fields(record)
    absent = [f for f in fields if f not in at]
    if absent:
        raise KeyError(f"{query} has no column {', '.join(absent)}")
    positions = [at[f] for f in fields]
    return lambda row: tuple(row[i] for i in positions)


def fetch_as(cursor: duckdb.DuckDBPyConnection, record: type[Record], query: str = "query") -> list[Record]:
    """The rows of an executed query as `record`s (a NamedTuple or a dataclass), by column name."""
    pick = picker(cursor.description, record, query)
    make: Callable[..., Record] = record
    return [make(*pick(row)) for row in cursor.fetchall()]


@dataclass(frozen=True)
class Aggregate:
    """Columns of an `aggregate()` result, as numpy arrays keyed by name."""

    columns: dict[str, np.ndarray]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def rows(self) -> list[dict[str, Any]]:
        names = list(self.columns)
        return [dict(zip(names, values)) for values in zip(*(self.columns[n].tolist() for n in names))]


@dataclass(frozen=True)
class KeySet:
    """The combinations of key values a point must match to be aggregated: `columns` (from
    `KEY_COLUMNS`) and one tuple of their values per combination. A filter on each column
    alone would match the cross product; this matches only the rows given (a semi-join)."""

    columns: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]


class TaskParams(NamedTuple):
    base_task: str
    names: list[str]


class PointsDB:
    """A connection to a PointsDB file (or an in-memory one) with its macros installed."""

    def __init__(self, path: str | Path | None = None, read_only: bool = False):
        self.path = Path(path) if path else None
        self.con = duckdb.connect(str(path) if path else ":memory:", read_only=read_only)
        self.con.execute("SET enable_progress_bar = false")
        # Past its buffer pool, DuckDB spills large groupings to disk instead of growing the
        # process: next to a file database; an in-memory one gets a private folder.
        self._spill = None if path else tempfile.TemporaryDirectory(prefix="reasonboard-spill-")
        if self._spill is not None:
            self.con.execute("SET temp_directory = ?", [self._spill.name])
        self.con.execute(f"SET memory_limit = '{memory_limit()}'")
        if not read_only:
            self.con.execute(load_sql("schema.sql"))
        # Macros are temporary so that a read-only database still gets them.
        self.con.execute(load_sql("macros.sql").replace("CREATE OR REPLACE MACRO", "CREATE OR REPLACE TEMP MACRO"))

    def one_thread(self) -> None:
        """Run every later query on one thread: for when another process of the build works
        beside this one (build.py), whose core a second DuckDB thread would only contend
        for (measured at 2,500 evaluations: the signals take 1.50 s instead of 1.71 s)."""
        self.con.execute("SET threads = 1")

    def close(self) -> None:
        self.con.close()
        if self._spill is not None:
            self._spill.cleanup()

    def __enter__(self) -> PointsDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata ----------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])

    # -- queries -----------------------------------------------------------------------

    def tasks(self) -> list[str]:
        """Every base_task in the database, sorted by name (the default task set)."""
        return [r[0] for r in self.con.execute("SELECT DISTINCT base_task FROM points ORDER BY 1").fetchall()]

    def evaluations(self) -> list[dict[str, Any]]:
        """One dict per evaluation that has points, joined with its evals.json entry."""
        cur = self.con.execute(
            """
            SELECT p.model, p.template, p.sampler, e.label, coalesce(e.groups, []) AS groups,
                   e.hf_id, e.organization, e.relationship,
                   coalesce(e.generation_args, '{}') AS generation_args, e.harness,
                   coalesce(e.simulated, false) AS simulated,
                   coalesce(e.truncation_observed, true) AS truncation_observed,
                   coalesce(e.tokens_observed, true) AS tokens_observed,
                   e.price_in, e.price_out, e.price_source, e.price_date,
                   coalesce(e.likelihood_tasks, []) AS likelihood_tasks,
                   coalesce(e.harness_scores, '{}') AS harness_scores, p.trial_files
            FROM (SELECT model, template, sampler,
                         coalesce(list(DISTINCT source ORDER BY source) FILTER (WHERE starts_with(source, 'trials/')),
                                  []) AS trial_files
                  FROM points GROUP BY ALL) p
            LEFT JOIN evaluations e USING (model, template, sampler)
            ORDER BY p.model, p.template, p.sampler
            """
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def task_items(self, evaluations: Sequence[tuple[str, str, str]]) -> dict[str, int]:
        """Per task, its items (SAMPLES.md section 3): the distinct (params, sample_id) that
        any of `evaluations` answered in its trials; tasks without trials are absent."""
        rows = self.con.execute(
            """
            WITH wanted AS (
                SELECT point, base_task, dense_rank() OVER (ORDER BY base_task, params) AS stratum FROM trial_points
                SEMI JOIN (SELECT unnest(?::VARCHAR[]) AS model, unnest(?::VARCHAR[]) AS template,
                                  unnest(?::VARCHAR[]) AS sampler) USING (model, template, sampler)
            ), items AS (SELECT DISTINCT stratum, sample FROM trials JOIN wanted USING (point))
            SELECT base_task, count(*) FROM items JOIN (SELECT DISTINCT stratum, base_task FROM wanted) USING (stratum)
            GROUP BY base_task ORDER BY base_task
            """, [[e[0] for e in evaluations], [e[1] for e in evaluations], [e[2] for e in evaluations]]).fetchall()
        return {task: int(items) for task, items in rows}

    def param_names(self) -> dict[str, list[str]]:
        """The difficulty coordinates of each task: the keys of its `params` objects."""
        rows = fetch_as(self.con.execute(
            """
            SELECT base_task, list(DISTINCT k ORDER BY k) AS names
            FROM (SELECT DISTINCT base_task, unnest(json_keys(params::JSON)) AS k FROM points)
            GROUP BY base_task ORDER BY base_task
            """
        ), TaskParams)
        return {r.base_task: r.names for r in rows}

    def aggregate(
        self,
        filters: Mapping[str, Any] | None = None,
        group_by: Sequence[str] = ("model", "template", "sampler", "base_task"),
        mode: str | Iterable[str] = "C_P",
        among: KeySet | None = None,
    ) -> Aggregate:
        """Sum the counters of the matching points per group and apply estimators.

        `filters` maps a column to a value or a list of accepted values (`tiers` and
        `groups` match when a point carries any of the listed labels). `group_by` takes
        columns of `GROUPABLE` and `param:<name>`. `mode` is one mode or several; the
        result has the `COUNTERS` (`n, n_t, n_e, g` effective: each point's counters divided
        by its design effect, SAMPLES.md section 2, as every estimator reads them; `tok` and
        the `trials*` and `samples` counts raw) and, per mode, `<mode>_est`, `<mode>_low`,
        `<mode>_high` (plus unprefixed `est, low, high` when one mode is asked for).
        `among` keeps only the points whose key columns match one of its rows, before any
        unnesting, so the points outside it cost only the join.
        Groups come back sorted by the group keys, so results are deterministic.
        """
        modes = [mode] if isinstance(mode, str) else list(mode)
        for m in modes:
            if m not in (*MODES, "V1"):
                raise ValueError(f"unknown estimator mode {m!r}")
        where, params = self._where(filters or {})
        select_keys: list[str] = []
        unnest: list[str] = []
        levels = False
        key_names: list[str] = []
        for key in group_by:
            if key.startswith("param:"):
                alias = f"param_{len(key_names)}"
                select_keys.append(f"json_extract_string(params, ?) AS {alias}")
                key_names.append(alias)
            elif key in GROUPABLE:
                if key == "tier":
                    unnest.append("unnest(CASE WHEN len(tiers) = 0 THEN [NULL] ELSE tiers END) AS tier")
                elif key == "group":
                    unnest.append("unnest(CASE WHEN len(groups) = 0 THEN [NULL] ELSE groups END) AS grp")
                elif key == "param_level":
                    levels = True
                select_keys.append(GROUPABLE[key])
                key_names.extend(GROUPABLE[key].split(", "))
            else:
                raise ValueError(f"cannot group by {key!r}")
        # Parameters for json paths appear in the SELECT list, before the WHERE clause.
        path_params = [f"$.{k.split(':', 1)[1]}" for k in group_by if k.startswith("param:")]
        source, among_params = self._among(among)
        # One unnest per subquery: unnests in one SELECT would pair list elements up
        # (zip) instead of crossing them, so `("tier", "group")` would lose combinations.
        for expr in unnest:
            source = f"(SELECT *, {expr} FROM {source})"
        if levels:
            # One row per (point, coordinate): json_each reads each object once, where
            # json_keys and then a json_extract_string per key read it once per key
            # (a quarter of the curves aggregate). Non-object params have no coordinates,
            # as json_keys gives none for them; canonical params have no repeated keys.
            source = (f"(SELECT s.*, e.key AS param_name, e.value ->> '$' AS param_value FROM {source} s, "
                      "json_each(CASE WHEN json_type(s.params) = 'OBJECT' THEN s.params END) e)")
        # Each mode's own macro, named from the whitelist above: the generic `estimate(mode, ...)`
        # CASE would inline all seven estimators per mode and make planning slow.
        estimates = [f"est_{m.lower()}(n, n_t, n_e, g) AS {m.lower()}" for m in modes]
        keys_sql = ", ".join(select_keys)
        inner = f"""
            SELECT {keys_sql}{',' if keys_sql else ''}
                   sum((total / deff)::{EXACT})::DOUBLE AS n, sum((truncated / deff)::{EXACT})::DOUBLE AS n_t,
                   sum((correct / deff)::{EXACT})::DOUBLE AS n_e, sum((guess / deff)::{EXACT})::DOUBLE AS g,
                   sum(tokens::{EXACT})::DOUBLE AS tok, count(*)::BIGINT AS points,
                   sum(total)::DOUBLE AS trials, sum(truncated)::DOUBLE AS trials_truncated,
                   sum(correct)::DOUBLE AS trials_correct, sum(guess::{EXACT})::DOUBLE AS trials_guess,
                   sum(samples)::DOUBLE AS samples,
                   count(*) FILTER (WHERE starts_with(source, 'trials/'))::DOUBLE AS sampled,
                   coalesce(sum(partial)::DOUBLE, 'NaN'::DOUBLE) AS partial
            FROM {source} {where}
            {'GROUP BY ALL' if keys_sql else ''}
        """
        order = ", ".join(f"{k} NULLS FIRST" for k in key_names)
        sql = f"""
            SELECT * EXCLUDE ({', '.join(m.lower() for m in modes)}),
                   {', '.join(f"{m.lower()}.est AS {m}_est, {m.lower()}.low AS {m}_low, {m.lower()}.high AS {m}_high"
                              for m in modes)}
            FROM (SELECT *, {', '.join(estimates)} FROM ({inner}))
            {'ORDER BY ' + order if order else ''}
        """
        cur = self.con.execute(sql, [*path_params, *among_params, *params])
        names = [d[0] for d in cur.description]
        data = cur.fetchnumpy()
        columns = {name: np.asarray(data[name]) for name in names}
        if len(modes) == 1:
            m = modes[0]
            for part in ("est", "low", "high"):
                columns[part] = columns[f"{m}_{part}"]
        return Aggregate(columns)

    @staticmethod
    def _among(among: KeySet | None) -> tuple[str, list[Any]]:
        """The points a `KeySet` selects, as a FROM source and its parameters: a semi-join
        with the combinations, bound as one list per column (unnests in one SELECT pair
        their elements up, making a row per combination)."""
        if among is None:
            return "points", []
        columns = among.columns
        if not columns or len(set(columns)) != len(columns) or any(c not in KEY_COLUMNS for c in columns):
            raise ValueError(f"cannot select points by {columns!r}")
        if any(len(row) != len(columns) for row in among.rows):
            raise ValueError(f"a row of the key set does not have the {len(columns)} columns {columns!r}")
        keys = ", ".join(f"unnest(?::VARCHAR[]) AS {c}" for c in columns)
        source = f"(SELECT points.* FROM points SEMI JOIN (SELECT {keys}) wanted USING ({', '.join(columns)}))"
        return source, [[str(row[k]) for row in among.rows] for k in range(len(columns))]

    @staticmethod
    def _where(filters: Mapping[str, Any]) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        params: list[Any] = []
        for key in sorted(filters):
            value = filters[key]
            if key not in FILTERABLE:
                raise ValueError(f"cannot filter by {key!r}")
            values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
            if key in ("tiers", "groups"):
                clauses.append(f"list_has_any({key}, ?::VARCHAR[])")
            else:
                clauses.append(f"{key} IN (SELECT unnest(?::VARCHAR[]))")
            params.append([str(v) for v in values])
        return ("WHERE " + " AND ".join(clauses) if clauses else ""), params
