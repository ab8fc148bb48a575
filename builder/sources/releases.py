"""Release snapshots: `PROJECT/releases/NAME/`, what `reasonboard release` writes and every
build reads back (PRODUCT.md "Releases and history").

A snapshot is committed data, so it is untrusted input like every other project file (a
pull request can add or edit one): files are opened only as regular files below the
project's `releases/` folder (never through a symbolic link), compressed files are
expanded only up to a limit, and every field is checked before a page uses it. A problem
is one `InputError` naming the file and what to do.

One snapshot holds:

* `release.json`: the manifest: name, date, the release it was compared with, the tool's
  version, and each file's size and SHA-256;
* `leaderboard.json.gz`, `signals.json.gz`, `pairwise.json.gz`: the build's data files as
  they were, each naming the release it belongs to (`"release": {"name", "date"}`);
  `reasonboard diff` reads them;
* `samples/`: the per-sample outcomes the site published, when it published any;
* `board.json.gz` and `changes.json`: what the release's pages show, written from those
  files when the release was made: the board as of the release (columns of the
  leaderboard), and what changed since the previous release (`diff/releasenotes.py`). A
  build reads these two and the manifest only, so fifty releases of thousands of models
  cost a build a fraction of a second, and the pages of a release never change.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import InputError
from .releasechanges import ReleaseChanges, read_changes
from .text import decode_text

SCHEMA = "reasonboard.release/1"
BOARD_SCHEMA = "reasonboard.release-board/1"
FOLDER = "releases"
MANIFEST = "release.json"
BOARD = "board.json.gz"
CHANGES = "changes.json"
#: The build's data files a snapshot keeps (compressed: `NAME.gz`).
DATA_FILES = ("leaderboard.json", "signals.json", "pairwise.json")
SAMPLES = "samples"

#: Limits on what a snapshot may make a build read (each a one-line error naming the file).
MAX_MANIFEST = 1 << 20
MAX_CHANGES = 32 << 20
MAX_BOARD = 256 << 20
#: A data file expanded for `reasonboard diff` (signals.json of 10,000 evaluations: ~150 MB).
MAX_DATA = 2 << 30
MAX_RELEASES = 1000

#: Lowercase letters, digits, `.`, `_`, `-`; a letter or digit first; at most 64 characters:
#: safe as a folder and a file name on every file system, and in a URL as it is.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
#: Not release names: `latest` names the newest release in `reasonboard diff`, and a name
#: ending in `-changes` would take the address of another release's changes page.
RESERVED = ("latest",)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_name(name: str) -> str:
    """`name` when it can name a release; otherwise an `InputError` saying what can."""
    if not _NAME.fullmatch(name) or ".." in name:
        raise InputError(None, f"release name {name!r} is not allowed: use 1 to 64 lowercase letters, digits, '.', "
                               "'_' or '-', starting with a letter or digit (e.g. 2026-03 or v1.2)")
    if name in RESERVED or name.endswith("-changes"):
        raise InputError(None, f"release name {name!r} is reserved: 'latest' names the newest release and a name "
                               "ending in '-changes' would take another release's changes page; choose another")
    return name


def check_date(text: str, where: str = "--date") -> str:
    """A calendar date written YYYY-MM-DD."""
    import datetime

    try:
        if not _DATE.fullmatch(text):
            raise ValueError
        datetime.date.fromisoformat(text)
    except ValueError:
        raise InputError(where, f"must be a date written YYYY-MM-DD, got {text!r}") from None
    return text


@dataclass(frozen=True)
class FileEntry:
    """A file of a snapshot as its manifest records it."""

    path: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class ReleaseBoard:
    """The board as of a release: one entry per evaluation in leaderboard order (ranked
    first), each column a tuple. Read from `board.json.gz`."""

    mode: str
    tasks: tuple[str, ...]
    ids: tuple[str, ...]
    slugs: tuple[str, ...]
    labels: tuple[str, ...]
    rank: tuple[int | None, ...]
    rank_range: tuple[tuple[int, int] | None, ...]
    center: tuple[float | None, ...]
    margin: tuple[float | None, ...]
    ci_low: tuple[float | None, ...]
    ci_high: tuple[float | None, ...]
    band: tuple[str | None, ...]
    complete: tuple[bool, ...]
    missing_tasks: tuple[tuple[str, ...], ...]
    distinct_from_next: tuple[bool | None, ...]

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class ReleaseSnapshot:
    """One release as a build reads it: the manifest, the board and the changes."""

    name: str
    date: str
    #: The release it was compared with when it was made (None: the first release).
    previous: str | None
    tool: str
    #: whether the release's data were simulated (`reasonboard demo`): its pages say so
    simulated: bool
    files: tuple[FileEntry, ...]
    board: ReleaseBoard
    changes: ReleaseChanges


# -- opening files --------------------------------------------------------------------------


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of `path`, a regular file (never followed through a symbolic link) of at
    most `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except OSError as exc:
        if os.path.islink(path):
            raise InputError(path, "is a symbolic link; a release holds regular files only") from None
        raise InputError(path, f"cannot read the file ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError(path, "is not a regular file; a release holds regular files only")
        if info.st_size > limit:
            raise InputError(path, f"is {info.st_size:,} bytes, over the limit of {limit:,} for this file")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputError(path, f"is over the limit of {limit:,} bytes for this file")
    return data


def gunzip(path: Path, data: bytes, limit: int) -> bytes:
    """`data` (one gzip member) expanded, refusing more than `limit` bytes before it is all
    in memory (a small file can expand a thousandfold)."""
    inflate = zlib.decompressobj(wbits=31)
    try:
        out = inflate.decompress(data, limit + 1)
    except zlib.error as exc:
        raise InputError(path, f"is not a valid gzip file ({exc})") from None
    if len(out) > limit or inflate.unconsumed_tail:
        raise InputError(path, f"expands to more than the limit of {limit:,} bytes")
    if not inflate.eof or inflate.unused_data:
        raise InputError(path, "is not one complete gzip member (cut short, or with data after it)")
    return out


def compress(data: bytes) -> bytes:
    """gzip without a timestamp or a file name: the same bytes give the same file."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def parse_json(path: Path, data: bytes) -> Any:
    try:
        return json.loads(decode_text(path, data))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc.msg}", line=exc.lineno) from None
    except RecursionError:
        raise InputError(path, "JSON nested too deeply") from None


def _directory(path: Path) -> bool:
    """A real directory (not a symbolic link to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


# -- finding and reading releases -----------------------------------------------------------


def release_dirs(root: Path) -> list[Path]:
    """The snapshot folders under `root/releases/`, by name. A symbolic link there, or a
    folder whose name no release could have, is an error naming it."""
    folder = root / FOLDER
    if not folder.exists() and not folder.is_symlink():
        return []
    if not _directory(folder):
        raise InputError(folder, "must be a folder of release snapshots (not a file or a symbolic link)")
    found = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue  # `.gitkeep`, and a release being written (`release.py` stages it under a dot name)
        path = Path(entry.path)
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            raise InputError(path, "is not a release snapshot folder; releases/ holds one folder per release, "
                                   "made by `reasonboard release NAME`")
        try:
            check_name(entry.name)
        except InputError as exc:
            raise InputError(path, exc.problem) from None
        found.append(path)
    if len(found) > MAX_RELEASES:
        raise InputError(folder, f"holds {len(found)} releases, over the limit of {MAX_RELEASES}")
    return found


def releases_fingerprint(root: Path) -> str:
    """What a build's output takes from the releases: the bytes of the files it reads, by
    name (the build's state key, buildstate.py). Cheap: the files read are the small ones."""
    import hashlib

    h = hashlib.sha256()
    for folder in release_dirs(root):
        for name in (MANIFEST, BOARD, CHANGES):
            path = folder / name
            h.update(f"{folder.name}/{name}\0".encode())
            h.update(hashlib.sha256(read_bytes(path, _LIMITS[name])).digest() if path.exists() else b"-")
    return h.hexdigest()


_LIMITS = {MANIFEST: MAX_MANIFEST, BOARD: MAX_BOARD, CHANGES: MAX_CHANGES}


def read_releases(root: Path) -> tuple[ReleaseSnapshot, ...]:
    """Every release of the project at `root`, oldest first (by date, then name)."""
    snapshots = [read_release(folder) for folder in release_dirs(root)]
    return tuple(sorted(snapshots, key=lambda s: (s.date, s.name)))


def read_manifest(folder: Path) -> dict[str, Any]:
    """`release.json` of the snapshot in `folder`, checked."""
    path = folder / MANIFEST
    doc = parse_json(path, read_bytes(path, MAX_MANIFEST))
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(path, f"not a release manifest (schema must be '{SCHEMA}')")
    if doc.get("name") != folder.name:
        raise InputError(path, f"names the release {doc.get('name')!r}, but its folder is {folder.name!r}; "
                               "a release's folder and name must agree")
    check_date(str(doc.get("date")), where=str(path))
    previous = doc.get("previous")
    if previous is not None and (not isinstance(previous, str) or not _NAME.fullmatch(previous)):
        raise InputError(path, "'previous' must be a release name or null")
    files = doc.get("files")
    if not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, dict) and isinstance(v.get("bytes"), int)
            and isinstance(v.get("sha256"), str) for k, v in files.items()):
        raise InputError(path, "'files' must map each file's path to its 'bytes' and 'sha256'")
    if not isinstance(doc.get("tool", ""), str):
        raise InputError(path, "'tool' must be a string")
    if not isinstance(doc.get("simulated", False), bool):
        raise InputError(path, "'simulated' must be true or false")
    return doc


def read_release(folder: Path) -> ReleaseSnapshot:
    """The snapshot in `folder`: its manifest, board and changes, each checked."""
    manifest = read_manifest(folder)
    board_path = folder / BOARD
    board = read_board(board_path, parse_json(board_path, gunzip(board_path, read_bytes(board_path, MAX_BOARD),
                                                                  MAX_BOARD)))
    changes_path = folder / CHANGES
    changes = read_changes(changes_path, parse_json(changes_path, read_bytes(changes_path, MAX_CHANGES)))
    files = tuple(FileEntry(k, v["bytes"], v["sha256"]) for k, v in sorted(manifest["files"].items()))
    return ReleaseSnapshot(name=manifest["name"], date=manifest["date"], previous=manifest.get("previous"),
                           tool=manifest.get("tool", ""), simulated=manifest.get("simulated", False),
                           files=files, board=board, changes=changes)


def read_data(folder: Path) -> tuple[Mapping[str, Any], Mapping[str, Any] | None]:
    """A release's `leaderboard.json` and `signals.json` (None when it kept none), expanded
    within `MAX_DATA`: the two documents `reasonboard diff` compares."""
    read_manifest(folder)
    documents: list[Any] = []
    for name in ("leaderboard.json", "signals.json"):
        path = folder / f"{name}.gz"
        if name == "signals.json" and not path.exists():
            documents.append(None)
            continue
        documents.append(parse_json(path, gunzip(path, read_bytes(path, MAX_DATA), MAX_DATA)))
    return documents[0], documents[1]


# -- the board's columns ----------------------------------------------------------------------


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _optional(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda v: v is None or check(v)


def _strings(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _range(v: object) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


#: Each column of `board.json.gz` and what every value in it must be.
BOARD_COLUMNS: dict[str, Callable[[object], bool]] = {
    "ids": lambda v: isinstance(v, str), "slugs": lambda v: isinstance(v, str),
    "labels": lambda v: isinstance(v, str),
    "rank": _optional(lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "rank_range": _optional(_range),
    "center": _optional(_is_number), "margin": _optional(_is_number),
    "ci_low": _optional(_is_number), "ci_high": _optional(_is_number),
    "band": _optional(lambda v: isinstance(v, str)), "complete": lambda v: isinstance(v, bool),
    "missing_tasks": _strings, "distinct_from_next": _optional(lambda v: isinstance(v, bool)),
}


def read_board(path: Path, doc: Any) -> ReleaseBoard:
    """`board.json.gz`, every column checked to have one value of its kind per evaluation."""
    if not isinstance(doc, dict) or doc.get("schema") != BOARD_SCHEMA:
        raise InputError(path, f"not a release board (schema must be '{BOARD_SCHEMA}')")
    if not isinstance(doc.get("mode"), str) or not _strings(doc.get("tasks")):
        raise InputError(path, "'mode' must be a string and 'tasks' a list of strings")
    columns = doc.get("columns")
    if not isinstance(columns, dict):
        raise InputError(path, "'columns' must be an object of equal-length lists")
    n = len(columns.get("ids") or ())
    values: dict[str, tuple[Any, ...]] = {}
    for key, check in BOARD_COLUMNS.items():
        column = columns.get(key)
        if not isinstance(column, list) or len(column) != n:
            raise InputError(path, f"column '{key}' must be a list of {n} values, one per evaluation")
        for row, value in enumerate(column, start=1):
            if not check(value):
                raise InputError(path, f"column '{key}' holds {value!r}, not a value of its kind", row=row)
        values[key] = tuple(column)
    if len(set(values["ids"])) != n:
        raise InputError(path, "an evaluation id appears twice")
    return ReleaseBoard(
        mode=doc["mode"], tasks=tuple(doc["tasks"]), ids=values["ids"], slugs=values["slugs"],
        labels=values["labels"], rank=values["rank"],
        rank_range=tuple(tuple(r) if r is not None else None for r in values["rank_range"]),
        center=values["center"], margin=values["margin"], ci_low=values["ci_low"], ci_high=values["ci_high"],
        band=values["band"], complete=values["complete"],
        missing_tasks=tuple(tuple(m) for m in values["missing_tasks"]),
        distinct_from_next=values["distinct_from_next"])


def board_document(leaderboard: Mapping[str, Any]) -> dict[str, Any]:
    """`board.json.gz` from a `leaderboard.json` document: the columns `read_board` reads."""
    models = leaderboard.get("models") or []
    score = [m.get("reasonscore") or {} for m in models]
    columns = {
        "ids": [m["id"] for m in models], "slugs": [m.get("slug") or "" for m in models],
        "labels": [m.get("label") or m["id"] for m in models], "rank": [m.get("rank") for m in models],
        "rank_range": [m.get("rank_range") for m in models],
        **{key: [s.get(key) for s in score] for key in ("center", "margin", "ci_low", "ci_high")},
        "band": [m.get("band") for m in models], "complete": [bool(m.get("complete", True)) for m in models],
        "missing_tasks": [list(m.get("missing_tasks") or ()) for m in models],
        "distinct_from_next": [m.get("distinct_from_next") for m in models],
    }
    config = leaderboard.get("config") or {}
    return {"schema": BOARD_SCHEMA, "mode": str(config.get("mode", "")), "tasks": list(config.get("tasks") or ()),
            "columns": columns}
