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
from operator import itemgetter
from typing import Any, Mapping, NamedTuple, Sequence, TypeVar

import numpy as np

from .pointsdb import PointsDB, load_sql, record_fields

SQL_FILE = "results.sql"
TABLES = ("reported_rows", "reported_dropped", "cards", "card_keys", "card_fields", "card_risks")
#: Where `insert()` may write: the persistent tables and two per-build temporary tables.
INSERTABLE = (*TABLES, "own_rows", "completeness_catalogue")
_NAME = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)

Record = TypeVar("Record", bound=tuple[Any, ...])


class TripleDetail(NamedTuple):
    """One row of `triple_details`: a triple's reports, parties and divergence figures
    (field names are the statement's column names; `fetch_records` matches them by name).

    A triple with one report has `only_row_id` and `row_ids` None; with one party, the
    `only_party_*` figures and the `party_*` lists None (scalars cross from DuckDB faster).
    `row_id_tuple()` and `party_columns()` give either shape as tuples."""

    model_key: str
    benchmark_path: str
    metric_key: str
    model_id: str
    benchmark_key: str
    slice_key: str | None
    reports: int
    only_row_id: int | None
    row_ids: list[int] | None
    agentic: bool
    #: comma-separated
    missing: str
    first_party_only: bool
    multi_party: bool
    first_party: int
    third_party: int
    collaborative: int
    unspecified: int
    basis: str
    score_range: float
    variant_spread: float | None
    variant_relative: float | None
    variant_flag: bool | None
    cross_spread: float | None
    cross_relative: float | None
    cross_flag: bool | None
    only_party_name: str | None
    only_party_score: float | None
    only_party_setups: int | None
    only_party_spread: float | None
    party_names: list[str] | None
    party_scores: list[float] | None
    party_setups: list[int] | None
    party_spreads: list[float | None] | None

    def row_id_tuple(self) -> tuple[int, ...]:
        return (self.only_row_id,) if self.row_ids is None else tuple(self.row_ids)  # type: ignore[return-value]

    def party_columns(self) -> tuple[tuple[str, ...], tuple[float, ...], tuple[int, ...], tuple[float | None, ...]]:
        """(names, scores, setups, spreads) of the parties, in party order."""
        if self.party_names is None:
            return ((self.only_party_name,), (self.only_party_score,),  # type: ignore[return-value]
                    (self.only_party_setups,), (self.only_party_spread,))
        return (tuple(self.party_names), tuple(self.party_scores or ()), tuple(self.party_setups or ()),
                tuple(self.party_spreads or ()))


class SetupDifferenceRow(NamedTuple):
    """One row of `differing_setups`: a setup field whose values differ within one party
    (`variant`) or across parties (`cross_party`) of a triple."""

    scope: str
    model_key: str
    benchmark_path: str
    metric_key: str
    setup_field: str
    #: the values present, as a JSON array (None when every value is absent)
    present_values: str | None
    has_absent: bool | None


class CardText(NamedTuple):
    """One row of `card_texts`: a stored card item of a benchmark's card."""

    benchmark_key: str
    position: int
    field: str
    sub_item: str | None
    level: int
    text: str | None


class FieldScoreRow(NamedTuple):
    """One row of `benchmark_field_scores`: s(f) of one field for one benchmark."""

    benchmark_key: str
    position: int
    field: str
    coverage: str
    origin: str
    items: int
    populated: int
    score: float


class CardRiskRow(NamedTuple):
    """One row of `card_risk_list`: a risk listed by a benchmark's card."""

    benchmark_key: str
    position: int
    category: str | None
    description: str | None
    url: str | None


class BenchmarkOverview(NamedTuple):
    """One row of `benchmark_overview`: a benchmark's card (if any), names and counts."""

    benchmark_key: str
    card_id: int | None
    source_path: str | None
    name: str | None
    agentic: bool
    reported_name: str | None
    n_rows: int
    n_triples: int


class CorpusTriples(NamedTuple):
    """The one row of `corpus_triples`: rollups over every triple (rates None when nothing
    is counted; the five missingness rates are named for their field)."""

    triples: int
    gap_rate: float | None
    temperature: float | None
    max_tokens: float | None
    harness: float | None
    eval_plan: float | None
    eval_limits: float | None
    agentic_triples: int
    first_party_only: int
    multi_party: int
    compared: int
    variant_flagged: int
    variant_within: int
    cross_flagged: int
    cross_within: int
    flagged: int
    within: int


class BenchmarkCompleteness(NamedTuple):
    benchmark_key: str
    completeness: float


class RelationshipRows(NamedTuple):
    relationship: str
    rows: int


class FieldPopulation(NamedTuple):
    position: int
    field: str
    rate: float | None


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

    def fetch(self, name: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """Rows of a named query."""
        if params:
            return self.con.execute(statement(name), dict(params)).fetchall()
        return self.con.execute(statement(name)).fetchall()

    def columns(self, name: str, params: Mapping[str, Any] | None = None) -> tuple[dict[str, int], list[tuple[Any, ...]]]:
        """({column name: position}, rows) of a named query, for callers that pick columns by name."""
        cursor = self.con.execute(statement(name), dict(params)) if params else self.con.execute(statement(name))
        rows = cursor.fetchall()
        return {d[0]: i for i, d in enumerate(cursor.description or ())}, rows

    def fetch_records(self, name: str, record: type[Record], params: Mapping[str, Any] | None = None) -> list[Record]:
        """Rows of a named query as `record`s (a NamedTuple), each field taken from the column
        of the same name: reordering the statement's columns cannot move a value to another
        field, and a missing column is an error, not a shifted row."""
        at, rows = self.columns(name, params)
        fields = record_fields(record)
        absent = [f for f in fields if f not in at]
        if absent:
            raise KeyError(f"statement {name!r} has no column {', '.join(absent)}")
        make = record._make  # type: ignore[attr-defined]
        if len(fields) == 1:  # itemgetter of one index gives the value, not a tuple
            return [make((r[at[fields[0]]],)) for r in rows]
        pick = itemgetter(*(at[f] for f in fields))
        return [make(pick(r)) for r in rows]

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
