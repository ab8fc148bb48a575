"""The built site in a real browser, from file://, with the network cut off.

Every page is opened in headless Chromium (Debian's `/usr/bin/chromium`, driven by
Playwright); every request that is not `file://` is aborted and counted. A page passes
when it makes no such request, logs no console error and raises no script error, and
every chart on it is drawn. The leaderboard's sorting and filtering are exercised too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers_site import html_pages

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package 'chromium'); browser checks skipped",
                allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


class Session:
    """One browser context with the network blocked and every error recorded."""

    def __init__(self, browser, **context):
        self.context = browser.new_context(**context)
        self.blocked: list[str] = []
        self.seen: list[str] = []
        self.errors: list[str] = []
        # Only requests that are not file:// reach the handler (a URL predicate), so local
        # files load at full speed while anything else is aborted and recorded.
        self.context.route(lambda url: not url.startswith("file://"), self._route)
        self.page = self.context.new_page()
        self.page.on("request", lambda r: None if r.url.startswith(("file://", "data:")) else self.seen.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route):
        self.blocked.append(route.request.url)
        route.abort()

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri(), wait_until="load")

    def close(self) -> None:
        self.context.close()


def test_every_page_loads_offline_without_errors_or_requests(browser, default_build):
    session = Session(browser)
    problems = []
    undrawn = []
    try:
        for rel in html_pages(default_build.out):
            before = (len(session.errors), len(session.blocked))
            session.open(default_build.out / rel)
            charts = session.page.locator("figure[data-chart]")
            if charts.count():
                # Charts draw asynchronously; wait until each figure says it is drawn (or failed).
                session.page.wait_for_function(
                    "() => [...document.querySelectorAll('figure[data-chart]')]"
                    ".every(f => f.classList.contains('drawn') || f.classList.contains('failed'))",
                    timeout=15000)
                failed = session.page.locator("figure[data-chart].failed").count()
                svgs = session.page.locator("figure[data-chart] svg").count()
                if failed or svgs < charts.count():
                    undrawn.append((rel, failed, svgs, charts.count()))
            if (len(session.errors), len(session.blocked)) != before:
                problems.append((rel, session.errors[before[0]:], session.blocked[before[1]:]))
    finally:
        session.close()
    assert problems == []
    assert undrawn == []
    assert session.errors == [] and session.blocked == [] and session.seen == []


def test_sorting_and_filtering_the_leaderboard(browser, default_build):
    session = Session(browser)
    try:
        session.open(default_build.out / "index.html")
        page = session.page
        labels = lambda: page.locator("#leaderboard tbody:first-of-type tr[data-row] th a").all_inner_texts()
        ranked = labels()
        assert page.locator("form[data-filter-for]").is_visible()
        # Sort by truncation, then back by rank: the ranked block reorders and returns.
        page.locator("#leaderboard thead th button", has_text="Truncation").click()
        assert page.locator("#leaderboard").get_attribute("data-order") == "custom"
        assert not page.locator("#leaderboard .tie-yes").first.is_visible()
        page.locator("#leaderboard thead th button", has_text="Rank").click()
        assert labels() == ranked
        assert page.locator("#leaderboard").get_attribute("data-order") == "rank"
        header = page.locator("#leaderboard thead th", has_text="Rank")
        assert header.get_attribute("aria-sort") == "ascending"
        # Incomplete models stay in their own block after the ranked ones whatever the order.
        page.locator("#leaderboard thead th button", has_text="ReasonScore").click()
        assert page.locator("#leaderboard tbody.incomplete tr[data-row]").count() >= 1
        # Filtering hides rows that do not match and says how many are shown.
        first = default_build.results.leaderboard["models"][0]["label"]
        page.fill("#filter", first.split()[0])
        visible = page.locator("#leaderboard tr[data-row]:visible").all_inner_texts()
        assert visible and all(first.split()[0] in row for row in visible)
        assert "rows shown" in page.locator("[data-filter-status]").inner_text()
        assert session.errors == [] and session.blocked == []
    finally:
        session.close()


def test_pages_read_without_javascript(browser, default_build):
    session = Session(browser, java_script_enabled=False)
    try:
        session.open(default_build.out / "index.html")
        page = session.page
        assert page.locator("#leaderboard tbody tr[data-row]").count() == len(default_build.results.leaderboard["models"])
        assert page.locator("figure.chart .nojs").first.is_visible()
        assert not page.locator("form[data-filter-for]").is_visible()
        assert session.blocked == []
    finally:
        session.close()


def test_filter_finds_models_on_other_index_pages(browser, default_build, tmp_path):
    from test_site_search import paginated

    out = tmp_path / "paginated"
    paginated(default_build, out, page_size=5)
    last = default_build.results.leaderboard["models"][-1]
    session = Session(browser)
    try:
        session.open(out / "index.html")
        page = session.page
        page.fill("#filter", last["label"])
        box = page.locator("[data-filter-elsewhere]")
        assert box.is_visible() and "on other pages" in box.inner_text()
        link = box.locator("a", has_text=last["label"]).first
        link.click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"models/{last['slug']}.html")
        assert session.errors == [] and session.blocked == []
    finally:
        session.close()
