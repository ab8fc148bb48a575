"""Writing files so that no reader ever sees half of one: the one place that does it.

Every output (a cache file, the build state, ingested points, a whole site or export) is
written to a temporary name beside its target and renamed over it; a rename within one
directory is atomic. Temporary names are unique (`mkstemp`), never fixed or derived from the
process id alone, so several builds sharing one cache directory (CI running four jobs at once)
never write into each other's temporary file.
"""

from __future__ import annotations

import ctypes
import errno
import filecmp
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .interrupt import held_interrupts


def write_atomically(target: Path, data: bytes) -> None:
    """Replace `target` with `data` in one step (its directory is made if missing)."""
    write_files_atomically({target: data}, skip_same=False)


def write_files_atomically(files: Mapping[Path, bytes | Path], *, skip_same: bool = True) -> None:
    """Stage every file first, then rename them all: a failure while staging changes nothing.

    A value is the file's bytes, or a file the caller already wrote beside its target (in
    the same directory, so the rename is atomic): a large output need not be held in memory.

    With `skip_same`, a file that already holds exactly these bytes is left alone (and so
    keeps its mtime, which incremental rebuilds read).
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for target, data in sorted(files.items()):
            if isinstance(data, Path):
                staged.append((data, target))
                if skip_same and target.is_file() and filecmp.cmp(data, target, shallow=False):
                    staged.pop()
                    data.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if skip_same and target.is_file() and target.read_bytes() == data:
                continue
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            with os.fdopen(fd, "wb") as fh:
                _keep_mode(fh.fileno(), target)
                fh.write(data)
            staged.append((Path(name), target))
        with held_interrupts():  # all of them or none, even on Ctrl-C
            for temporary, target in staged:
                os.replace(temporary, target)
            staged = []
    finally:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)


def _keep_mode(fd: int, target: Path) -> None:
    """Give a staged file the mode its target has (a user's `evals.json` stays readable by
    whoever could read it), or a new file's usual mode under the umask: `mkstemp` makes its
    file private (0600), and the rename would carry that over."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)


def _umask() -> int:
    """The process's umask (read by setting it and back: the only way POSIX offers)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def swap_directory(staging: Path, out_dir: Path) -> Path | None:
    """Put a finished directory (a site, an export) in the place of `out_dir` in one step, so
    that no reader ever sees a mix of the two: `renameat2(RENAME_EXCHANGE)` swaps the two
    names at once (Linux 3.15+, on ext4, XFS, Btrfs, tmpfs and most local file systems).
    Where the system has no such call, two renames: the old directory to `.NAME.old-*`, the
    new one to `out_dir`; between them a reader finds no site (never a mixed one), and a
    build killed there has its old site put back by the next (`recover`).

    Returns the previous directory, now under a temporary name, for the caller to remove
    (None when there was none)."""
    staging.chmod(0o755)  # mkdtemp makes it private; what is published must be readable
    with held_interrupts():  # the whole switch or none of it, even on Ctrl-C
        if not out_dir.exists():
            os.replace(staging, out_dir)
            return None
        if exchange(staging, out_dir):
            return staging
        retired = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=out_dir.parent))
        os.rmdir(retired)
        os.replace(out_dir, retired)
        try:
            os.replace(staging, out_dir)
        except BaseException:
            os.replace(retired, out_dir)  # put the previous one back
            raise
        return retired


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path) -> bool:
    """Swap the names `a` and `b` atomically; False where the system cannot (then nothing
    moved), an `OSError` for any other failure."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        call = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # glibc before 2.28, musl: no wrapper
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), os.fspath(b))


def recover(out_dir: Path) -> None:
    """Before a build writes `out_dir`: put back the previous site when a build was killed
    between the two renames of the fallback switch (no `out_dir`, one `.NAME.old-*`), then
    remove what killed builds left beside it: staging folders (`.NAME.new-*`) and retired
    sites. One build at a time writes one output folder."""
    parent = out_dir.parent
    if not parent.is_dir():
        return
    retired = sorted(parent.glob(f".{out_dir.name}.old-*"))
    if not out_dir.exists() and not out_dir.is_symlink() and len(retired) == 1:
        os.replace(retired.pop(), out_dir)
    for stale in [*retired, *parent.glob(f".{out_dir.name}.new-*")]:
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
