"""What the last build of an output directory was made from, and what it wrote.

After coverage.py's HTML status file and Lektor's build database: a build records a key
(a hash of every input: the data, the config, the content and templates along their lookup
order (project and package), the project's static files, the code and the template
libraries' versions) and a manifest of the files it wrote with their size and modification
time. The next build
with the same key finds the output exactly as it left it and has nothing to do; a build
with another key recomputes everything and renders every page whose key (site/reuse.py: a
digest of everything its template receives) differs from the one recorded for its file, or
whose file was touched since; the writer replaces only the files whose bytes changed, so the
rest keep their modification times.

The file is JSON, `build-<salted hash of the output path>.json` in the cache directory:
`{"key": ..., "files": {path: [size, mtime_ns] or, for a page or a published samples file,
[size, mtime_ns, its key]}, "summary": {...}}`. A missing, damaged or foreign file is no
state: everything is made again.

The state lives in the cache directory, never in the published output.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any, Iterable, Mapping

from .atomic import write_atomically
from .cachekey import salted
from .confined import open_confined, read_confined
from .resources import code_digest

#: 2: the summary keeps warnings and skipped files; 3: project lookup order and static/;
#: 6: no page digests or keys; 7: each page's key from its complete inputs record;
#: 8: the published samples files' keys, and the settings key salts the pages'
STATE_VERSION = 8


def _hash_tree(h: hashlib._Hash, root: Path) -> None:
    """Every file below `root` (none when it is no folder; no `__pycache__`), by path and content."""
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        # Confined like every read of the project: the state's key never reads what a link
        # out of the content, templates or static folder points at (the build refuses it).
        with open_confined(path, root) as handle:
            h.update(hashlib.file_digest(handle, "sha256").digest())


def settings_key(*, config_path: Path | None, content_dirs: Iterable[Path], templates_dirs: Iterable[Path],
                 static_dir: Path | None, strict: bool, allow_empty: bool = False) -> str:
    """A hash of everything a build's output depends on besides the data (the base of
    `build_key`, and the salt of every page's key, site/reuse.py): with the code, the
    libraries the templates run on."""
    h = hashlib.sha256()
    h.update(f"reasonboard-build-state/{STATE_VERSION}\0strict={strict}\0allow_empty={allow_empty}\0{sys.version}\0"
             f"{version('jinja2')}\0{version('markupsafe')}\0".encode())
    if config_path is not None and config_path.is_file():
        h.update(b"config\0" + read_confined(config_path))
    # Each search path in order, tagged by kind and position: moving a file from the project
    # to the package's place (or back) changes which one wins, so it changes the key.
    for kind, dirs in (("content", content_dirs), ("templates", templates_dirs),
                       ("static", [static_dir] if static_dir is not None else [])):
        for i, folder in enumerate(dirs):
            h.update(f"{kind}/{i}\0".encode())
            _hash_tree(h, folder)
    h.update(f"code\0{code_digest()}".encode())
    return h.hexdigest()


def build_key(settings: str, *, sources: str, db_path: Path | None) -> str:
    """A hash of everything a build's output depends on: the settings (`settings_key`) and
    the data (the sources' fingerprint, or the `--db` file's identity)."""
    h = hashlib.sha256(f"{settings}\0{sources}\0".encode())
    if db_path is not None and db_path.is_file():
        stat = db_path.stat()
        h.update(f"db\0{db_path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class BuildState:
    key: str
    #: output path -> [size, mtime_ns] as the build left it, and a keyed file's key after them
    files: dict[str, list[Any]]
    #: the build's summary figures, warnings and skipped files, repeated when a later build finds nothing to do
    summary: dict[str, Any]

    def matches(self, out_dir: Path) -> bool:
        """Every recorded file is still there, untouched, and nothing else was added."""
        try:
            present = _files_under(str(out_dir), "")
        except OSError:
            return False
        if set(present) - set(self.files) - {"README.md", ".gitkeep"}:
            return False
        for path, (size, mtime, *_rest) in self.files.items():
            stat = present.get(path)
            if stat is None or stat.st_size != size or stat.st_mtime_ns != mtime:
                return False
        return True


def _files_under(folder: str, prefix: str) -> dict[str, os.stat_result]:
    """Every file under `folder` by its path below it, with its `stat` (links followed, as
    `Path.stat` does): one `os.scandir` walk, since a daily build that finds nothing to do
    spends most of its time here and on the inputs' listing."""
    found: dict[str, os.stat_result] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                found.update(_files_under(entry.path, prefix + entry.name + "/"))
            elif entry.is_file():
                found[prefix + entry.name] = entry.stat()
    return found


def state_path(cache_dir: Path, out_dir: Path) -> Path:
    # Salted (cachekey.py): a committed or copied state never vouches for a site here.
    return cache_dir / f"build-{salted(str(out_dir.resolve()))}.json"


def load_state(cache_dir: Path, out_dir: Path) -> BuildState | None:
    try:
        raw = json.loads(state_path(cache_dir, out_dir).read_text(encoding="utf-8"))
        return BuildState(raw["key"], {k: list(v) for k, v in raw["files"].items()}, dict(raw.get("summary", {})))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_state(cache_dir: Path, out_dir: Path, key: str, written: Iterable[str], summary: dict[str, Any],
               page_keys: Mapping[str, str] | None = None) -> None:
    """Record the key, the size and mtime of every file just written and each keyed file's
    key (`page_keys`: the pages' and the published samples files'), atomically."""
    page_keys = page_keys or {}
    files: dict[str, list[Any]] = {}
    for path in sorted(written):
        stat = (out_dir / path).stat()
        files[path] = [stat.st_size, stat.st_mtime_ns, *([page_keys[path]] if path in page_keys else [])]
    target = state_path(cache_dir, out_dir)
    write_atomically(target, json.dumps({"key": key, "files": files, "summary": summary},
                                        sort_keys=True).encode("utf-8"))


def clear_state(cache_dir: Path, out_dir: Path) -> None:
    state_path(cache_dir, out_dir).unlink(missing_ok=True)

