"""Where the build's PointsDB comes from: the cache, a fresh ingest, or `--db FILE`.

The build keeps its PointsDB in a cache directory (never inside the published output) and
reuses it while its sources are unchanged: a fingerprint of every input file's path and
content, plus the SQL and ingest code that shaped the tables, is stored in the database's
`meta` table. A changed fingerprint means a fresh ingest into a temporary file that
replaces the old one only once it is complete, so an interrupted or failed ingest never
leaves a half-filled database behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import duckdb

from ..errors import InputError
from .ingest import discover_point_files, ingest_evals, ingest_points, read_evals
from .pointsdb import SQL_DIR, PointsDB

FINGERPRINT_KEY = "sources_fingerprint"
REPORT_KEY = "ingest_report"
#: Input kinds, by the folder or file they live in under the data directory.
SOURCE_GLOBS = (("points", "**/*"), ("eee", "**/*.json"), ("cards", "*.json"))


@dataclass
class StoreReport:
    """What opening the store did, for the build summary."""

    reused: bool = False
    points: int = 0
    point_files: int = 0
    warnings: list[str] = field(default_factory=list)
    reported: dict = field(default_factory=dict)


def source_files(data_dir: Path) -> list[Path]:
    files = []
    for folder, pattern in SOURCE_GLOBS:
        root = data_dir / folder
        if root.is_dir():
            files.extend(p for p in root.glob(pattern) if p.is_file())
    evals = data_dir / "evals.json"
    if evals.is_file():
        files.append(evals)
    return sorted(files)


def fingerprint(data_dir: Path, extra: str = "") -> str:
    """sha256 over (relative path, content hash) of every source file and the schema code."""
    h = hashlib.sha256()
    package = Path(__file__).parent.parent
    code = [*sorted(SQL_DIR.glob("*.sql")),
            *(p for folder in ("store", "sources", "signals") for p in sorted((package / folder).glob("*.py")))]
    for path in code:
        h.update(path.name.encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    for path in source_files(data_dir):
        h.update(path.relative_to(data_dir).as_posix().encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    h.update(extra.encode())
    return h.hexdigest()


def ingest_all(db: PointsDB, data_dir: Path, load_reported: Callable[[PointsDB], dict]) -> StoreReport:
    """Fill an empty PointsDB from the data directory; raises `InputError` on bad input."""
    report = StoreReport()
    files = discover_point_files(data_dir)
    points = ingest_points(db, files, data_dir)
    report.points, report.point_files = points.points, points.files
    report.warnings.extend(points.warnings)
    evals_path = data_dir / "evals.json"
    if evals_path.is_file():
        ingest_evals(db, read_evals(evals_path))
    report.reported = load_reported(db)
    return report


def open_store(data_dir: Path, cache_dir: Path, db_path: Path | None,
               load_reported: Callable[[PointsDB], dict], salt: str = "",
               known_fingerprint: str | None = None) -> tuple[PointsDB, StoreReport]:
    """The PointsDB for this build, ingesting only when the sources changed.

    `load_reported(db)` loads the reported results and cards (the signals' inputs) and
    returns a JSON-able summary of what it read and skipped, kept with the cache so a
    reused database still reports its skipped files. `salt` enters the fingerprint (the
    settings that change what is stored, such as config aliases); `known_fingerprint` is
    that fingerprint when the caller has already computed it.
    """
    if db_path is not None:
        return _from_user_db(db_path, data_dir, load_reported)
    if not data_dir.is_dir():
        raise InputError(data_dir, "data directory not found")
    cache_dir.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:12]
    target = cache_dir / f"pointsdb-{key}.duckdb"
    want = known_fingerprint or fingerprint(data_dir, salt)
    if target.exists():
        try:
            db = PointsDB(target)
            if db.get_meta(FINGERPRINT_KEY) == want:
                stored = json.loads(db.get_meta(REPORT_KEY) or "{}")
                return db, StoreReport(reused=True, points=stored.get("points", 0),
                                       point_files=stored.get("point_files", 0),
                                       warnings=stored.get("warnings", []), reported=stored.get("reported", {}))
            db.close()
        except duckdb.Error:
            pass  # an unreadable cache is rebuilt below
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    db = PointsDB(tmp)
    try:
        report = ingest_all(db, data_dir, load_reported)
        db.set_meta(REPORT_KEY, json.dumps({"points": report.points, "point_files": report.point_files,
                                            "warnings": report.warnings, "reported": report.reported},
                                           sort_keys=True))
        db.set_meta(FINGERPRINT_KEY, want)
        db.con.execute("CHECKPOINT")
        db.close()
        os.replace(tmp, target)
    except BaseException:
        db.close()
        tmp.unlink(missing_ok=True)
        raise
    return PointsDB(target), report


def _from_user_db(db_path: Path, data_dir: Path, load_reported: Callable[[PointsDB], dict]) -> tuple[PointsDB, StoreReport]:
    """Copy points and evaluations out of a user's database (opened read-only, never
    modified) into a working in-memory PointsDB, then add the reported results."""
    if not db_path.is_file():
        raise InputError(db_path, "database file not found")
    db = PointsDB()
    try:
        db.con.execute("ATTACH ? AS src (READ_ONLY)", [str(db_path)])
        tables = {r[0] for r in db.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'src'").fetchall()}
        if "points" not in tables:
            raise InputError(db_path, "not a PointsDB: it has no 'points' table")
        db.con.execute("INSERT INTO points SELECT * FROM src.points")
        if "evaluations" in tables:
            db.con.execute("INSERT INTO evaluations SELECT * FROM src.evaluations")
        db.con.execute("DETACH src")
    except duckdb.Error as exc:
        raise InputError(db_path, f"cannot read the database: {str(exc).splitlines()[0]}") from None
    report = StoreReport(points=db.con.execute("SELECT count(*) FROM points").fetchone()[0])
    report.reported = load_reported(db) if data_dir.is_dir() else {}
    return db, report
