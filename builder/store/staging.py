"""Staging points files: every input's rows as text columns in the temp table `staged`, each
with its file's index and its row, before any check (store/checks.py) or choice
(store/ingest.py). CSV files sharing a header are read by one DuckDB scan, JSON Lines in
Python (a bad line is named by its number), Parquet by DuckDB; trials files are summed into
points rows by store/trialrows.py. `params` is then made canonical, so identity is textual.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from ..confined import checked_name
from ..errors import InputError
from ..sources.limits import MAX_LINE_BYTES, load_json
from ..sources.points import LABELS, REQUIRED, check_columns, csv_header, csv_problem
from ..sources.text import read_text
from .canonical import canonicalise_params, clean_names
from .checks import validate_staged
from .trialrows import is_trials_file, stage_trials


def stage(con: duckdb.DuckDBPyConnection, files: list[Path], rels: list[str], indices: list[int]) -> list[str]:
    """Stage, check, trim, clean and canonicalise the files at `indices` (of `files`) in the
    temp table `staged`, each row with its file's index in `files`; the warnings."""
    con.execute("DROP TABLE IF EXISTS staged")
    con.execute(
        """
        CREATE TEMP TABLE staged (
            file_idx INTEGER, source VARCHAR, source_row BIGINT,
            model VARCHAR, template VARCHAR, sampler VARCHAR, base_task VARCHAR, params VARCHAR,
            total VARCHAR, correct VARCHAR, truncated VARCHAR, guess VARCHAR, tokens VARCHAR,
            tiers VARCHAR[], groups VARCHAR[], samples VARCHAR, deff VARCHAR, partial VARCHAR)
        """
    )
    stage_trials(con, files, rels, indices)
    csv_groups: dict[tuple[str, ...], list[int]] = {}
    for idx in indices:
        path = files[idx]
        if is_trials_file(rels[idx]):
            continue
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
    validate_staged(con, files)
    warnings = clean_names(con, files)
    # Surrounding spaces are typing noise, not a different model or task.
    con.execute("UPDATE staged SET model = trim(model), template = trim(template), "
                "sampler = trim(sampler), base_task = trim(base_task)")
    canonicalise_params(con, files)
    return warnings


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
    # DuckDB opens the files itself: it is given each file's real name once the file has
    # been found to be a regular file inside its folder (confined.py), so it follows no link.
    names = {checked_name(p): (i, rel) for p, i, rel in zip(paths, indices, rels)}
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
               {tiers}, {groups}, {'samples' if 'samples' in header else 'NULL'}, NULL, NULL
        FROM (SELECT *, row_number() OVER () AS rn
              FROM read_csv(?, header = true, auto_detect = false, columns = {{{columns}}},
                            delim = ',', quote = '"', escape = '"', filename = true)) r
        JOIN csv_files f USING (filename)
        """,
        [list(names)],
    )
    con.execute("DROP TABLE csv_files")


def _stage_jsonl(con: duckdb.DuckDBPyConnection, idx: int, path: Path, rel: str) -> None:
    # Parsed in Python: a bad line must be reported by its line number, which DuckDB's
    # JSON reader does not give. The rows then go to DuckDB in one columnar insert.
    rows: list[dict[str, Any]] = []
    for line_no, line in enumerate(read_text(path, max_line=MAX_LINE_BYTES).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = load_json(line, path, line_no)
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
    samples = obj.get("samples")
    row["samples"] = None if samples is None else (samples if isinstance(samples, str) else json.dumps(samples))
    for key in LABELS:
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
    columns = ["source_row", *REQUIRED, *LABELS, "samples"]
    types = {"source_row": "BIGINT[]", "tiers": "VARCHAR[][]", "groups": "VARCHAR[][]"}
    unnests = ", ".join(f"unnest(?::{types.get(c, 'VARCHAR[]')})" for c in columns)
    con.execute(
        f"INSERT INTO staged SELECT ?, ?, {unnests}, NULL, NULL",
        [idx, rel, *[[r[c] for r in rows] for c in columns]],
    )


def _stage_parquet(con: duckdb.DuckDBPyConnection, idx: int, path: Path, rel: str) -> None:
    real = checked_name(path)  # DuckDB opens it: the real name of a file inside its folder
    described = con.execute("DESCRIBE SELECT * FROM read_parquet(?)", [real]).fetchall()
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
               {as_list('tiers')}, {as_list('groups')}, {'samples::VARCHAR' if 'samples' in types else 'NULL'}, NULL,
               NULL
        FROM read_parquet(?)
        """,
        [idx, rel, real],
    )
