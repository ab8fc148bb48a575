"""The one writer: every output byte reaches the disk through `write_site` (PRODUCT.md "nothing lost").

After Pelican's Writer and Lektor's builder:

* `SiteFiles` (and the writer, for a stream of files) refuses to take one output path twice,
  so a URL collision is an error at render time instead of a silently lost page. Paths are
  also refused when they could escape the output directory, differ only in case (one file on
  macOS or Windows), or use a file name as a directory (`a.html` and `a.html/b.html`).
* `write_site` takes the files as a stream (the site is never held in memory whole) and
  makes the complete new site in a staging directory beside the output: each new or changed
  file written, each unchanged one hard-linked from the previous site. Only then does the
  new directory take the old one's place, in one step (`atomic.swap_directory`), so a reader
  sees the old site or the new one, never a mix, whenever the build is killed. A failure
  before that (a render error, a full disk) removes the staging directory and leaves the
  previous site untouched; the next build removes what a killed one left. The previous
  site is never copied. Forked render workers
  stage their pages themselves (`Stage.put`) and hand the writer only a `Staged` record, so
  the bytes of a page cross no process boundary; the guarantee is the same, since nothing
  leaves the staging directory before every file of the site is there.
* A file whose bytes equal the previous build's copy is left alone, with its modification
  time, so rsync/Pages deployments and browsers see only what changed (`incremental=False`
  rewrites every file).

It refuses to replace a directory that does not look like an earlier build (no `.nojekyll`
and holding more than the `keep` files): `--out ~` must never wipe a home directory.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from ..atomic import recover, swap_directory
from .urls import check_output_path

#: Files a source checkout keeps in its otherwise-untracked output directory (the
#: repository's `site/README.md`); carried into each new build so a build does not show up
#: as a deleted file in `git status`.
KEEP = ("README.md", ".gitkeep")
#: Written by every build; its presence marks a directory the writer may replace.
MARKER = ".nojekyll"


class OutputPathError(ValueError):
    """Two pages claim one path, or a path could escape the output directory."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        #: the output path refused
        self.path = path


class DuplicatePath(OutputPathError):
    """Two outputs claim one path."""


class OutputPaths:
    """The paths claimed so far, refusing duplicates and unsafe paths as they are claimed
    (paths only: the writer checks a stream of files without keeping their bytes)."""

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self._folded: dict[str, str] = {}
        self._dirs: set[str] = set()

    def __contains__(self, path: object) -> bool:
        return path in self.paths

    def claim(self, path: str, data: object) -> None:
        try:
            check_output_path(path)
        except ValueError as exc:
            raise OutputPathError(str(exc), path) from None
        if not isinstance(data, (bytes, bytearray, Staged)):
            raise TypeError(f"{path}: output must be bytes, got {type(data).__name__}")
        if path in self.paths:
            raise DuplicatePath(f"two outputs claim the path {path!r}", path)
        folded = path.casefold()
        if folded in self._folded:
            raise OutputPathError(f"{path!r} and {self._folded[folded]!r} differ only in case", path)
        parts = path.split("/")
        parents = {"/".join(parts[:i]) for i in range(1, len(parts))}
        if path in self._dirs or any(parent in self.paths for parent in parents):
            raise OutputPathError(f"{path!r} is used both as a file and as a directory", path)
        self.paths.add(path)
        self._folded[folded] = path
        self._dirs |= parents


class SiteFiles(Mapping[str, bytes]):
    """Output path -> bytes, in memory (tests, tools): a read-only mapping that grows only
    through `add`, which refuses duplicates and unsafe paths."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._paths = OutputPaths()

    def add(self, path: str, data: bytes) -> None:
        self._paths.claim(path, data)
        self._files[path] = bytes(data)

    def __getitem__(self, path: str) -> bytes:
        return self._files[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


@dataclass(frozen=True)
class WriteReport:
    files: int
    bytes: int
    unchanged: int  # left as the previous build wrote them
    #: Every output path of the new site, sorted (the build state records them).
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Staged:
    """In a stream of files: this output was already handed to the stage by someone else
    (a forked render worker, through `Stage.put`): `size` bytes, `written` into the staging
    directory, or not written because the file on disk already holds exactly these bytes."""

    size: int
    written: bool


Output = bytes | Staged


class Stage:
    """The staging directory of one `write_site`: the complete new site is made here, then
    takes the place of the previous one in one step (`atomic.swap_directory`).

    `put` is the one way a new or changed file gets staged. It only creates files inside
    the staging directory, so forked workers may call it at the same time as the parent
    (each with its own paths) and return the `Staged` record for the parent to pass to the
    writer. A file the previous site already holds with these bytes is not written again:
    `write` links it into the new tree (a hard link: the same file, with its modification
    time, at no cost in bytes). Nothing reaches the site unless `write` gets to its end:
    any failure, in any process, leaves the previous site untouched."""

    def __init__(self, out_dir: Path, directory: Path, incremental: bool, keep: tuple[str, ...]) -> None:
        self.out_dir = out_dir
        self.dir = directory
        self.incremental = incremental
        self.keep = keep
        #: the previous site, once the new one has taken its place (for `staging` to remove)
        self.retired: Path | None = None

    def put(self, path: str, data: bytes) -> Staged:
        """Stage `data` as `path`, unless (incrementally) the site already has these bytes
        there, so that file keeps its modification time."""
        if self.incremental and _same_bytes(self.out_dir / path, data):
            return Staged(len(data), written=False)
        target = self.dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return Staged(len(data), written=True)

    def write(self, files: Mapping[str, bytes] | Iterable[tuple[str, Output]]) -> WriteReport:
        """Take `files` (a mapping, or a stream of (path, bytes / Staged)) as the complete new
        content of the site, and replace the site with them. This is where every output path
        is claimed, once."""
        items = files.items() if isinstance(files, Mapping) else files
        claimed = OutputPaths()
        total = unchanged = 0
        for path, data in items:
            claimed.claim(path, data)
            record = data if isinstance(data, Staged) else self.put(path, data)
            total += record.size
            if not record.written:
                self._link(path)
                unchanged += 1
        for name in self.keep:  # the checkout's own files of the output folder come along
            if name not in claimed and _regular(self.out_dir / name):
                self._link(name)
        check_output_dir(self.out_dir, self.keep)  # still a site (or absent) now that everything is staged
        self.retired = swap_directory(self.dir, self.out_dir)
        return WriteReport(files=len(claimed.paths), bytes=total, unchanged=unchanged,
                           paths=tuple(sorted(claimed.paths)))

    def _link(self, path: str) -> None:
        """The previous site's `path` into the new tree, as the same file."""
        source, target = self.out_dir / path, self.dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target, follow_symlinks=False)
        except OSError:  # a file system without hard links: a copy, with its times
            shutil.copy2(source, target, follow_symlinks=False)


@contextmanager
def staging(out_dir: Path, incremental: bool = True, keep: tuple[str, ...] = KEEP) -> Iterator[Stage]:
    """A `Stage` beside `out_dir`; on the way out it is removed (not written), or the
    previous site it replaced is. What a killed build left beside `out_dir` is cleared
    first (`atomic.recover`)."""
    out_dir = Path(out_dir)
    recover(out_dir)
    check_output_dir(out_dir, keep)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    stage = Stage(out_dir, directory, incremental, keep)
    try:
        yield stage
    finally:
        shutil.rmtree(stage.retired or directory, ignore_errors=True)


def write_site(files: Mapping[str, bytes] | Iterable[tuple[str, Output]], out_dir: Path,
               incremental: bool = True,
               keep: tuple[str, ...] = KEEP) -> WriteReport:
    """Write `files` (a mapping, or a stream of (path, bytes)) as the complete new content of
    `out_dir`, all or nothing (see the module docstring)."""
    with staging(out_dir, incremental, keep) as stage:
        return stage.write(files)


def _regular(path: Path) -> bool:
    """A regular file, not a link (a planted link in an old site is never carried over)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        if not _regular(path) or path.stat().st_size != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def check_output_dir(out_dir: Path, keep: tuple[str, ...] = KEEP) -> None:
    """Refuse an output path that is a file, or a directory holding something other than a
    reasonboard site (so a mistyped `--out` never replaces someone's files). The build
    calls this before its slow steps, and the writer again just before writing."""
    out_dir = Path(out_dir)
    if out_dir.is_symlink():
        raise OutputPathError(f"{out_dir} is a symbolic link (to {os.readlink(out_dir)}); refusing to write through "
                              "it: give the folder itself as --out")
    if not out_dir.is_dir():
        if out_dir.exists():
            raise OutputPathError(f"{out_dir} exists and is not a directory")
        return
    if (out_dir / MARKER).is_file():
        return
    extra = sorted(p.name for p in out_dir.iterdir() if p.name not in keep)
    if extra:
        raise OutputPathError(
            f"refusing to replace {out_dir}: it does not look like a reasonboard site "
            f"(no {MARKER}; contains {extra[0]!r})")
