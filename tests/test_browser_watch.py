"""`reasonboard serve --watch` in a real browser: an edit to the project rebuilds the site and
the open page reloads itself, with nothing fetched from outside 127.0.0.1.

Headless Chromium (Debian's `/usr/bin/chromium`, driven by Playwright) opens the served
front page at a phone's width and a desktop's; the test then changes the site's title in
`content/site.toml` and waits for the open page to show it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from reasonboard.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
    pytest.skip(f"no Chromium at {CHROMIUM}; browser checks skipped", allow_module_level=True)


@pytest.fixture
def watched(tmp_path):
    project = tmp_path / "p"
    runner = CliRunner()
    assert runner.invoke(main, ["init", str(project)]).exit_code == 0
    assert runner.invoke(main, ["demo", "--out", str(project / "data"), "--models", "3", "--force"]).exit_code == 0
    # No site yet: `serve --watch` builds it first.
    server = subprocess.Popen([sys.executable, "-m", "reasonboard", "serve", "--watch", "--port", "0",
                               "--project", str(project)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    port = None
    while port is None:
        line = server.stderr.readline()
        assert line, "serve ended before it listened"
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        port = int(found.group(1)) if found else None
    yield project, port
    server.terminate()
    server.communicate(timeout=30)


@pytest.mark.parametrize("width", [390, 1280])
def test_an_edit_rebuilds_and_the_open_page_reloads(watched, width):
    project, port = watched
    outside: list[str] = []
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.route(lambda url: not url.startswith(f"http://127.0.0.1:{port}/"),
                      lambda route: (outside.append(route.request.url), route.abort()))
        tab = context.new_page()
        tab.goto(f"http://127.0.0.1:{port}/index.html", wait_until="load")
        assert "Watched title" not in tab.title()
        tab.evaluate("window.beforeTheEdit = true")
        config = project / "content" / "site.toml"
        config.write_text(config.read_text(encoding="utf-8") + '\ntitle = "Watched title"\n', encoding="utf-8")
        tab.wait_for_function("() => document.title.includes('Watched title')", timeout=120_000)
        # A reload, not a script rewriting the page: what was set before it is gone.
        assert tab.evaluate("window.beforeTheEdit === undefined")
        assert "Watched title" in tab.locator("header").inner_text()
        browser.close()
    assert outside == []
    # The built files carry no reload script: only the server adds it.
    assert "__reasonboard_reload" not in (project / "site" / "index.html").read_text(encoding="utf-8")
