"""What a killed build leaves in the cache folder: a PointsDB it was writing
(`pointsdb-<key>.duckdb.tmp-<pid>`, with DuckDB's `.wal` file and `.tmp` spill folder). It is
never read (cache.py writes under that name and renames only a finished database), so the
next build removes those whose process is gone."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ABANDONED = re.compile(r"^pointsdb-[^/]*\.duckdb\.tmp-(\d+)(\.wal|\.tmp)?$")


def remove_abandoned(cache_dir: Path) -> None:
    """Remove the PointsDBs a killed build left half-written (its process is gone): they are
    never read, only take space."""
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
    except (PermissionError, OverflowError):
        return True
    return True
