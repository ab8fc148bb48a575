"""The one writer: every output byte reaches the disk through `write_site` (PRODUCT.md "nothing lost").

After Pelican's Writer and Lektor's builder:

* `SiteFiles` refuses to take one output path twice, so a URL collision is an error at
  render time instead of a silently lost page. Paths are also refused when they could
  escape the output directory, differ only in case (one file on macOS or Windows), or use a
  file name as a directory (`a.html` and `a.html/b.html`).
* `write_site` writes everything into a temporary sibling directory and swaps it into
  place only when every file was written; a failure leaves the previous site untouched.
* With `incremental=True`, a file whose bytes equal the previous build's copy is carried
  over with its modification time, so rsync/Pages deployments and browsers see only what
  changed.

It refuses to replace a directory that does not look like an earlier build (no `.nojekyll`
and holding more than the `keep` files): `--out ~` must never wipe a home directory.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..atomic import swap_directory
from .urls import check_output_path

#: Files a source checkout keeps in its otherwise-untracked output directory (the
#: repository's `site/README.md`); carried into each new build so a build does not show up
#: as a deleted file in `git status`.
KEEP = ("README.md", ".gitkeep")
#: Written by every build; its presence marks a directory the writer may replace.
MARKER = ".nojekyll"


class OutputPathError(ValueError):
    """Two pages claim one path, or a path could escape the output directory."""


class SiteFiles(dict):
    """Output path -> bytes, refusing duplicates and unsafe paths as they are added."""

    def __init__(self) -> None:
        super().__init__()
        self._folded: dict[str, str] = {}
        self._dirs: set[str] = set()

    def __setitem__(self, path: str, data: bytes) -> None:
        try:
            check_output_path(path)
        except ValueError as exc:
            raise OutputPathError(str(exc)) from None
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"{path}: output must be bytes, got {type(data).__name__}")
        if path in self:
            raise OutputPathError(f"two outputs claim the path {path!r}")
        folded = path.casefold()
        if folded in self._folded:
            raise OutputPathError(f"{path!r} and {self._folded[folded]!r} differ only in case")
        parts = path.split("/")
        parents = {"/".join(parts[:i]) for i in range(1, len(parts))}
        if path in self._dirs or any(parent in self for parent in parents):
            raise OutputPathError(f"{path!r} is used both as a file and as a directory")
        self._folded[folded] = path
        self._dirs |= parents
        super().__setitem__(path, bytes(data))

    def add(self, path: str, data: bytes) -> None:
        self[path] = data

    def setdefault(self, *args, **kwargs):  # dict.setdefault would bypass the checks above
        raise TypeError("SiteFiles only grows through add()")

    def update(self, *args, **kwargs) -> None:
        for path, data in dict(*args, **kwargs).items():
            self[path] = data


@dataclass(frozen=True)
class WriteReport:
    files: int
    bytes: int
    unchanged: int  # carried over from the previous build (incremental mode only)


def write_site(files: Mapping[str, bytes], out_dir: Path, incremental: bool = False,
               keep: tuple[str, ...] = KEEP) -> WriteReport:
    """Write `files` as the complete new content of `out_dir`, all or nothing."""
    checked = SiteFiles()
    checked.update(files)  # re-check: callers may hand in a plain dict
    out_dir = Path(out_dir)
    check_output_dir(out_dir, keep)
    previous = out_dir if out_dir.is_dir() else None
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    unchanged = 0
    try:
        for path, data in sorted(checked.items()):
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            old = previous / path if previous is not None else None
            if incremental and old is not None and _same_bytes(old, data):
                shutil.copy2(old, target)  # copy2 keeps the old mtime: "unchanged" to rsync
                unchanged += 1
            else:
                target.write_bytes(data)
        if previous is not None:
            for name in keep:
                if name not in checked and (previous / name).is_file():
                    shutil.copy2(previous / name, staging / name)
        swap_directory(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return WriteReport(files=len(checked), bytes=sum(len(d) for d in checked.values()), unchanged=unchanged)


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def check_output_dir(out_dir: Path, keep: tuple[str, ...] = KEEP) -> None:
    """Refuse an output path that is a file, or a directory holding something other than a
    reasonboard site (so a mistyped `--out` never replaces someone's files). The build
    calls this before its slow steps, and the writer again just before writing."""
    out_dir = Path(out_dir)
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
