"""`reasonboard release NAME`: snapshot the current build's data files into
`PROJECT/releases/NAME/` (PRODUCT.md "Releases and history"; the layout is
`sources/releases.py`'s).

The build runs first (it has nothing to do when the site is up to date), so the snapshot is
of the data as they are; then the previous release's data files are compared with these
(`diff/releasenotes.py`) and the snapshot is written to a hidden folder beside its place and
renamed into it only when whole. A release is never overwritten, and a release must come
after every existing one (date, then name), so that "the previous release" of each one
stays what it was when it was made. Then the site is built again, with the new release's
pages.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import __version__
from .build import BuildOptions, BuildSummary, run_build
from .config import load_config
from .diff.releasenotes import release_changes
from .diff.samples import DEFAULTS, paired_changes
from .errors import InputError
from .outputs import dump_json
from .sources.evals import read_evals
from .sources.releases import (
    BOARD,
    CHANGES,
    DATA_FILES,
    FOLDER,
    MANIFEST,
    MAX_DATA,
    SAMPLES,
    SCHEMA,
    ReleaseSnapshot,
    board_document,
    check_date,
    check_name,
    compress,
    parse_json,
    read_bytes,
    read_data,
    read_releases,
)
from .stats.paired import PairedTest


@dataclass(frozen=True)
class Released:
    name: str
    date: str
    folder: Path
    previous: str | None
    files: int
    bytes: int
    #: the build after the snapshot, with the release's pages
    build: BuildSummary

    def render(self) -> str:
        since = f"compared with {self.previous}" if self.previous else "the first release"
        # The summary is the second build's (the site with the release's pages), so it says so.
        return (f"Released {self.name} ({self.date}, {since}): {self.files} files, {self.bytes:,} bytes in "
                f"{self.folder}; commit that folder.\nThen the site, built again with the release's pages:\n"
                f"{self.build.render()}")


def release_date(given: str | None, environ: dict[str, str] | None = None) -> str:
    """`--date`, else the UTC date of `SOURCE_DATE_EPOCH`, else today."""
    if given is not None:
        return check_date(given)
    epoch = (os.environ if environ is None else environ).get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        if not epoch.isdigit():
            raise InputError("SOURCE_DATE_EPOCH", f"must be a whole number of seconds, got {epoch!r}")
        return datetime.datetime.fromtimestamp(int(epoch), tz=datetime.UTC).date().isoformat()
    return datetime.date.today().isoformat()


def make_release(options: BuildOptions, name: str, date: str | None = None,
                 progress: Callable[[str], None] | None = None) -> Released:
    check_name(name)
    project = options.resolve()
    folder = project.root / FOLDER / name
    if folder.exists() or folder.is_symlink():
        raise InputError(folder, "exists already; a release is never overwritten (choose another name)")
    when = release_date(date)
    existing = read_releases(project.root)  # every snapshot checked before anything is written
    latest = existing[-1] if existing else None
    if latest is not None and (when, name) <= (latest.date, latest.name):
        raise InputError(folder, f"would come before the latest release {latest.name} ({latest.date}); a release "
                                 "must come after every existing one by date, then name")
    run_build(options, progress)
    data = project.out_dir / "data"
    documents = {n: parse_json(data / n, read_bytes(data / n, MAX_DATA))
                 for n in DATA_FILES if (data / n).is_file() or n == "leaderboard.json"}
    files = snapshot_files(name, when, documents, latest, project.root, _simulated(project.data_dir),
                           _samples(data / SAMPLES), data / SAMPLES, load_config(project.config_path).paired_draws)
    write_new(folder, files)
    if progress is not None:
        progress(f"released {name}; building the site again, with the release's pages")
    return Released(name=name, date=when, folder=folder, previous=latest.name if latest else None, files=len(files),
                    bytes=sum(len(b) for b in files.values()), build=run_build(options, progress))


def snapshot_files(name: str, date: str, documents: dict[str, Any], latest: ReleaseSnapshot | None, root: Path,
                   simulated: bool, samples: dict[str, bytes], samples_dir: Path | None = None,
                   draws: int = DEFAULTS.paired_draws) -> dict[str, bytes]:
    """Every file of release `name`'s snapshot from the build's data `documents` (file name
    -> parsed JSON), compared with the `latest` release of the project at `root`: paired on
    shared items for the models whose per-sample outcomes both the latest release and the
    build (`samples_dir`, its `data/samples/`) hold."""
    stamp = {"name": name, "date": date}
    files: dict[str, bytes] = {f"{n}.gz": compress(dump_json({**doc, "release": stamp}))
                               for n, doc in documents.items()}
    files.update(samples)
    base: tuple[Any, Any] = (None, None)
    paired: dict[str, PairedTest | None] = {}
    if latest is not None:
        folder = root / FOLDER / latest.name
        base = read_data(folder)
        paired = paired_changes(folder / SAMPLES, samples_dir, base[0], documents["leaderboard.json"], draws)
    changes = release_changes(base[0], documents["leaderboard.json"], base[1], documents.get("signals.json"),
                              latest.name if latest else None, latest.date if latest else None, paired)
    files[BOARD] = compress(dump_json(board_document(documents["leaderboard.json"])))
    files[CHANGES] = dump_json(changes)
    manifest = {"schema": SCHEMA, "name": name, "date": date, "previous": latest.name if latest else None,
                "tool": __version__, "simulated": simulated,
                "files": {p: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()} for p, b in sorted(files.items())}}
    files[MANIFEST] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")
    return files


def _simulated(data_dir: Path) -> bool:
    """Whether the data are `reasonboard demo`'s (evals.json marks them simulated)."""
    path = data_dir / "evals.json"
    return path.is_file() and any(e.get("simulated") for e in read_evals(path))


def _samples(folder: Path) -> dict[str, bytes]:
    """The per-sample outcomes the site published (`data/samples/`), as they are."""
    if not folder.is_dir():
        return {}
    return {f"{SAMPLES}/{p.relative_to(folder).as_posix()}": read_bytes(p, MAX_DATA)
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def write_new(folder: Path, files: dict[str, bytes]) -> None:
    """Every file into a hidden folder beside `folder`, renamed to it when all are written:
    a failed release leaves no half snapshot, and an existing folder is never replaced."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for rel, body in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
        Path(staging).chmod(0o755)
        if folder.exists():
            raise InputError(folder, "appeared while the release was written; nothing was replaced")
        Path(staging).rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
