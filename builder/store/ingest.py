"""Loading `points/*.csv|jsonl|parquet` and `evals.json` into the PointsDB, with validation.

Every file is first staged as text columns with its row numbers, then checked in SQL
against STATISTICS.md "valid counters" and PRODUCT.md "Inputs". The first problem raises
`InputError` naming the file, the row and the problem, before anything reaches the
`points` table. Identity = (model, template, sampler, base_task, canonical params); when
two rows share it, the later file (by sorted path) and then the later row wins, and the
build reports that once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from ..errors import InputError
from ..sources.points import (
    OPTIONAL,
    REQUIRED,
    check_columns,
    csv_header,
    csv_problem,
    error_at,
    relative_path,
    where,
)
from ..sources.text import read_text
from .pointsdb import PointsDB

PARAMS_FORM = '{"size": 4}, or {} when the task has no difficulty levels'
PARAMS_CSV = '; in a CSV file quote the cell and double its quotes: "{""size"": 4}"'

# Checks run on the staged text columns, in order; the first failing row is reported.
# Each is (SQL condition that is TRUE for a bad row, problem text, the column whose value
# the message shows, or None when the problem is between columns).
ROW_CHECKS = [
    *[(f"{c} IS NULL OR trim({c}) = ''", f"'{c}' is empty", None) for c in ("model", "template", "sampler", "base_task")],
    ("params IS NULL OR NOT json_valid(params)", "'params' is not valid JSON", "params"),
    ("json_type(params::JSON) <> 'OBJECT'", "'params' must be a JSON object", "params"),
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
]


@dataclass
class IngestReport:
    files: int = 0
    points: int = 0
    duplicates: int = 0
    duplicate_example: str | None = None
    warnings: list[str] = field(default_factory=list)


def ingest_points(db: PointsDB, files: list[Path], data_dir: Path) -> IngestReport:
    """Stage, validate and insert every points file; all-or-nothing."""
    con = db.con
    report = IngestReport(files=len(files))
    con.execute("DROP TABLE IF EXISTS staged")
    con.execute(
        """
        CREATE TEMP TABLE staged (
            file_idx INTEGER, source VARCHAR, source_row BIGINT,
            model VARCHAR, template VARCHAR, sampler VARCHAR, base_task VARCHAR, params VARCHAR,
            total VARCHAR, correct VARCHAR, truncated VARCHAR, guess VARCHAR, tokens VARCHAR,
            tiers VARCHAR[], groups VARCHAR[])
        """
    )
    rels = [relative_path(p, data_dir) for p in files]
    csv_groups: dict[tuple[str, ...], list[int]] = {}
    for idx, path in enumerate(files):
        if path.suffix.lower() == ".csv":
            csv_groups.setdefault(csv_header(path), []).append(idx)
        else:
            _stage_file(con, idx, path, rels[idx])
    # CSV files with the same header are read by one scan: thousands of per-model files
    # cost about as much as one file of the same size.
    for header, group in csv_groups.items():
        try:
            _stage_csv_group(con, header, [files[i] for i in group], group, [rels[i] for i in group])
        except duckdb.Error as exc:
            # The error must name the file: read the group's files one by one to find it
            # (only on this failure path; the failed INSERT has left nothing staged).
            for i in group:
                try:
                    _stage_csv_group(con, header, [files[i]], [i], [rels[i]])
                except duckdb.Error as one:
                    raise csv_problem(files[i], header) or InputError(
                        files[i], f"cannot read csv file: {_first_line(one)}") from None
            raise InputError(files[group[0]].parent, f"cannot read csv files: {_first_line(exc)}") from None
    _validate_staged(con, files)
    # Surrounding spaces are typing noise, not a different model or task.
    con.execute("UPDATE staged SET model = trim(model), template = trim(template), "
                "sampler = trim(sampler), base_task = trim(base_task)")
    _canonicalise_params(con)
    staged = con.execute("SELECT count(*) FROM staged").fetchall()[0][0]
    con.execute("DELETE FROM points")
    con.execute(
        """
        INSERT INTO points
        SELECT model, template, sampler, base_task, params,
               total::BIGINT, correct::BIGINT, truncated::BIGINT, guess::DOUBLE, tokens::DOUBLE,
               tiers, groups, source, source_row
        FROM staged
        QUALIFY row_number() OVER (PARTITION BY model, template, sampler, base_task, params
                                   ORDER BY file_idx DESC, source_row DESC) = 1
        ORDER BY model, template, sampler, base_task, params
        """
    )
    report.points = con.execute("SELECT count(*) FROM points").fetchall()[0][0]
    report.duplicates = staged - report.points
    if report.duplicates:
        first = con.execute(
            """
            SELECT source, file_idx, source_row, model, base_task, params FROM (
                SELECT *, row_number() OVER (PARTITION BY model, template, sampler, base_task, params
                                             ORDER BY file_idx DESC, source_row DESC) AS rn
                FROM staged) WHERE rn > 1 ORDER BY file_idx, source_row LIMIT 1
            """
        ).fetchone()
        assert first is not None  # duplicates > 0: an overridden row exists
        source, file_idx, source_row, model, task, params = first
        report.duplicate_example = f"{source}, {where(files[file_idx], source_row)} ({model}, {task}, {params})"
        report.warnings.append(
            f"{report.duplicates} point(s) repeat an identity already given; the later file/row wins "
            f"(first overridden: {report.duplicate_example})"
        )
    con.execute("DROP TABLE staged")
    return report


def _stage_file(con: duckdb.DuckDBPyConnection, idx: int, path: Path, rel: str) -> None:
    suffix = path.suffix.lower()
    try:
        if suffix == ".jsonl":
            _stage_jsonl(con, idx, path, rel)
        else:
            _stage_parquet(con, idx, path, rel)
    except duckdb.Error as exc:
        raise InputError(path, f"cannot read {suffix[1:]} file: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _list_expr(column: str, present: bool) -> str:
    """A `;`-separated text as VARCHAR[] of trimmed, non-empty labels; empty when absent.

    A regular expression rather than split + lambdas: on a few hundred thousand rows the
    lambdas cost seconds, the regex a fraction of one.
    """
    if not present:
        return "[]::VARCHAR[]"
    return f"regexp_extract_all(coalesce({column}, ''), '[^;\\s]([^;]*[^;\\s])?')"


def _stage_csv_group(con: duckdb.DuckDBPyConnection, header: tuple[str, ...], paths: list[Path],
                     indices: list[int], rels: list[str]) -> None:
    """Stage CSV files sharing one header with a single scan.

    Rows keep their file and line order (DuckDB preserves insertion order), so a row's
    number in its file is its global position minus the file's first position.
    """
    names = {str(p): (i, rel) for p, i, rel in zip(paths, indices, rels)}
    con.execute(
        "CREATE OR REPLACE TEMP TABLE csv_files AS "
        "SELECT unnest(?::VARCHAR[]) AS filename, unnest(?::INTEGER[]) AS file_idx, unnest(?::VARCHAR[]) AS source",
        [list(names), [v[0] for v in names.values()], [v[1] for v in names.values()]],
    )
    columns = ", ".join(f"'{c}': 'VARCHAR'" for c in header)
    tiers = _list_expr("tiers", "tiers" in header)
    groups = _list_expr("groups", "groups" in header)
    con.execute(
        f"""
        INSERT INTO staged
        SELECT f.file_idx, f.source, r.rn - min(r.rn) OVER (PARTITION BY r.filename) + 1,
               model, template, sampler, base_task, params, total, correct, truncated, guess, tokens,
               {tiers}, {groups}
        FROM (SELECT *, row_number() OVER () AS rn
              FROM read_csv(?, header = true, auto_detect = false, columns = {{{columns}}},
                            delim = ',', quote = '"', escape = '"', filename = true)) r
        JOIN csv_files f USING (filename)
        """,
        [[str(p) for p in paths]],
    )
    con.execute("DROP TABLE csv_files")


def _stage_jsonl(con: duckdb.DuckDBPyConnection, idx: int, path: Path, rel: str) -> None:
    # Parsed in Python: a bad line must be reported by its line number, which DuckDB's
    # JSON reader does not give. The rows then go to DuckDB in one columnar insert.
    rows: list[dict[str, Any]] = []
    for line_no, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"invalid JSON ({exc.msg})", line=line_no) from None
        if not isinstance(obj, dict):
            raise InputError(path, "each line must be a JSON object", line=line_no)
        _check_columns_row(path, line_no, obj)
        rows.append(_jsonl_row(path, line_no, obj))
    _insert_rows(con, idx, rel, rows)


def _check_columns_row(path: Path, row: int, obj: dict[str, Any]) -> None:
    check_columns(path, list(obj), line=row)


def _jsonl_row(path: Path, line_no: int, obj: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"source_row": line_no}
    for key in REQUIRED:
        value = obj.get(key)
        if key == "params" and not isinstance(value, str) and value is not None:
            value = json.dumps(value)
        row[key] = None if value is None else (value if isinstance(value, str) else json.dumps(value))
    for key in OPTIONAL:
        value = obj.get(key, [])
        if isinstance(value, str):
            value = [v.strip() for v in value.split(";") if v.strip()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(path, f"'{key}' must be a list of strings", line=line_no)
        row[key] = value
    return row


def _insert_rows(con: duckdb.DuckDBPyConnection, idx: int, rel: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = ["source_row", *REQUIRED, *OPTIONAL]
    types = {"source_row": "BIGINT[]", "tiers": "VARCHAR[][]", "groups": "VARCHAR[][]"}
    unnests = ", ".join(f"unnest(?::{types.get(c, 'VARCHAR[]')})" for c in columns)
    con.execute(
        f"INSERT INTO staged SELECT ?, ?, {unnests}",
        [idx, rel, *[[r[c] for r in rows] for c in columns]],
    )


def _stage_parquet(con: duckdb.DuckDBPyConnection, idx: int, path: Path, rel: str) -> None:
    described = con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)]).fetchall()
    types = {name: typ for name, typ, *_ in described}
    check_columns(path, list(types), line=None)

    def text(c: str) -> str:
        if c == "params" and types[c] != "VARCHAR":
            return "to_json(params)::VARCHAR"
        return f"{c}::VARCHAR"

    def as_list(c: str) -> str:
        if c not in types:
            return "[]::VARCHAR[]"
        if types[c].endswith("[]"):
            return f"coalesce({c}::VARCHAR[], [])"
        return _list_expr(c, True)

    con.execute(
        f"""
        INSERT INTO staged
        SELECT ?, ?, row_number() OVER (), {', '.join(text(c) for c in REQUIRED)},
               {as_list('tiers')}, {as_list('groups')}
        FROM read_parquet(?)
        """,
        [idx, rel, str(path)],
    )


def _validate_staged(con: duckdb.DuckDBPyConnection, files: list[Path]) -> None:
    """Report the first row (by file, then row) that breaks a rule, rules checked in order.

    One scan: a CASE names each row's first broken rule; only the earliest such row is
    fetched. Later rules may assume earlier ones hold, since CASE stops at the first match.
    """
    cases = " ".join(f"WHEN {condition} THEN {i}" for i, (condition, _, _) in enumerate(ROW_CHECKS))
    shown = " ".join(f"WHEN {i} THEN {column}" for i, (_, _, column) in enumerate(ROW_CHECKS) if column)
    bad = con.execute(
        f"""
        SELECT file_idx, source_row, rule, CASE rule {shown} END FROM (
            SELECT *, CASE {cases} END AS rule FROM staged)
        WHERE rule IS NOT NULL ORDER BY file_idx, source_row LIMIT 1
        """
    ).fetchone()
    if bad:
        file_idx, source_row, rule, value = bad
        path = files[file_idx]
        _, problem, column = ROW_CHECKS[rule]
        if column is not None:
            problem += f" (got {_shown(value)})"
        if column == "params":
            problem += f"; expected a JSON object such as {PARAMS_FORM}"
            if path.suffix.lower() == ".csv":
                problem += PARAMS_CSV
        raise error_at(path, source_row, problem)


def _shown(value: str | None) -> str:
    """A cell's value for a message: quoted, shortened, and named when empty."""
    if value is None or not value.strip():
        return "an empty cell"
    return repr(value if len(value) <= 60 else value[:57] + "...")


def _canonicalise_params(con: duckdb.DuckDBPyConnection) -> None:
    """Rewrite `params` as canonical JSON (sorted keys, compact) so identity is textual.

    There are few distinct difficulty coordinates, so this is done once per distinct
    text in Python (json.dumps with sort_keys) and joined back in SQL.
    """
    distinct = [r[0] for r in con.execute("SELECT DISTINCT params FROM staged").fetchall()]
    mapping = [json.dumps(json.loads(p), sort_keys=True, separators=(",", ":"), ensure_ascii=False) for p in distinct]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE canonical AS SELECT unnest(?::VARCHAR[]) AS raw, unnest(?::VARCHAR[]) AS canon",
        [distinct, mapping],
    )
    con.execute("UPDATE staged SET params = canonical.canon FROM canonical WHERE staged.params = canonical.raw")
    con.execute("DROP TABLE canonical")


# -- evals.json --------------------------------------------------------------------------


def ingest_evals(db: PointsDB, entries: list[dict[str, Any]]) -> None:
    """Insert the evaluations in one statement (row-by-row inserts into a file-backed
    database cost a transaction each: seconds for a few thousand evaluations)."""
    db.con.execute("DELETE FROM evaluations")
    if not entries:
        return
    rows = sorted(entries, key=lambda e: (e["model"], e["template"], e["sampler"]))
    columns = {
        "model": [e["model"] for e in rows], "template": [e["template"] for e in rows],
        "sampler": [e["sampler"] for e in rows], "label": [e.get("label") for e in rows],
        "groups": [e["groups"] for e in rows], "hf_id": [e.get("hf_id") for e in rows],
        "organization": [e.get("organization") for e in rows], "relationship": [e.get("relationship") for e in rows],
        "generation_args": [json.dumps(e["generation_args"], sort_keys=True, separators=(",", ":")) for e in rows],
        "harness": [e.get("harness") for e in rows], "simulated": [bool(e.get("simulated", False)) for e in rows],
        # NULL when not said: only ingest knows, and what it does not say was observed.
        "truncation_observed": [(e.get("observed") or {}).get("truncation") for e in rows],
        "tokens_observed": [(e.get("observed") or {}).get("tokens") for e in rows],
    }
    types = {"groups": "VARCHAR[][]", "simulated": "BOOLEAN[]", "truncation_observed": "BOOLEAN[]",
             "tokens_observed": "BOOLEAN[]"}
    db.con.execute(
        "INSERT INTO evaluations SELECT "
        + ", ".join(f"unnest(?::{types.get(name, 'VARCHAR[]')})" for name in columns),
        list(columns.values()),
    )
