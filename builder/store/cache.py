"""Where the build's PointsDB comes from: the cache, a fresh ingest, or `--db FILE`.

The build keeps its PointsDB in a cache directory (never inside the published output) and
reuses it while its sources are unchanged. The database holds two independent parts, each
with its own fingerprint in the `meta` table (every input file's path and content, plus the
code that shaped the tables):

* the **points** part: `points/**`, `trials/**` and `evals.json` (the points and evaluations
  tables), with the config aliases, which rename their models and tasks;
* the **reported** part: `eee/**` and `cards/*.json`, with the settings that change what is
  stored (config aliases): the reported-results and card tables.

A weekly update usually touches one part (new points, or new EEE records), so only that
part is ingested again. Any change is made in a temporary copy that replaces the old file
only once it is complete, so an interrupted or failed ingest never leaves a half-filled
database behind.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import duckdb

from ..cachekey import salted
from ..config import SiteConfig
from ..confined import open_confined
from ..errors import InputError
from ..resources import code_digest
from ..sources.evals import read_evals
from ..sources.points import POINT_SUFFIXES, describe_ignored, discover_point_files, ignored_point_files
from .consistency import Mismatch, check_evals
from .evaluations import ingest_evals
from .ingest import ingest_points
from .keys import PointAliases
from .leftovers import remove_abandoned, remove_tmp
from .pointsdb import PointsDB, sql_string
from .reported import ReportedRead, read_reported, store_reported
from .trialcodes import copy_named
from .trialfiles import discover_trial_files

#: The two parts of the store and the inputs each is made from, under the data directory:
#: (folder, glob) pairs, or (file, None).
POINTS, REPORTED = "points", "reported"
PART_SOURCES = {
    POINTS: (("points", "**/*"), ("trials", "**/*.parquet"), ("evals.json", None)),
    REPORTED: (("eee", "**/*.json"), ("cards", "*.json")),
}
PART_NAMES = {POINTS: "points", REPORTED: "reported results and cards"}
#: The store's own code and its readers', whose changes alter what is stored (both parts: a
#: schema change touches both). Everything that shapes the stored rows is in these folders
#: (store/reported.py writes the reported part), so no later stage enters the key.
CODE_FOLDERS = ("store", "sources")


def describe_ingest(ingested: tuple[str, ...]) -> str:
    """What opening the store did, in words for the build summary."""
    if not ingested:
        return "reused from cache"
    if len(ingested) == len(PART_SOURCES):
        return "ingested"
    kept = [PART_NAMES[part] for part in PART_SOURCES if part not in ingested]
    return f"{' and '.join(PART_NAMES[p] for p in ingested)} ingested again; {' and '.join(kept)} reused from cache"


#: The `meta` key of the store code's digest that wrote the database.
CODE_KEY = "store_code"


def _meta_keys(part: str) -> tuple[str, str]:
    return f"{part}_fingerprint", f"{part}_report"


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


def source_entries(data_dir: Path, part: str) -> list[tuple[str, os.DirEntry[str] | Path]]:
    """The input files of one part of the store: (path relative to `data_dir`, its entry or
    path), in the order of their paths (as `pathlib` orders them: part by part)."""
    found: list[tuple[str, os.DirEntry[str] | Path]] = []
    for name, pattern in PART_SOURCES[part]:
        path = data_dir / name
        if pattern is None:
            if path.is_file():
                found.append((name, path))
        elif path.is_dir():
            # An entry's path is the part folder's as given, a separator, and the rest.
            cut = len(str(path)) + 1
            found += [(f"{name}/{entry.path[cut:].replace(os.sep, '/')}", entry) for entry in _listing(path, pattern)
                      if entry.is_file()]
    return sorted(found, key=lambda item: item[0].split("/"))


def _listing(folder: Path, pattern: str) -> list[os.DirEntry[str]]:
    """What `folder.glob(pattern)` yields for the patterns of `PART_SOURCES` ("*.json",
    "**/*", "**/*.json", or a plain name), as directory entries, by one `os.scandir` walk:
    pathlib's recursive glob and `Path` objects cost about 0.3 s on the 7,300 inputs of a
    2,500-evaluation build, and an entry knows whether it is a file without another `stat`.
    As with the glob: hidden names match, symbolic links to folders are listed but not
    entered, names match case-sensitively, an unreadable folder is skipped
    (tests/test_cache.py compares both)."""
    recursive = pattern.startswith("**/")
    name_pattern = pattern[3:] if recursive else pattern
    if "/" in name_pattern or "**" in name_pattern:
        raise ValueError(f"unsupported input pattern {pattern!r}")
    out: list[os.DirEntry[str]] = []
    folders = [str(folder)]
    while folders:
        try:
            with os.scandir(folders.pop()) as entries:
                for entry in entries:
                    if fnmatch.fnmatchcase(entry.name, name_pattern):
                        out.append(entry)
                    if recursive and entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
        except OSError:
            continue
    return out


@dataclass(frozen=True)
class Fingerprints:
    """sha256 fingerprints of the two parts of the store's sources.

    `whole` covers both, for callers that only ask "did anything change" (the build key).
    `point_files` has one digest per points file (its path relative to the data directory,
    its content and the store's code), so a points ingest re-reads only changed files.
    """

    points: str
    reported: str
    point_files: Mapping[str, str] = field(default_factory=dict, compare=False)
    #: the store's code alone: a cached database written by other code is not built upon
    code: str = ""

    @property
    def whole(self) -> str:
        return hashlib.sha256(f"{self.points}\0{self.reported}".encode()).hexdigest()

    def of(self, part: str) -> str:
        return self.points if part == POINTS else self.reported


def fingerprints(data_dir: Path, salt: str = "") -> Fingerprints:
    """Hash (relative path, content hash) of every source file of each part and the schema
    code; `salt` (settings such as aliases) enters both parts and each points file's digest
    (aliases rename the models and tasks of points as of reported rows).
    Every file is read and hashed on every build (about 0.1 s per 100 MB)."""
    code = hashlib.sha256(code_digest(*CODE_FOLDERS).encode())
    store_code = code.digest()
    point_files: dict[str, str] = {}

    def part_hash(part: str, extra: str) -> str:
        h = code.copy()
        h.update(part.encode())
        for rel, entry in source_entries(data_dir, part):
            # Through the confined opener, like every other read of the project: a points file
            # linked to a file outside the data folder is refused here, not hashed and loaded.
            with open_confined(Path(entry), data_dir) as handle:
                content = hashlib.file_digest(handle, "sha256").digest()
            h.update(rel.encode())
            h.update(content)
            if part == POINTS:
                point_files[rel] = hashlib.sha256(store_code + salt.encode() + content).hexdigest()
        h.update(extra.encode())
        return h.hexdigest()

    return Fingerprints(points=part_hash(POINTS, salt), reported=part_hash(REPORTED, salt), point_files=point_files,
                        code=store_code.hex())


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


def ingest_reported_part(db: PointsDB, data_dir: Path, config: SiteConfig, strict: bool,
                         read: ReportedRead | None = None) -> dict[str, Any]:
    """(Re)load the reported results and cards (`store.reported`); the JSON-able summary of
    what was read and skipped is kept with the cache, so a reused database still reports
    its skipped files. `read`: the files as the caller has read them already."""
    return store_reported(db, read if read is not None else read_reported(data_dir, config, strict)).to_summary()


def open_store(data_dir: Path, cache_dir: Path, db_path: Path | None, config: SiteConfig,
               strict: bool = False, salt: str = "",
               known: Fingerprints | None = None) -> tuple[PointsDB, StoreReport]:
    """The PointsDB for this build, ingesting only the parts whose sources changed.

    `config` gives the alias tables the reported rows are keyed with; with `strict` an
    unusable EEE record or card is an error rather than a skipped file. `salt` enters the
    fingerprint (the settings that change what is stored, such as config aliases); `known`
    is the fingerprints when the caller has already computed them.

    The database comes back read-only: a build writes only temporary tables, and several
    builds (one per output directory, say) can then read one cache at the same time.
    """
    if db_path is not None:
        return _from_user_db(db_path, data_dir, config, strict)
    if not data_dir.is_dir():
        raise InputError(data_dir, "data directory not found")
    cache_dir.mkdir(parents=True, exist_ok=True)
    want = known or fingerprints(data_dir, salt)
    # Named by the code that writes it, not by the data directory: the two builds of a pull
    # request (base and head, two checkouts) share it, each re-ingesting only what differs.
    # The name is salted with this machine's secret (cachekey.py), so a database made
    # elsewhere and given the expected name is never opened.
    target = cache_dir / f"pointsdb-{salted(want.code)}.duckdb"
    summaries, same_code = _cached_summaries(target, want)
    if all(summary is not None for summary in summaries.values()):
        return PointsDB(target, read_only=True), _report(_known(summaries), ingested=())

    remove_abandoned(cache_dir)
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    stale = tuple(part for part, summary in summaries.items() if summary is None)
    db = None
    try:
        if same_code:
            # Start from the cached database (written by this code): a part that still
            # holds is kept whole, and the points part keeps the rows of every points file
            # that did not change.
            shutil.copyfile(target, tmp)
        db = PointsDB(tmp)
        with ThreadPoolExecutor(max_workers=1) as reader:
            # Reading the reported results is Python; ingesting the points is mostly DuckDB,
            # which lets go of the GIL: the reading runs beside it (a clean store phase at
            # 2,500 evaluations, 3.2 s one after the other, takes 2.0 s). The parts are still
            # stored in order, so the first error is the one a sequential ingest meets.
            reading = reader.submit(read_reported, data_dir, config, strict) if REPORTED in stale else None
            for part in stale:
                if part == POINTS:
                    summaries[part] = ingest_points_part(db, data_dir, want.point_files, PointAliases.from_tables(
                        config.model_aliases, config.benchmark_aliases))
                else:
                    assert reading is not None
                    summaries[part] = ingest_reported_part(db, data_dir, config, strict, reading.result())
                fingerprint_key, report_key = _meta_keys(part)
                db.set_meta(report_key, json.dumps(summaries[part], sort_keys=True))
                db.set_meta(fingerprint_key, want.of(part))
        db.set_meta(CODE_KEY, want.code)
        db.con.execute("CHECKPOINT")
        db.close()
        os.replace(tmp, target)
    except BaseException:
        if db is not None:
            db.close()
        remove_tmp(tmp)
        raise
    return PointsDB(target, read_only=True), _report(_known(summaries), ingested=stale)


def _cached_summaries(target: Path, want: Fingerprints) -> tuple[dict[str, dict[str, Any] | None], bool]:
    """Each part's stored ingest summary when its fingerprint still matches, else None; and
    whether the cached database was written by the same store code (only then is it
    updated in place of a fresh one)."""
    summaries: dict[str, dict[str, Any] | None] = dict[str, Any].fromkeys(PART_SOURCES)
    if not target.exists():
        return summaries, False
    try:
        with PointsDB(target, read_only=True) as db:
            for part in PART_SOURCES:
                fingerprint_key, report_key = _meta_keys(part)
                if db.get_meta(fingerprint_key) == want.of(part):
                    summaries[part] = json.loads(db.get_meta(report_key) or "{}")
            same_code = bool(want.code) and db.get_meta(CODE_KEY) == want.code
    except duckdb.Error:
        return dict.fromkeys(PART_SOURCES), False  # an unreadable cache is rebuilt from scratch
    return summaries, same_code


def _known(summaries: dict[str, dict[str, Any] | None]) -> dict[str, dict[str, Any]]:
    """The summaries once every part has one (after the check or the ingest)."""
    known = {part: summary for part, summary in summaries.items() if summary is not None}
    assert len(known) == len(summaries)
    return known


def _report(summaries: dict[str, dict[str, Any]], ingested: tuple[str, ...]) -> StoreReport:
    points = summaries[POINTS]
    return StoreReport(ingested=ingested, points=points.get("points", 0), point_files=points.get("point_files", 0),
                       warnings=list(points.get("warnings", [])), reported=summaries[REPORTED],
                       mismatches=[Mismatch.from_json(m) for m in points.get("mismatches", [])],
                       ignored=list(points.get("ignored", [])))


def _from_user_db(db_path: Path, data_dir: Path, config: SiteConfig, strict: bool) -> tuple[PointsDB, StoreReport]:
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
        elif "trials" in tables:  # written before trials were stored as integers
            copy_named(db.con, "src.trials")
        if "evaluations" in tables:
            # By name: a database written before a column was added still loads.
            db.con.execute("INSERT INTO evaluations BY NAME SELECT * FROM src.evaluations")
        db.con.execute("DETACH src")
    except duckdb.Error as exc:
        raise InputError(db_path, f"cannot read the database: {str(exc).splitlines()[0]}") from None
    report = StoreReport(ingested=tuple(PART_SOURCES),  # a fresh working copy every time
                         points=db.con.execute("SELECT count(*) FROM points").fetchall()[0][0])
    report.reported = ingest_reported_part(db, data_dir, config, strict) if data_dir.is_dir() else {}
    return db, report
