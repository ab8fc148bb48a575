"""The trials file (SAMPLES.md section 1): one Parquet file per evaluation under `DATA/trials/`.

`reasonboard ingest` and `reasonboard demo` write these files and the store reads them, so
the columns, their types, the row order and the file name are fixed here, once. DuckDB
writes the Parquet (`COPY ... TO`): the rows sorted by `ORDER`, zstd compression and
DuckDB's fixed row-group size, and no timestamp in the file's metadata, so the same trials
give the same bytes. No output or prompt text is a column: a lab's test items stay private.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import duckdb

from ..confined import refuse_linked_folders
from ..slugs import name_hash, slugify
from .pointsdb import sql_string

TRIALS_DIR = "trials"
SUFFIX = ".parquet"
#: (column, DuckDB type), in file order.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("model", "VARCHAR"), ("template", "VARCHAR"), ("sampler", "VARCHAR"),
    ("base_task", "VARCHAR"), ("params", "VARCHAR"), ("sample_id", "VARCHAR"), ("epoch", "INTEGER"),
    ("credit", "DOUBLE"), ("correct", "BOOLEAN"), ("truncated", "BOOLEAN"), ("options", "INTEGER"),
    ("tokens", "BIGINT"), ("input_tokens", "BIGINT"), ("compressed", "BIGINT"),
)
NAMES = tuple(name for name, _ in COLUMNS)
#: Columns that may be null (not recorded); every other one is required in every row.
NULLABLE = frozenset({"options", "tokens", "input_tokens", "compressed"})
#: An optional column beyond SAMPLES.md's: the point's tier labels, `;`-separated as in a
#: points CSV (the demo's simulated tasks have tiers; harness logs have none).
TIERS = "tiers"
#: The row order of every trials file (SAMPLES.md section 1).
ORDER = "base_task, params, sample_id, epoch"
#: Room for the readable part of a file name (before the identity hash).
NAME_ROOM = 60


def trials_file_name(model: str, template: str, sampler: str) -> str:
    """A stable file name from an evaluation's identity: readable, and unique by its hash."""
    readable = slugify(f"{model} {template} {sampler}")[:NAME_ROOM].rstrip("-")
    return f"{readable}-{name_hash(chr(31).join((model, template, sampler)))}{SUFFIX}"


def select_list(with_tiers: bool = False) -> str:
    """The file's columns, each cast to its type, for a SELECT over any source naming them."""
    columns = [f"{name}::{kind} AS {name}" for name, kind in COLUMNS]
    if with_tiers:
        columns.append(f"{TIERS}::VARCHAR AS {TIERS}")
    return ", ".join(columns)


def write_trials(con: duckdb.DuckDBPyConnection, source: str, parameters: Sequence[Any], path: Path,
                 with_tiers: bool = False, ordered: bool = False) -> None:
    """Write the rows of `source` (a FROM clause over relations naming the columns, with
    `parameters` for its placeholders) to `path` as a trials file. `ordered`: the source
    yields its rows in `ORDER` already (DuckDB keeps a scan's order), so they are not sorted
    again."""
    copy_to_parquet(con, f"SELECT {select_list(with_tiers)} FROM {source}{'' if ordered else ' ORDER BY ' + ORDER}",
                    parameters, path)


def copy_to_parquet(con: duckdb.DuckDBPyConnection, query: str, parameters: Sequence[Any], path: Path,
                    options: str = "") -> None:
    """`COPY (query) TO path` as a zstd Parquet file, with more writer `options` (for example
    `PUBLISHED`). The target is a quoted literal, not a placeholder: DuckDB before 2.0 binds
    the `TO ?` placeholder first, ahead of the query's own, so the same statement would write
    to a file named after the first parameter."""
    extra = f", {options}" if options else ""
    con.execute(f"COPY ({query}) TO {sql_string(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880{extra})",
                list(parameters))


def discover_trial_files(data_dir: Path) -> list[Path]:
    """Trials files under `data_dir/trials`, sorted by path."""
    root = data_dir / TRIALS_DIR
    if not root.is_dir():
        return []
    refuse_linked_folders(root, data_dir)
    return sorted(p for p in root.rglob(f"*{SUFFIX}") if p.is_file())
