"""Writing files so that no reader ever sees half of one: the one place that does it.

Every output (a cache file, the build state, ingested points, a whole site or export) is
written to a temporary name beside its target and renamed over it; a rename within one
directory is atomic. Temporary names are unique (`mkstemp`), never fixed or derived from the
process id alone, so several builds sharing one cache directory (CI running four jobs at once)
never write into each other's temporary file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path


def write_atomically(target: Path, data: bytes) -> None:
    """Replace `target` with `data` in one step (its directory is made if missing)."""
    write_files_atomically({target: data}, skip_same=False)


def write_files_atomically(files: Mapping[Path, bytes], *, skip_same: bool = True) -> None:
    """Stage every file first, then rename them all: a failure while staging changes nothing.

    With `skip_same`, a file that already holds exactly these bytes is left alone (and so
    keeps its mtime, which incremental rebuilds read).
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for target, data in sorted(files.items()):
            target.parent.mkdir(parents=True, exist_ok=True)
            if skip_same and target.is_file() and target.read_bytes() == data:
                continue
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            staged.append((Path(name), target))
        for temporary, target in staged:
            os.replace(temporary, target)
        staged = []
    finally:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)


def swap_directory(staging: Path, out_dir: Path) -> None:
    """Move a finished directory (a site, an export) into place; the old one is removed only
    after the move, and put back if the move fails."""
    staging.chmod(0o755)  # mkdtemp makes it private; what is published must be readable
    if not out_dir.exists():
        os.replace(staging, out_dir)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
    os.rmdir(retired)
    os.replace(out_dir, retired)
    try:
        os.replace(staging, out_dir)
    except BaseException:
        os.replace(retired, out_dir)  # put the previous one back
        raise
    shutil.rmtree(retired, ignore_errors=True)
