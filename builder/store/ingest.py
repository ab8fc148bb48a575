"""Loading `points/*.csv|jsonl|parquet` and `trials/*.parquet` into the PointsDB, with validation (`evals.json`:
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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, NamedTuple

import duckdb

from ..sources.points import relative_path, where
from .evaluations import ingest_evals
from .keys import PointAliases
from .pointsdb import IDENTITY, PointsDB, fetch_as
from .staging import stage
from .trialcodes import remove_sources
from .trialrows import check_clashes, old_ingested_warning

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
    remove_sources(con, "kept_files")
    report.warnings += stage(con, files, rels, fresh)
    (aliases or PointAliases()).rename_staged(con)
    # Rows of changed and removed files go; the staged rows of changed and new files come.
    con.execute("DELETE FROM point_rows WHERE source NOT IN (SELECT source FROM kept_files)")
    con.execute(
        """
        INSERT INTO point_rows
        SELECT model, template, sampler, base_task, params,
               total::BIGINT, correct::BIGINT, truncated::BIGINT, guess::DOUBLE, tokens::DOUBLE,
               coalesce(nullif(trim(samples), '')::BIGINT, total::BIGINT),
               coalesce(deff::DOUBLE, total::BIGINT / nullif(trim(samples), '')::BIGINT, 1.0),
               partial::BIGINT, tiers, groups, source, source_row
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
    _choose_points(con, files, rels, report)
    check_clashes(con, data_dir)
    old = old_ingested_warning(con)
    if old:
        report.warnings.append(old)
    return report


def _choose_points(con: duckdb.DuckDBPyConnection, files: list[Path], rels: list[str], report: IngestReport) -> None:
    """Fill `points` with one row per identity from `point_rows`: the later file (in the
    order of `files`) and then the later row wins; the overridden rows are counted and the
    first of them named. Every identity is chosen again after any change: at 625
    evaluations (96,121 points) that took 0.25 s of CPU, against 0.02 s for choosing only
    the identities of one changed file, as this did before."""
    con.execute("CREATE OR REPLACE TEMP TABLE file_order AS "
                "SELECT unnest(?::VARCHAR[]) AS source, unnest(?::INTEGER[]) AS file_idx",
                [rels, list(range(len(rels)))])
    columns = (f"{IDENTITY_SQL}, total, correct, truncated, guess, tokens, samples, deff, partial, tiers, groups, "
               "source, source_row")
    # Only identities given more than once need ranking (usually none): the other rows go
    # straight to the one sorted insert, which is most of the cost.
    con.execute(f"CREATE OR REPLACE TEMP TABLE repeated AS SELECT {IDENTITY_SQL} FROM point_rows "
                "GROUP BY ALL HAVING count(*) > 1")
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


def _ranked(among: str) -> str:
    """The rows of `point_rows` whose identity is in the temp table `among`, each with its
    file's position and its rank among its identity's rows (1: the one kept)."""
    return f"""
        SELECT r.*, o.file_idx, row_number() OVER (PARTITION BY {IDENTITY_SQL}
                                                   ORDER BY o.file_idx DESC, r.source_row DESC) AS rn
        FROM (SELECT * FROM point_rows SEMI JOIN {among} USING ({IDENTITY_SQL})) r JOIN file_order o USING (source)
    """
