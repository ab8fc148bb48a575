"""Where the build's PointsDB comes from: the cache, a fresh ingest, or `--db FILE`.

The build keeps its PointsDB in a cache directory (never inside the published output) and
reuses it while its sources are unchanged. The database holds two independent parts
(parts.py), each with its own fingerprint in the `meta` table (every input file's path and
content, plus the code that shaped the tables). A weekly update usually touches one part
(new points, or new EEE records), so only that part is ingested again. Any change is made
in a temporary copy that replaces the old file only once it is complete, so an interrupted
or failed ingest never leaves a half-filled database behind; what a killed build left
(`pointsdb-<key>.duckdb.tmp-<pid>`, with DuckDB's `.wal` file and `.tmp` spill folder) is
never read, and removed by the next build that ingests once its process is gone.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import duckdb

from ..cachekey import salted
from ..config import SiteConfig
from ..confined import open_confined, refuse_linked_folders
from ..errors import InputError
from ..resources import code_digest
from .consistency import Mismatch
from .keys import PointAliases
from .parts import PART_NAMES, PART_SOURCES, POINTS, REPORTED, StoreReport, from_user_db, ingest_points_part, ingest_reported_part
from .pointsdb import PointsDB

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


def source_files(data_dir: Path, part: str) -> list[tuple[str, Path]]:
    """The input files of one part of the store: (path relative to `data_dir`, path), in the
    order of their paths (part by part). Links to folders are listed but not entered."""
    found: list[tuple[str, Path]] = []
    for name, pattern in PART_SOURCES[part]:
        path = data_dir / name
        if pattern is not None and path.is_dir():
            refuse_linked_folders(path, data_dir)  # before a cached store is trusted to hold them all
        matches = [path] if pattern is None else path.glob(pattern) if path.is_dir() else []
        found += [(p.relative_to(data_dir).as_posix(), p) for p in matches if p.is_file()]
    return sorted(found, key=lambda item: item[0].split("/"))


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
        for rel, path in source_files(data_dir, part):
            # Through the confined opener, like every other read of the project: a points file
            # linked to a file outside the data folder is refused here, not hashed and loaded.
            with open_confined(path, data_dir) as handle:
                content = hashlib.file_digest(handle, "sha256").digest()
            h.update(rel.encode())
            h.update(content)
            if part == POINTS:
                point_files[rel] = hashlib.sha256(store_code + salt.encode() + content).hexdigest()
        h.update(extra.encode())
        return h.hexdigest()

    return Fingerprints(points=part_hash(POINTS, salt), reported=part_hash(REPORTED, salt), point_files=point_files,
                        code=store_code.hex())


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
        return from_user_db(db_path, data_dir, config, strict)
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
        return PointsDB(target, read_only=True), _report(summaries, ingested=())

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
        for part in stale:
            if part == POINTS:
                summaries[part] = ingest_points_part(db, data_dir, want.point_files, PointAliases.from_tables(
                    config.model_aliases, config.benchmark_aliases))
            else:
                summaries[part] = ingest_reported_part(db, data_dir, config, strict)
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
    return PointsDB(target, read_only=True), _report(summaries, ingested=stale)


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


def _report(summaries: dict[str, dict[str, Any] | None], ingested: tuple[str, ...]) -> StoreReport:
    """What the store holds, once every part's summary is known (checked or ingested)."""
    points, reported = summaries[POINTS], summaries[REPORTED]
    assert points is not None and reported is not None
    return StoreReport(ingested=ingested, points=points.get("points", 0), point_files=points.get("point_files", 0),
                       warnings=list(points.get("warnings", [])), reported=reported,
                       mismatches=[Mismatch.from_json(m) for m in points.get("mismatches", [])],
                       ignored=list(points.get("ignored", [])))


ABANDONED = re.compile(r"^pointsdb-[^/]*\.duckdb\.tmp-(\d+)(\.wal|\.tmp)?$")


def remove_abandoned(cache_dir: Path) -> None:
    """Remove the PointsDBs killed builds left half-written (their process is gone)."""
    for path in cache_dir.iterdir():
        found = ABANDONED.match(path.name)
        if found and not _alive(int(found.group(1))):
            remove_tmp(path)


def remove_tmp(path: Path) -> None:
    """A PointsDB being written, with DuckDB's files beside it."""
    for leftover in (path, path.with_name(path.name + ".wal"), path.with_name(path.name + ".tmp")):
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            leftover.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process, or no such number
        pass
    return True
