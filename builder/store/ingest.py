"""Loading `points/*.csv|jsonl|parquet` into the PointsDB, with validation (`evals.json`:
`store.evaluations`).

Every file is first staged as text columns with its row numbers, then checked in SQL
against STATISTICS.md "valid counters" and PRODUCT.md "Inputs". The first problem raises
`InputError` naming the file, the row and the problem, before anything reaches the
`points` table. Identity = (model, template, sampler, base_task, canonical params); when
two rows share it, the later file (by sorted path) and then the later row wins, and the
build reports that once.

Every validated row is kept in `point_rows` with its file, and each file's digest in
`point_files`: a later ingest reads only the files that changed and chooses one row per
identity again from all rows, so its result is the one a fresh ingest would give.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NamedTuple

import duckdb

from ..confined import checked_name
from ..errors import InputError
from ..sources.limits import MAX_LINE_BYTES, load_json
from ..sources.points import (
    OPTIONAL,
    REQUIRED,
    check_columns,
    csv_header,
    csv_problem,
    relative_path,
    where,
)
from ..sources.text import read_text
from .canonical import canonicalise_params, clean_names
from .checks import validate_staged
from .evaluations import ingest_evals
from .keys import PointAliases
from .pointsdb import IDENTITY, PointsDB, fetch_as
from .trialrows import check_clashes, is_trials_file, old_ingested_warning, stage_trials

__all__ = ["ingest_evals", "ingest_points"]

class Overridden(NamedTuple):
    """The first row another row of the same identity overrides."""

    source: str
    file_idx: int
    source_row: int
    model: str
    base_task: str
    params: str


#: What makes a point the same point (PRODUCT.md "Inputs"), as SQL: a later one replaces it.
IDENTITY_SQL = ", ".join(IDENTITY)


@dataclass
class IngestReport:
    files: int = 0
    points: int = 0
    duplicates: int = 0
    duplicate_example: str | None = None
    warnings: list[str] = field(default_factory=list)


def ingest_points(db: PointsDB, files: list[Path], data_dir: Path,
                  digests: Mapping[str, str] | None = None, aliases: PointAliases | None = None) -> IngestReport:
    """Stage, validate and insert every points file; all-or-nothing.

    With `digests` ({path relative to `data_dir`: digest of its content and of the code
    that reads it}) a file whose digest is the one `point_files` recorded keeps its rows
    from the last ingest and is not read again; the others are read as on a first ingest
    (the digests include the `aliases`, which rename models and tasks as rows are staged).
    An unchanged file was valid when it was stored (a bad file fails the ingest, and a
    failed ingest is never kept), so the first problem reported is the one a fresh ingest
    reports. Then one row per identity is chosen from all rows, in the current file
    order, exactly as a fresh ingest does.
    """
    con = db.con
    report = IngestReport(files=len(files))
    rels = [relative_path(p, data_dir) for p in files]
    kept: set[str] = set()
    if digests is not None:
        recorded = dict(con.execute("SELECT source, digest FROM point_files").fetchall())
        kept = {rel for rel in rels if rel in digests and recorded.get(rel) == digests[rel]}
    fresh = [i for i, rel in enumerate(rels) if rel not in kept]
    con.execute("CREATE OR REPLACE TEMP TABLE kept_files AS SELECT unnest(?::VARCHAR[]) AS source", [sorted(kept)])
    con.execute("DELETE FROM trials WHERE source NOT IN (SELECT source FROM kept_files)")
    report.warnings += _stage(con, files, rels, fresh)
    (aliases or PointAliases()).rename_staged(con)
    # Which row an identity keeps can change only where rows go (changed and removed files)
    # or come (the staged ones): with files kept, only those identities are chosen again.
    if kept:
        con.execute(f"""CREATE OR REPLACE TEMP TABLE touched AS
                        SELECT {IDENTITY_SQL} FROM point_rows WHERE source NOT IN (SELECT source FROM kept_files)
                        UNION SELECT {IDENTITY_SQL} FROM staged""")
    # Rows of changed and removed files go; the staged rows of changed and new files come.
    con.execute("DELETE FROM point_rows WHERE source NOT IN (SELECT source FROM kept_files)")
    con.execute(
        """
        INSERT INTO point_rows
        SELECT model, template, sampler, base_task, params,
               total::BIGINT, correct::BIGINT, truncated::BIGINT, guess::DOUBLE, tokens::DOUBLE,
               tiers, groups, source, source_row
        FROM staged ORDER BY file_idx, source_row
        """
    )
    con.execute("DROP TABLE staged")
    con.execute("DROP TABLE kept_files")
    con.execute("DELETE FROM point_files")
    if digests is not None:
        known = [rel for rel in rels if rel in digests]
        con.execute("INSERT INTO point_files SELECT unnest(?::VARCHAR[]), unnest(?::VARCHAR[])",
                    [known, [digests[rel] for rel in known]])
    _choose_points(con, files, rels, report, only_touched=bool(kept))
    check_clashes(con, data_dir)
    old = old_ingested_warning(con)
    if old:
        report.warnings.append(old)
    return report


def _stage(con: duckdb.DuckDBPyConnection, files: list[Path], rels: list[str], indices: list[int]) -> list[str]:
    """Stage, check, trim, clean and canonicalise the files at `indices` (of `files`) in the
    temp table `staged`, each row with its file's index in `files`; the warnings."""
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


def _choose_points(con: duckdb.DuckDBPyConnection, files: list[Path], rels: list[str], report: IngestReport,
                   only_touched: bool = False) -> None:
    """Fill `points` with one row per identity from `point_rows`: the later file (in the
    order of `files`) and then the later row wins; the overridden rows are counted and the
    first of them named. With `only_touched`, only the identities of the temp table
    `touched` are chosen again; the others keep their row (their rows did not change, and
    the files keep their order among themselves). The rows then lie in another order than
    a fresh ingest's, which no reader sees: every query orders what it returns, and the
    aggregates' sums are exact (`PointsDB.aggregate`)."""
    con.execute("CREATE OR REPLACE TEMP TABLE file_order AS "
                "SELECT unnest(?::VARCHAR[]) AS source, unnest(?::INTEGER[]) AS file_idx",
                [rels, list(range(len(rels)))])
    columns = f"{IDENTITY_SQL}, total, correct, truncated, guess, tokens, tiers, groups, source, source_row"
    if only_touched:
        con.execute(f"DELETE FROM points USING touched t WHERE {_same_identity('points', 't')}")
        con.execute(f"INSERT INTO points SELECT {columns} FROM ({_ranked('touched')}) WHERE rn = 1 "
                    f"ORDER BY {IDENTITY_SQL}")
        con.execute("DROP TABLE touched")
    else:
        # Only identities given more than once need ranking (usually none): the other rows
        # go straight to the one sorted insert, which is most of the cost.
        _find_repeated(con)
        con.execute("DELETE FROM points")
        con.execute(
            f"""
            INSERT INTO points
            SELECT * FROM (
                SELECT {columns} FROM point_rows ANTI JOIN repeated USING ({IDENTITY_SQL})
                UNION ALL
                SELECT {columns} FROM ({_ranked('repeated')}) WHERE rn = 1
            ) ORDER BY {IDENTITY_SQL}
            """
        )
    staged = con.execute("SELECT count(*) FROM point_rows").fetchall()[0][0]
    report.points = con.execute("SELECT count(*) FROM points").fetchall()[0][0]
    report.duplicates = staged - report.points
    if report.duplicates:
        if only_touched:  # the full choice has found them already
            _find_repeated(con)
        (first,) = fetch_as(con.execute(
            f"""
            SELECT source, file_idx, source_row, model, base_task, params FROM ({_ranked('repeated')})
            WHERE rn > 1 ORDER BY file_idx, source_row LIMIT 1
            """
        ), Overridden)  # duplicates > 0: an overridden row exists
        report.duplicate_example = (f"{first.source}, {where(files[first.file_idx], first.source_row)} "
                                    f"({first.model}, {first.base_task}, {first.params})")
        report.warnings.append(
            f"{report.duplicates} point(s) repeat an identity already given; the later file/row wins "
            f"(first overridden: {report.duplicate_example})"
        )
    con.execute("DROP TABLE IF EXISTS repeated")
    con.execute("DROP TABLE file_order")


def _find_repeated(con: duckdb.DuckDBPyConnection) -> None:
    """The temp table `repeated`: the identities `point_rows` gives more than once."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE repeated AS SELECT {IDENTITY_SQL} FROM point_rows "
                "GROUP BY ALL HAVING count(*) > 1")


def _same_identity(a: str, b: str) -> str:
    return " AND ".join(f"{a}.{c} = {b}.{c}" for c in IDENTITY)


def _ranked(among: str) -> str:
    """The rows of `point_rows` whose identity is in the temp table `among`, each with its
    file's position and its rank among its identity's rows (1: the one kept)."""
    return f"""
        SELECT r.*, o.file_idx, row_number() OVER (PARTITION BY {IDENTITY_SQL}
                                                   ORDER BY o.file_idx DESC, r.source_row DESC) AS rn
        FROM (SELECT * FROM point_rows SEMI JOIN {among} USING ({IDENTITY_SQL})) r JOIN file_order o USING (source)
    """


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
               {tiers}, {groups}
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
               {as_list('tiers')}, {as_list('groups')}
        FROM read_parquet(?)
        """,
        [idx, rel, real],
    )
