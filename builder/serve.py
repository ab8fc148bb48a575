"""`reasonboard serve`: preview a built site on localhost (PRODUCT.md, CLI: optional).

The site never needs a server (relative links, works from `file://`); this is a convenience
for checking a build in a browser. It binds to 127.0.0.1 only, so a preview is never exposed
to the network, and uses the standard library's static file handler.
"""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

import click


@click.command()
@click.option("--project", "project_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The leaderboard project whose site/ to serve. Default: the current directory.")
@click.option("--dir", "site_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The built site directory to serve. Default: PROJECT/site.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
def serve(project_dir: Path | None, site_dir: Path | None, port: int) -> None:
    """Serve the built site on http://127.0.0.1:PORT for a local preview."""
    if site_dir is None:
        from .errors import InputError
        from .project import resolve_project

        try:
            site_dir = resolve_project(project_dir).out_dir
        except InputError as exc:
            raise click.ClickException(str(exc)) from None
    if not (site_dir / "index.html").is_file():
        raise click.ClickException(f"{site_dir}: no index.html; run `reasonboard build` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site_dir))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        host, bound_port = server.server_address[:2]
        assert isinstance(host, str)  # an IPv4 server's address
        click.echo(f"serving {site_dir} at http://{host}:{bound_port}/ (Ctrl+C stops)", err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            click.echo("stopped", err=True)
