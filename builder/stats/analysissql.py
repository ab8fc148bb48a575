"""Running the per-sample analyses' SQL (`store/sql/analyses.sql`) on a connection.

The analyses read two relations that the caller provides on its DuckDB connection (a
PointsDB's, whose macros they use): `analysis_tasks`, each (evaluation, task) by number with
the run's recorded output-token limit, and `analysis_trials`, one row per trial with
SAMPLES.md section 1's outcome columns and its (evaluation, task), point and sample as
numbers. Keeping the names fixed keeps every table name out of formatted SQL;
the caller decides what they are (views over the PointsDB's trials, or a test's tables).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Sequence

from ..store.pointsdb import PointsDB, named_statements

SQL_FILE = "analyses.sql"
#: An evaluation: (model, template, sampler).
EvalKey = tuple[str, str, str]
#: A statement's column names and rows.
Rows = tuple[list[str], list[tuple[Any, ...]]]
#: The statements whose rows the analyses read, each grouped by evaluation first.
STATEMENTS = ("recorded", "compression", "hazard", "budget")


def picker(names: Sequence[str], *wanted: str) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """A function giving a row's values of the columns `wanted` (of a statement's `names`),
    in that order: the analyses read millions of rows at 2,500 evaluations, by position
    rather than through a dict made for each row."""
    return itemgetter(*(list(names).index(name) for name in wanted))


def install(db: PointsDB) -> None:
    """Create the analyses' macros (temporary: a read-only database gets them too)."""
    db.con.execute(named_statements(SQL_FILE)[0])


def query(db: PointsDB, name: str, params: Sequence[Any] = (),
          replace: tuple[str, str] | None = None) -> Rows:
    """The column names and rows of the named statement. `replace` substitutes one
    placeholder word with a name the caller took from a whitelist (never a value)."""
    install(db)
    sql = named_statements(SQL_FILE)[1][name]
    if replace is not None:
        sql = sql.replace(*replace)
    cur = db.con.execute(sql, list(params))
    return [d[0] for d in cur.description or ()], cur.fetchall()


def run_statements(db: PointsDB, estimator: str) -> dict[str, Rows]:
    """Every statement of `STATEMENTS`, the budget sweep's with the `estimator` macro (a name
    the caller took from a whitelist)."""
    return {name: query(db, name, replace=("ESTIMATOR", estimator) if name == "budget" else None)
            for name in STATEMENTS}
