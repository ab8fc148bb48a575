"""The PointsDB tables of reported results and benchmark cards, and the SQL the signals run.

`sql/results.sql` holds the table definitions (its first block) and named statements
(`-- name: x` blocks). `ResultsStore` creates the tables, bulk-inserts columns that the
signals loader prepared, and runs the named statements with bound parameters. Bulk
inserts go through DuckDB's scan of registered numpy columns: one statement per table,
not one per row, so the 35,586 results of the real corpus load in well under a second.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np

from .pointsdb import PointsDB, load_sql

SQL_FILE = "results.sql"
TABLES = ("reported_rows", "reported_dropped", "cards", "card_keys", "card_fields", "card_risks")
#: Where `insert()` may write: the persistent tables and two per-build temporary tables.
INSERTABLE = (*TABLES, "own_rows", "completeness_catalogue")
_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


@lru_cache(maxsize=1)
def statements() -> tuple[str, dict[str, str]]:
    """(the table definitions, {name: statement}) from `sql/results.sql`."""
    text = load_sql(SQL_FILE)
    parts = _NAME.split(text)
    ddl, rest = parts[0], parts[1:]
    return ddl, {rest[i]: rest[i + 1].strip() for i in range(0, len(rest), 2)}


def statement(name: str) -> str:
    try:
        return statements()[1][name]
    except KeyError:
        raise KeyError(f"no statement named {name!r} in {SQL_FILE}") from None


class ResultsStore:
    """The reported-results tables of one PointsDB connection."""

    def __init__(self, db: PointsDB):
        self.con = db.con
        existing = {r[0] for r in self.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE NOT temporary").fetchall()}
        if not set(TABLES) <= existing:
            self.con.execute(statements()[0])

    def reset(self) -> None:
        """Empty every reported-results table (a load replaces them all)."""
        self.con.execute(statement("reset_reported"))

    def insert(self, table: str, columns: Mapping[str, Sequence[Any] | np.ndarray]) -> int:
        """Append rows given as equal-length columns (matched to the table by name)."""
        if table not in INSERTABLE:
            raise ValueError(f"not a reported-results table: {table!r}")
        arrays = {name: _array(values) for name, values in columns.items()}
        lengths = {len(a) for a in arrays.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns for {table} differ in length: {sorted(lengths)}")
        if not arrays or lengths == {0}:
            return 0
        view = f"staged_{table}"
        self.con.register(view, arrays)
        try:
            self.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {view}")
        finally:
            self.con.unregister(view)
        return lengths.pop()

    def run(self, name: str, params: Mapping[str, Any] | None = None) -> None:
        """Run a named statement for its effect (creating a temporary table, say)."""
        if params:
            self.con.execute(statement(name), dict(params))
        else:
            self.con.execute(statement(name))

    def fetch(self, name: str, params: Mapping[str, Any] | None = None) -> list[tuple]:
        """Rows of a named query."""
        if params:
            return self.con.execute(statement(name), dict(params)).fetchall()
        return self.con.execute(statement(name)).fetchall()

    def scalar(self, name: str, params: Mapping[str, Any] | None = None) -> Any:
        rows = self.fetch(name, params)
        return rows[0][0] if rows else None

    def next_row_id(self) -> int:
        return int(self.scalar("next_row_id"))


def _array(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Typed numpy arrays pass through; Python lists become object arrays, so None stays
    NULL (a float array would turn it into NaN)."""
    if isinstance(values, np.ndarray):
        return values
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out
