"""The names and difficulty coordinates of staged points, made canonical before they become
identities: names in NFC without control or bidirectional characters (names.py), `params`
as canonical JSON within the nesting limit (sources/limits.py)."""

from __future__ import annotations

import json
from contextlib import suppress
from pathlib import Path
from typing import Any

import duckdb

from ..names import UNSAFE_RE2
from ..sources.limits import over_depth, too_deep
from ..sources.points import error_at, where

NAMES = ("model", "template", "sampler", "base_task")


def clean_names(con: duckdb.DuckDBPyConnection, files: list[Path]) -> list[str]:
    """Names in NFC without control or bidirectional characters (names.py), before they
    become identities; a warning names the first row that had them."""
    dirty = " OR ".join(f"regexp_matches({c}, $unsafe) OR {c} <> nfc_normalize({c})" for c in NAMES)
    first = con.execute(f"SELECT file_idx, source_row, count(*) OVER () FROM staged WHERE {dirty} "
                        "ORDER BY file_idx, source_row LIMIT 1", {"unsafe": UNSAFE_RE2}).fetchone()
    if first is None:
        return []
    sets = ", ".join(f"{c} = nfc_normalize(regexp_replace({c}, $unsafe, '', 'g'))" for c in NAMES)
    con.execute(f"UPDATE staged SET {sets}", {"unsafe": UNSAFE_RE2})
    idx, row, count = first
    return [f"{count} point(s) name a model, template, sampler or task with control or bidirectional characters "
            f"(removed) or not in Unicode NFC (normalised); first: {files[idx]}, {where(files[idx], row)}"]



def _params(con: duckdb.DuckDBPyConnection, files: list[Path], text: str) -> Any:
    """One distinct `params` text, parsed; nested deeper than the limit, an error at the
    first row that gives it (found only then)."""
    if not over_depth(text):
        with suppress(RecursionError):
            return json.loads(text)
    idx, row = con.execute("SELECT file_idx, source_row FROM staged WHERE params = ? ORDER BY file_idx, source_row "
                           "LIMIT 1", [text]).fetchone() or (0, 0)
    problem = too_deep(files[idx]).problem
    raise error_at(files[idx], row, f"'params' is {problem}")


def canonicalise_params(con: duckdb.DuckDBPyConnection, files: list[Path]) -> None:
    """Rewrite `params` as canonical JSON (sorted keys, compact) so identity is textual.

    There are few distinct difficulty coordinates, so this is done once per distinct
    text in Python (json.dumps with sort_keys) and joined back in SQL.
    """
    distinct = [r[0] for r in con.execute("SELECT DISTINCT params FROM staged").fetchall()]
    mapping = [json.dumps(_params(con, files, p), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
               for p in distinct]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE canonical AS SELECT unnest(?::VARCHAR[]) AS raw, unnest(?::VARCHAR[]) AS canon",
        [distinct, mapping],
    )
    con.execute("UPDATE staged SET params = canonical.canon FROM canonical WHERE staged.params = canonical.raw")
    con.execute("DROP TABLE canonical")
