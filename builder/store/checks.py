"""The checks a staged points row must pass (STATISTICS.md "valid counters", PRODUCT.md
"Inputs"), run in SQL on the text columns `store.ingest` staged, first problem first."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import duckdb

from ..errors import shortened
from ..sources.limits import MAX_NAME_CHARS, MAX_PARAMS, MAX_PARAMS_CHARS, too_long
from ..sources.points import error_at
from .pointsdb import fetch_as

PARAMS_FORM = '{"size": 4}, or {} when the task has no difficulty levels'
PARAMS_CSV = '; in a CSV file quote the cell and double its quotes: "{""size"": 4}"'

# Checks run on the staged text columns, in order; the first failing row is reported.
# Each is (SQL condition that is TRUE for a bad row, problem text, the column whose value
# the message shows, or None when the problem is between columns).
ROW_CHECKS = [
    *[(f"{c} IS NULL OR trim({c}) = ''", f"'{c}' is empty", None) for c in ("model", "template", "sampler", "base_task")],
    # A problem holding {length} is a limit: the message gives the length seen, not the value.
    *[(f"length({c}) > {MAX_NAME_CHARS}", too_long(c, "{length}", MAX_NAME_CHARS), c)
      for c in ("model", "template", "sampler", "base_task")],
    (f"length(params) > {MAX_PARAMS_CHARS}", f"'params' is longer than {MAX_PARAMS_CHARS:,} characters (the limit)",
     None),
    ("params IS NULL OR NOT json_valid(params)", "'params' is not valid JSON", "params"),
    ("json_type(params::JSON) <> 'OBJECT'", "'params' must be a JSON object", "params"),
    (f"len(json_keys(params::JSON)) > {MAX_PARAMS}",
     f"'params' has more than {MAX_PARAMS} difficulty coordinates (the limit)", None),
    *[
        # Both casts must succeed: '0x10' or '0b1' cast to BIGINT but not to DOUBLE, and
        # a NULL comparison would let them through.
        (f"TRY_CAST({c} AS BIGINT) IS NULL OR TRY_CAST({c} AS DOUBLE) IS NULL"
         f" OR TRY_CAST({c} AS DOUBLE) <> TRY_CAST({c} AS BIGINT)",
         f"'{c}' must be a whole number", c)
        for c in ("total", "correct", "truncated")
    ],
    *[(f"TRY_CAST({c} AS DOUBLE) IS NULL OR NOT isfinite(TRY_CAST({c} AS DOUBLE))", f"'{c}' must be a number", c)
      for c in ("guess", "tokens")],
    ("total::BIGINT < 1", "total must be at least 1 (n >= 1)", "total"),
    ("truncated::BIGINT < 0 OR truncated::BIGINT > total::BIGINT", "truncated must be between 0 and total (0 <= n_t <= n)",
     None),
    ("correct::BIGINT < 0 OR correct::BIGINT > total::BIGINT - truncated::BIGINT",
     "correct must be between 0 and total - truncated (0 <= n_e <= n_u)", None),
    ("guess::DOUBLE < 0 OR guess::DOUBLE > total::BIGINT - truncated::BIGINT + 1e-9",
     "guess must be between 0 and total - truncated (0 <= g <= n_u)", None),
    ("tokens::DOUBLE < 0", "tokens must not be negative (tok >= 0)", "tokens"),
    # An optional column: empty or absent means "as many samples as trials".
    ("nullif(trim(samples), '') IS NOT NULL AND (TRY_CAST(samples AS BIGINT) IS NULL OR TRY_CAST(samples AS DOUBLE) "
     "IS NULL OR TRY_CAST(samples AS DOUBLE) <> TRY_CAST(samples AS BIGINT))", "'samples' must be a whole number",
     "samples"),
    ("nullif(trim(samples), '') IS NOT NULL AND (samples::BIGINT < 1 OR samples::BIGINT > total::BIGINT)",
     "samples must be between 1 and total (each sample is answered at least once)", "samples"),
    # Sums are exact decimals (PointsDB.aggregate); no evaluation point comes near this.
    ("tokens::DOUBLE >= 1e18", "tokens must be below 10^18 (tok < 1e18)", "tokens"),
]


class BadRow(NamedTuple):
    """The first staged row breaking a rule of `ROW_CHECKS`, and the value it shows."""

    file_idx: int
    source_row: int
    rule: int
    value: str | None


def validate_staged(con: duckdb.DuckDBPyConnection, files: list[Path]) -> None:
    """Report the first row (by file, then row) that breaks a rule, rules checked in order.

    One scan: a CASE names each row's first broken rule; only the earliest such row is
    fetched. Later rules may assume earlier ones hold, since CASE stops at the first match.
    """
    cases = " ".join(f"WHEN {condition} THEN {i}" for i, (condition, _, _) in enumerate(ROW_CHECKS))
    shown = " ".join(f"WHEN {i} THEN {column}" for i, (_, _, column) in enumerate(ROW_CHECKS) if column)
    found = fetch_as(con.execute(
        f"""
        SELECT file_idx, source_row, rule, CASE rule {shown} END AS value FROM (
            SELECT *, CASE {cases} END AS rule FROM staged)
        WHERE rule IS NOT NULL ORDER BY file_idx, source_row LIMIT 1
        """
    ), BadRow)
    if found:
        bad = found[0]
        path, source_row = files[bad.file_idx], bad.source_row
        _, problem, column = ROW_CHECKS[bad.rule]
        if "{length}" in problem:
            problem = problem.replace("{length}", f"{len(bad.value or ''):,}")
        elif column is not None:
            problem += f" (got {_shown(bad.value)})"
        if column == "params":
            problem += f"; expected a JSON object such as {PARAMS_FORM}"
            if path.suffix.lower() == ".csv":
                problem += PARAMS_CSV
        raise error_at(path, source_row, problem)


def _shown(value: str | None) -> str:
    """A cell's value for a message: quoted, shortened, and named when empty."""
    if value is None or not value.strip():
        return "an empty cell"
    return repr(shortened(value))
