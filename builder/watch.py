"""`serve --watch`: rebuild when the project's inputs change, and reload the open pages.

After MkDocs' `serve` and Hugo's `server`, without their dependencies or a socket of their
own: a thread polls the modification times and sizes of everything under the project's
`data/`, `content/`, `templates/` and `static/` (hidden files, such as an editor's swap
files, left out), and when they change and then hold still, runs `reasonboard build` in a
child process with this interpreter, so a failed build prints its one-line error and the
previous site goes on being served. Each successful build raises a version number; the
pages the server hands out carry a small script (`RELOAD_SCRIPT`, added only as they are
served, never to the built files) that asks for that number every second and reloads the
page when it moves. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterable

import click

from .project import Project

#: The address the reload script polls; no page of a site can have it (it starts with `__`).
RELOAD_PATH = "/__reasonboard_reload"
#: How often the inputs are looked at, and how long they must hold still before a rebuild.
POLL_SECONDS = 0.5
RELOAD_SCRIPT = f"""(function () {{
  var seen = null;
  function check() {{
    fetch("{RELOAD_PATH}", {{cache: "no-store"}}).then(function (r) {{ return r.text(); }}).then(function (v) {{
      if (seen !== null && v !== seen) {{ location.reload(); }}
      seen = v;
    }}).catch(function () {{}});
  }}
  check();
  setInterval(check, 1000);
}})();
"""
_TAG = f'<script src="{RELOAD_PATH}.js"></script>'.encode("ascii")

Snapshot = frozenset[tuple[str, int, int]]


def with_reload(page: bytes) -> bytes:
    """An HTML page as `serve --watch` hands it out: the reload script before `</body>`."""
    at = page.rfind(b"</body>")
    return page[:at] + _TAG + page[at:] if at >= 0 else page + _TAG


def snapshot(folders: Iterable[Path]) -> Snapshot:
    """(path, modification time, size) of every file under `folders`, hidden ones left out."""
    seen: set[tuple[str, int, int]] = set()
    for folder in folders:
        for top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if name.startswith("."):
                    continue
                path = Path(top, name)
                try:
                    stat = path.stat()
                except OSError:  # removed while walking: the next look sees it gone
                    continue
                seen.add((str(path), stat.st_mtime_ns, stat.st_size))
    return frozenset(seen)


class Watcher:
    """Rebuilds the project's site when its inputs change; `version()` moves with each build."""

    def __init__(self, project: Project, site_dir: Path, data_dir: Path | None = None) -> None:
        self.project = project
        self.site_dir = site_dir
        #: The data folder named on the command line (None: the project's own `data/`), given
        #: to each rebuild the same way, so the build reads what the preview watches.
        self.data_dir = data_dir
        root = project.root
        self.folders = (project.data_dir, root / "content", root / "templates", root / "static")
        self._version = 0
        self._lock = threading.Lock()
        self._seen = snapshot(self.folders)

    def version(self) -> str:
        with self._lock:
            return str(self._version)

    def rebuild(self) -> bool:
        """One build in a child process; True when it succeeded (its output goes to the terminal)."""
        command = [sys.executable, "-m", "reasonboard", "build", "--project", str(self.project.root),
                   "--out", str(self.site_dir), "--quiet",
                   *(["--data", str(self.data_dir)] if self.data_dir is not None else [])]
        click.echo("rebuilding ...", err=True)
        done = subprocess.run(command, stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            click.echo("build failed: still serving the previous site", err=True)
            return False
        with self._lock:
            self._version += 1
        return True

    def changed(self) -> bool:
        """Whether the inputs changed since the last look, waiting until they hold still
        (an editor or `ingest` writing several files is one change)."""
        now = snapshot(self.folders)
        if now == self._seen:
            return False
        while True:
            time.sleep(POLL_SECONDS)
            later = snapshot(self.folders)
            if later == now:
                break
            now = later
        self._seen = now
        return True

    def start(self) -> None:
        threading.Thread(target=self._run, name="reasonboard-watch", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(POLL_SECONDS)
            if self.changed():
                self.rebuild()
