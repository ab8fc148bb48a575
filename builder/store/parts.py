"""The two parts of the PointsDB, what each is made from, and how each is filled.

* the **points** part: `points/**`, `trials/**` and `evals.json` (the points and evaluations
  tables), with the config aliases, which rename their models and tasks;
* the **reported** part: `eee/**` and `cards/*.json`, with the settings that change what is
  stored (config aliases): the reported-results and card tables.

Filling a part is the same whether the database is new or a cached one being brought up to
date (cache.py decides which parts to fill); `--db FILE`, a user's own database, is copied
into a working one here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import duckdb

from ..config import SiteConfig
from ..errors import InputError
from ..sources.evals import read_evals
from ..sources.points import POINT_SUFFIXES, describe_ignored, discover_point_files, ignored_point_files
from .consistency import Mismatch, check_evals
from .evaluations import ingest_evals
from .ingest import ingest_points
from .keys import PointAliases
from .pointsdb import PointsDB, sql_string
from .reported import load_reported
from .trialcodes import copy_named
from .trialfiles import discover_trial_files
from .trialsummary import summarise_budgets, summarise_trials

#: The two parts of the store and the inputs each is made from, under the data directory:
#: (folder, glob) pairs, or (file, None).
POINTS, REPORTED = "points", "reported"
PART_SOURCES = {
    POINTS: (("points", "**/*"), ("trials", "**/*.parquet"), ("evals.json", None)),
    REPORTED: (("eee", "**/*.json"), ("cards", "*.json")),
}
PART_NAMES = {POINTS: "points", REPORTED: "reported results and cards"}


@dataclass
class StoreReport:
    """What opening the store did, for the build summary."""

    #: the parts ingested by this opening (empty: the cached database was reused whole)
    ingested: tuple[str, ...] = ()
    points: int = 0
    point_files: int = 0
    warnings: list[str] = field(default_factory=list)
    reported: dict[str, Any] = field(default_factory=dict[str, Any])
    #: where evals.json and the points disagree (also among `warnings`; `--strict` fails)
    mismatches: list[Mismatch] = field(default_factory=list)
    #: files under points/ that were not read (wrong suffix), relative to the data directory
    ignored: list[str] = field(default_factory=list)

    @property
    def reused(self) -> bool:
        return not self.ingested


def ingest_points_part(db: PointsDB, data_dir: Path, digests: Mapping[str, str] | None = None,
                       aliases: PointAliases | None = None) -> dict[str, Any]:
    """(Re)fill the points and evaluations tables; returns the part's ingest summary.
    `digests` (`Fingerprints.point_files`) lets unchanged points files keep their rows;
    `aliases` rename models and tasks in the points and `evals.json` alike."""
    aliases = aliases or PointAliases()
    points = ingest_points(db, discover_point_files(data_dir) + discover_trial_files(data_dir), data_dir, digests,
                           aliases)
    evals_path = data_dir / "evals.json"
    entries = aliased_evals(read_evals(evals_path), aliases) if evals_path.is_file() else []
    ingest_evals(db, entries)
    summarise_budgets(db.con)  # the budget sweep's sums read the limits evals.json records
    mismatches = check_evals(db, entries, evals_path)
    ignored = ignored_point_files(data_dir)
    warnings = list(points.warnings) + [m.message for m in mismatches]
    if ignored and points.points:
        warnings.append(f"{data_dir / 'points'}: ignored {describe_ignored(ignored, data_dir)} "
                        f"(only {', '.join(POINT_SUFFIXES)} files are read)")
    return {"points": points.points, "point_files": points.files, "warnings": warnings,
            "mismatches": [m.to_json() for m in mismatches],
            "ignored": [p.relative_to(data_dir).as_posix() for p in ignored]}


def aliased_evals(entries: list[dict[str, Any]], aliases: PointAliases) -> list[dict[str, Any]]:
    """`evals.json` entries with their models (and likelihood tasks) renamed by the aliases; where two then name one
    evaluation, the entry written under the name itself is kept (else the first)."""
    if not aliases.models and not aliases.tasks:
        return entries
    renamed = [{**e, "model": aliases.model(e["model"]),
                "likelihood_tasks": sorted({aliases.task(t) for t in e.get("likelihood_tasks", [])})} for e in entries]
    own_name = sorted(range(len(entries)), key=lambda i: (entries[i]["model"] != renamed[i]["model"], i))
    kept: dict[tuple[str, str, str], int] = {}
    for i in own_name:
        kept.setdefault((renamed[i]["model"], renamed[i]["template"], renamed[i]["sampler"]), i)
    return [renamed[i] for i in sorted(kept.values())]


def ingest_reported_part(db: PointsDB, data_dir: Path, config: SiteConfig, strict: bool) -> dict[str, Any]:
    """(Re)load the reported results and cards (`store.reported`); the JSON-able summary of
    what was read and skipped is kept with the cache, so a reused database still reports
    its skipped files."""
    return load_reported(db, data_dir, config, strict).to_summary()


def from_user_db(db_path: Path, data_dir: Path, config: SiteConfig, strict: bool) -> tuple[PointsDB, StoreReport]:
    """Copy points and evaluations out of a user's database (opened read-only, never
    modified) into a working in-memory PointsDB, then add the reported results."""
    if not db_path.is_file():
        raise InputError(db_path, "database file not found")
    db = PointsDB()
    try:
        db.con.execute(f"ATTACH {sql_string(db_path)} AS src (READ_ONLY)")
        tables = {r[0] for r in db.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'src'").fetchall()}
        if "points" not in tables:
            raise InputError(db_path, "not a PointsDB: it has no 'points' table")
        have = {r[0] for r in db.con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = 'src' "
                                             "AND table_name = 'points'").fetchall()}
        # A database written before points had samples and a design effect: as many samples as trials.
        added = [f"{expr} AS {name}" for name, expr in (("samples", "total"), ("deff", "1.0"), ("partial", "NULL"))
                 if name not in have]
        db.con.execute(f"INSERT INTO points BY NAME SELECT *{''.join(', ' + a for a in added)} FROM src.points")
        if "trial_points" in tables:
            for table in ("trial_points", "trial_samples", "trials"):
                db.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM src.{table}")
            # Its trials are summed here, as the store sums a data folder's (trialsummary.py).
            summarise_trials(db.con, -2**31, totals=None)
        elif "trials" in tables:  # written before trials were stored as integers
            copy_named(db.con, "src.trials")
        if "evaluations" in tables:
            # By name: a database written before a column was added still loads.
            db.con.execute("INSERT INTO evaluations BY NAME SELECT * FROM src.evaluations")
        db.con.execute("DETACH src")
        summarise_budgets(db.con)
    except duckdb.Error as exc:
        raise InputError(db_path, f"cannot read the database: {str(exc).splitlines()[0]}") from None
    report = StoreReport(ingested=tuple(PART_SOURCES),  # a fresh working copy every time
                         points=db.con.execute("SELECT count(*) FROM points").fetchall()[0][0])
    report.reported = ingest_reported_part(db, data_dir, config, strict) if data_dir.is_dir() else {}
    return db, report
