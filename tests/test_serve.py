"""`reasonboard serve` answers as GitHub Pages does, and Ctrl-C is one line in every command.

The server runs as a user runs it (a child process, `python -m reasonboard serve`), on a
free port, and is asked over HTTP; the interrupt tests send SIGINT to a real build's process
group, as a terminal's Ctrl-C does, and check that the previous site is byte for byte the
same afterwards.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from reasonboard.cli import main
from reasonboard.watch import RELOAD_PATH, Watcher, with_reload

NOT_FOUND = "<!doctype html><html><head><title>Not found</title></head><body><h1>Our own 404</h1></body></html>"


def _site(root: Path) -> Path:
    site = root / "site"
    (site / "models" / "empty").mkdir(parents=True)
    (site / "tasks").mkdir()
    (site / "index.html").write_text("<html><body><p>front</p></body></html>")
    (site / "404.html").write_text(NOT_FOUND)
    (site / "models" / "a.html").write_text("<html><body><p>model a</p></body></html>")
    (site / "tasks" / "index.html").write_text("<html><body><p>tasks index</p></body></html>")
    return site


class Server:
    """`reasonboard serve` in a child process; `port` read from its first line."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "reasonboard", "serve", "--port", "0", *args],
                                        cwd=cwd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        start_new_session=True)
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        self.port = int(found.group(1))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def interrupt(self) -> tuple[int, str]:
        os.killpg(self.process.pid, signal.SIGINT)
        _, err = self.process.communicate(timeout=30)
        return self.process.returncode, err

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture
def server(tmp_path):
    site = _site(tmp_path)
    running = Server("--dir", str(site), cwd=tmp_path)
    yield running
    running.stop()


def test_a_missing_page_is_the_sites_own_404(server):
    status, body = server.get("/models/nope.html")
    assert status == 404
    assert "Our own 404" in body
    # Served at any depth, its relative links start from the root.
    assert '<base href="/">' in body


def test_no_directory_is_ever_listed(server):
    assert server.get("/models/") == server.get("/models/empty/")
    status, body = server.get("/models/")
    assert status == 404 and "Our own 404" in body and "a.html" not in body
    # A directory with an index.html serves it, as Pages does.
    assert server.get("/tasks/") == (200, "<html><body><p>tasks index</p></body></html>")
    assert server.get("/models/a.html")[0] == 200


def test_ctrl_c_stops_the_server_with_one_line(server):
    code, err = server.interrupt()
    assert code == 130
    assert err.strip().splitlines()[-1] == "interrupted; the previous site is untouched"
    assert "Traceback" not in err


def test_a_busy_port_is_one_line_suggesting_port_0(tmp_path):
    site = _site(tmp_path)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--dir", str(site), "--port", str(port)])
    assert result.exit_code == 2
    assert result.output.strip() == (f"error: port {port} on 127.0.0.1 is in use (another server?); "
                                     "use --port 0 to pick a free one")


def test_watch_serves_pages_with_the_reload_script_and_leaves_the_files_alone(tmp_path):
    site = _site(tmp_path)
    (tmp_path / "data").mkdir()
    before = (site / "models" / "a.html").read_bytes()
    running = Server("--dir", str(site), "--watch", "--project", str(tmp_path), cwd=tmp_path)
    try:
        status, body = running.get("/models/a.html")
        assert status == 200 and f'<script src="{RELOAD_PATH}.js"></script></body>' in body
        assert running.get(RELOAD_PATH) == (200, "0")
        assert "location.reload()" in running.get(RELOAD_PATH + ".js")[1]
        assert RELOAD_PATH in running.get("/nope.html")[1]  # the 404 page reloads too
    finally:
        running.stop()
    assert (site / "models" / "a.html").read_bytes() == before


def test_without_watch_nothing_is_injected(server):
    assert RELOAD_PATH not in server.get("/models/a.html")[1]
    assert server.get(RELOAD_PATH)[0] == 404


def test_the_reload_script_goes_before_the_body_end():
    assert with_reload(b"<html><body>x</body></html>") == (
        f'<html><body>x<script src="{RELOAD_PATH}.js"></script></body></html>'.encode())


def test_the_watcher_sees_a_change_to_any_input_folder_once_it_holds_still(tmp_path):
    from reasonboard.project import resolve_project

    for folder in ("data", "content", "templates", "static"):
        (tmp_path / folder).mkdir()
    watcher = Watcher(resolve_project(tmp_path), tmp_path / "site")
    assert not watcher.changed()
    for folder in ("data", "content", "templates", "static"):
        (tmp_path / folder / "new.txt").write_text(folder)
        assert watcher.changed(), folder
        assert not watcher.changed()
    (tmp_path / "data" / ".swap").write_text("an editor's")  # hidden files are not inputs
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("the output")  # nor is the output
    assert not watcher.changed()


def test_watch_builds_from_a_data_folder_kept_elsewhere(tmp_path):
    """A project's own `data` that links out of it is refused (an untrusted checkout could
    point it anywhere); a lab that keeps its data on another disk names it with `--data`,
    which `serve --watch` takes too and hands to each rebuild."""
    from helpers_lab import make_lab
    from reasonboard.errors import InputError
    from reasonboard.project import resolve_project

    root, elsewhere = make_lab(tmp_path / "lab"), tmp_path / "disk" / "data"
    elsewhere.parent.mkdir()
    shutil.move(root / "data", elsewhere)
    (root / "data").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(InputError, match="--data"):
        resolve_project(root)
    watcher = Watcher(resolve_project(root, data_dir=elsewhere), tmp_path / "site", elsewhere)
    assert watcher.folders[0] == elsewhere
    assert watcher.rebuild() and (tmp_path / "site" / "index.html").is_file()


# -- Ctrl-C in a build and in ingest ---------------------------------------------------------------


def _tree(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory) -> Path:
    """A demo project built once: each Ctrl-C test interrupts the rebuild of its own copy.
    Sixty models leave seconds of work after each phase line a test waits for, so the
    interrupt always lands while the build runs."""
    base = tmp_path_factory.mktemp("interrupted")
    subprocess.run([sys.executable, "-m", "reasonboard", "demo", "--out", str(base / "data"), "--models", "60"],
                   check=True, capture_output=True)
    subprocess.run(_build_command(base), check=True, capture_output=True)
    return base


def _build_command(base: Path) -> list[str]:
    return [sys.executable, "-m", "reasonboard", "build", "--data", str(base / "data"), "--out", str(base / "site"),
            "--cache", str(base / "cache")]


@pytest.mark.parametrize("after", ["config done", "store done"])
def test_ctrl_c_during_a_build_leaves_the_previous_site_and_no_traceback(tmp_path, after, built_demo):
    tmp_path = shutil.copytree(built_demo, tmp_path / "project")
    data = tmp_path / "data"
    build = _build_command(tmp_path)
    previous = _tree(tmp_path / "site")
    entries = json.loads((data / "evals.json").read_text())
    entries[0]["label"] = "relabelled"  # a change, so the build does work
    (data / "evals.json").write_text(json.dumps(entries))
    process = subprocess.Popen(build, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    assert process.stderr is not None
    seen = []
    while after not in (line := process.stderr.readline()) and line:
        seen.append(line)
    time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (seen, out, err)
    assert err.strip().splitlines()[-1] == "interrupted; the previous site is untouched"
    assert "Traceback" not in err and "Error" not in err
    assert _tree(tmp_path / "site") == previous
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left behind


def test_ctrl_c_in_ingest_is_one_line(tmp_path, monkeypatch):
    import reasonboard.ingest as ingest

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest, "run_ingest", interrupted)
    logs = Path(__file__).parent / "data" / "per-instance" / "inspect" / "inspect_ai" / "log-sets"
    result = CliRunner().invoke(main, ["ingest", str(logs), "--data", str(tmp_path / "d")])
    assert result.exit_code == 130
    assert result.output.strip() == "interrupted; nothing was written"
    assert not (tmp_path / "d").exists()
