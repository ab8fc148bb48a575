"""Putting an export in place: all or nothing, and never over files a user wrote.

The export directory is written whole into a temporary sibling and swapped into place only
when every file is there, so an interrupted export leaves the previous one untouched.

Which directories may be replaced: one that does not exist, an empty one, or one made by an
earlier export. An export writes a manifest, `.reasonboard-export`, listing every file it
wrote; a directory is an earlier export when it has that manifest and holds no file the
manifest does not list. Anything else (a file a user added, or a directory that never held
an export, such as a checkout of the corpus itself) is refused, naming the first such file:
replacing the directory would delete it. The manifest has no `.json` suffix, so pointing the
EEE reader at an export directory never takes it for a record.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..atomic import swap_directory

MANIFEST = ".reasonboard-export"
HEADER = "# Written by `reasonboard export`; every file below is replaced by the next export.\n"


class ExportPathError(ValueError):
    """The output directory holds something an export must not replace."""


def check_export_dir(out_dir: Path) -> None:
    """Raise `ExportPathError` unless `out_dir` may be replaced by a new export."""
    out_dir = Path(out_dir)
    if not out_dir.is_dir():
        if out_dir.exists():
            raise ExportPathError(f"{out_dir} exists and is not a directory")
        return
    found = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*") if not p.is_dir())
    if not found:
        return
    manifest = out_dir / MANIFEST
    if not manifest.is_file():
        raise ExportPathError(f"refusing to replace {out_dir}: it is not an earlier export "
                              f"(no {MANIFEST}; contains {found[0]!r})")
    lines = manifest.read_text(encoding="utf-8", errors="replace").splitlines()
    listed = {line for line in lines if line and not line.startswith("#")}
    foreign = [path for path in found if path != MANIFEST and path not in listed]
    if foreign:
        raise ExportPathError(f"refusing to replace {out_dir}: {foreign[0]!r} was not written by an export "
                              "(move it away, or export to another directory)")


def write_export(files: Mapping[str, bytes], out_dir: Path) -> None:
    """Write `files` (relative POSIX path -> bytes) and the manifest as the whole of `out_dir`."""
    out_dir = Path(out_dir)
    for path in files:
        parts = path.split("/")
        if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts) or path == MANIFEST:
            raise ExportPathError(f"unsafe export path {path!r}")
    check_export_dir(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=out_dir.parent))
    try:
        for path, data in sorted(files.items()):
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (staging / MANIFEST).write_text(HEADER + "".join(f"{p}\n" for p in sorted(files)), encoding="utf-8")
        previous = swap_directory(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)
