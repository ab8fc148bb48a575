"""`reasonboard serve`: preview a built site on localhost (PRODUCT.md, CLI: optional).

The site never needs a server (relative links, works from `file://`); this is a convenience
for checking a build in a browser. It binds to 127.0.0.1 only, so a preview is never exposed
to the network, and answers as GitHub Pages does: a directory with an `index.html` serves
it, any other missing page or directory is the site's own `404.html` with status 404 (never
a directory listing). With `--watch` it rebuilds on a change of the project's inputs and
the open pages reload themselves (watch.py).
"""

from __future__ import annotations

import errno
import http.server
import io
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from .watch import RELOAD_PATH, RELOAD_SCRIPT, Watcher, with_reload


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Files of the built site, the site's 404 page for anything else, no listings; with a
    `watcher`, HTML pages carry the reload script (only as served: the files are unchanged)."""

    watcher: Watcher | None = None

    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        if self.watcher is not None and self.path.split("?")[0] == RELOAD_PATH:
            return self._send_bytes(self.watcher.version().encode("ascii"), "text/plain", no_store=True)
        if self.watcher is not None and self.path.split("?")[0] == RELOAD_PATH + ".js":
            return self._send_bytes(RELOAD_SCRIPT.encode("utf-8"), "text/javascript", no_store=True)
        if path.is_dir() and not (path / "index.html").is_file():
            self.send_error(404)
            return None
        if self.watcher is not None and path.suffix == ".html" and path.is_file():
            return self._send_bytes(with_reload(path.read_bytes()), "text/html; charset=utf-8", no_store=True)
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        # Unreachable after send_head's check; kept so no listing can ever be produced.
        self.send_error(404)
        return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        # Served at any depth: its relative links (a site without `base_url`) start from the root.
        body = page.read_bytes().replace(b"<head>", b'<head><base href="/">', 1)
        if self.watcher is not None:
            body = with_reload(body)
        self.log_error("code %d, message %s", code, message or "not found")
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_bytes(self, body: bytes, content_type: str, no_store: bool = False) -> Any:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if no_store:
            self.send_header("Cache-Control", "no-store")
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.watcher is None or RELOAD_PATH not in self.path:  # the reload polls are noise
            super().log_message(format, *args)


def _fail(problem: str) -> NoReturn:
    click.echo(f"error: {problem}", err=True)
    sys.exit(2)


@click.command()
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The leaderboard project whose site/ to serve. Default: the current directory.")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="With --watch: the data folder to build from and watch. Default: PROJECT/data.")
@click.option("--dir", "site_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The built site directory to serve. Default: PROJECT/site.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--watch", is_flag=True,
              help="Rebuild when the project's data, content, templates or static files change, "
                   "and reload the open pages.")
def serve(project_dir: Path | None, data_dir: Path | None, site_dir: Path | None, port: int, watch: bool) -> None:
    """Serve the built site on http://127.0.0.1:PORT for a local preview."""
    from .errors import InputError
    from .project import resolve_project

    project = None
    if site_dir is None or watch:
        try:
            project = resolve_project(project_dir, data_dir=data_dir)
        except InputError as exc:
            _fail(str(exc))
        site_dir = site_dir or project.out_dir
    assert site_dir is not None
    watcher = Watcher(project, site_dir, data_dir) if watch and project is not None else None
    if watcher is not None and not (site_dir / "index.html").is_file():
        watcher.rebuild()
    if not (site_dir / "index.html").is_file():
        _fail(f"{site_dir}: no index.html; run `reasonboard build` first (or `serve --watch`, which builds)")
    handler = type("Handler", (SiteHandler,), {"watcher": watcher})
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), lambda *a: handler(*a, directory=str(site_dir)))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            _fail(f"port {port} on 127.0.0.1 is in use (another server?); use --port 0 to pick a free one")
        _fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}")
    with server:
        host, bound_port = server.server_address[:2]
        assert isinstance(host, str)  # an IPv4 server's address
        watching = "; rebuilding on changes" if watcher is not None else ""
        click.echo(f"serving {site_dir} at http://{host}:{bound_port}/{watching} (Ctrl+C stops)", err=True)
        if watcher is not None:
            watcher.start()
        server.serve_forever()
