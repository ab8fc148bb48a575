"""The built site in a real browser, from file://, with the network cut off.

Every page is opened in headless Chromium (Debian's `/usr/bin/chromium`, driven by
Playwright); every request that is not `file://` is aborted and counted. A page passes
when it makes no such request, logs no console error and raises no script error, and
every chart on it is drawn. The leaderboard's sorting and filtering are exercised too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers_site import html_pages, page

#: Slow (headless Chromium): deselected by the fast subset, `pytest -m "not slow"`.
pytestmark = [pytest.mark.slow, pytest.mark.browser]

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
        # Warnings too: a chart library's `WARN ...` on every page is noise a reader's console
        # should not carry.
        self.warnings: list[str] = []
        self.page.on("console", lambda m: self.warnings.append(m.text) if m.type == "warning" else None)
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
    assert session.warnings == []


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
        # Unranked models are not in the table to be sorted: listed apart, by name.
        page.locator("#leaderboard thead th button", has_text="ReasonScore").click()
        assert page.locator("#unranked li").count() >= 1
        # Filtering hides rows that do not match and says how many are shown.
        first = default_build.leaderboard["models"][0]["label"]
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
        ranked = [m for m in default_build.leaderboard["models"] if m["rank"] is not None]
        assert page.locator("#leaderboard tbody tr[data-row]").count() == len(ranked)
        assert page.locator("figure.chart .nojs").first.is_visible()
        assert not page.locator("form[data-filter-for]").is_visible()
        assert session.blocked == []
    finally:
        session.close()


def test_filter_finds_models_on_other_index_pages(browser, default_build, tmp_path):
    from test_site_search import paginated

    out = tmp_path / "paginated"
    paginated(default_build, out, page_size=5)
    last = default_build.leaderboard["models"][-1]
    session = Session(browser)
    try:
        session.open(out / "index.html")
        page = session.page
        page.fill("#filter", last["label"])
        box = page.locator("[data-filter-elsewhere]")
        assert box.is_visible() and "on other pages" in box.inner_text()
        # A model in this page's table is not repeated under "other pages".
        first = default_build.leaderboard["models"][0]
        page.fill("#filter", first["label"])
        assert page.locator("#leaderboard tbody tr[data-row]:not([hidden])").count() >= 1
        assert box.locator("a", has_text=first["label"]).count() == 0
        page.fill("#filter", last["label"])
        link = box.locator("a", has_text=last["label"]).first
        link.click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"models/{last['slug']}.html")
        # An evaluation page under its model's page ("model/evaluation"): the slash stays a slash.
        models = default_build.leaderboard["models"]
        nested = next(m for m in models[5:] if "/" in m["slug"])
        session.open(out / "index.html")
        page.fill("#filter", nested["label"])
        link = page.locator("[data-filter-elsewhere] a", has_text=nested["label"]).first
        assert link.get_attribute("href") == f"models/{nested['slug']}.html"
        link.click()
        page.wait_for_load_state("load")
        assert page.url.endswith(f"models/{nested['slug']}.html") and page.locator("h1").is_visible()
        assert session.errors == [] and session.blocked == []
    finally:
        session.close()


# -- phones and desktops, sorting, charts ----------------------------------------------------

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
CHARTS_DRAWN = ("() => [...document.querySelectorAll('figure[data-chart]')]"
                ".every(f => f.classList.contains('drawn') || f.classList.contains('failed'))")


SCROLLER_PROBLEMS = """() => {
    const out = [];
    for (const box of document.querySelectorAll('.table-wrap, .chart-canvas')) {
        if (box.scrollWidth <= box.clientWidth + 1) { continue; }
        if (box.tabIndex < 0) { out.push('not focusable: ' + (box.id || box.className)); }
        for (const caption of box.querySelectorAll('caption')) {
            if (caption.getBoundingClientRect().width > box.clientWidth + 1) { out.push('caption cut: ' + caption.id); }
        }
    }
    return out;
}"""


def chart_rows(figure) -> list[dict]:
    """The rows a figure was drawn from, as site.js gave them to Vega: the page's own rows
    (written by column, a null value left out) or those it read from the twin table."""
    return figure.evaluate("f => f.rbRows")


def _open_drawn(session: Session, path: Path) -> None:
    session.open(path)
    if session.page.locator("figure[data-chart]").count():
        session.page.wait_for_function(CHARTS_DRAWN, timeout=15000)


def _page_kinds(out: Path) -> list[str]:
    """One page of every kind, plus the benchmark pages hardest to fit (longest unbroken words)."""
    pages = html_pages(out)
    models = [p for p in pages if p.startswith("models/")]
    nested = [p for p in models if p.count("/") == 2]
    groups = sorted({p.rsplit("/", 1)[0] + ".html" for p in nested})
    single = [p for p in models if p.count("/") == 1 and p not in groups]
    benches = [p for p in pages if p.startswith("benchmarks/")]

    def longest_word(rel: str) -> int:
        return max(map(len, page(out, rel).text.split()), default=0)

    hardest = sorted(benches, key=lambda p: (-longest_word(p), p))[:2]
    picked = [p for p in pages if "/" not in p]  # leaderboard, pairwise, signals, content, 404
    picked += [*single[:1], *groups[:1], *nested[:1], next(p for p in pages if p.startswith("tasks/")), *hardest]
    return picked


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["390x844", "1280x900"])
def test_no_page_is_wider_than_the_viewport_and_consoles_stay_clean(browser, default_build, device):
    session = Session(browser, **device)
    wide = []
    try:
        for rel in _page_kinds(default_build.out):
            _open_drawn(session, default_build.out / rel)
            width, inner = session.page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
            if width > inner:
                wide.append((rel, width, inner))
            # What scrolls sideways scrolls in its own box, which takes keyboard focus; a
            # caption in such a box fits the visible width (wraps) instead of being cut off.
            for problem in session.page.evaluate(SCROLLER_PROBLEMS):
                wide.append((rel, problem))
        assert wide == []
        assert session.errors == [] and session.warnings == [] and session.blocked == []
    finally:
        session.close()


def _labels(page) -> list[str]:
    return page.locator("#leaderboard tbody:first-of-type tr[data-row] th a").all_inner_texts()


def _expected_order(default_build, key: str, descending: bool) -> list[str]:
    """Ranked rows sorted by one leaderboard.json figure (stable: ties keep rank order)."""
    ranked = [m for m in default_build.leaderboard["models"] if m["rank"] is not None]
    ranked.sort(key=lambda m: m["rank"])
    value = (lambda m: m["reasonscore"]["center"]) if key == "reasonscore" else (lambda m: m[key])
    return [m["label"] for m in sorted(ranked, key=lambda m: -value(m) if descending else value(m))]


def _focus_is_visible(page) -> bool:
    """The focused element is on screen and not clipped away: the point in the middle of its
    first box (a wrapped link has several), within the viewport, is the element itself."""
    return page.evaluate("""() => {
        const el = document.activeElement;
        if (!el || el === document.body) { return true; }
        const r = el.getClientRects()[0];
        if (!r) { return false; }
        const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
        const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
        if (right - left < 2 || bottom - top < 2) { return false; }
        const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
        return !!hit && (hit === el || el.contains(hit));
    }""")


def test_a_numeric_columns_first_click_sorts_best_first_by_mouse_and_keyboard(browser, default_build):
    session = Session(browser, **DESKTOP)
    try:
        session.open(default_build.out / "index.html")
        page = session.page
        page.locator("#leaderboard thead th button", has_text="ReasonScore").click()
        assert _labels(page) == _expected_order(default_build, "reasonscore", descending=True)
        page.locator("#leaderboard thead th button", has_text="ReasonScore").click()
        assert _labels(page) == _expected_order(default_build, "reasonscore", descending=False)
        # Truncation: lower is better, so its first press puts the lowest first. By keyboard.
        page.locator("#leaderboard thead th button", has_text="Score/token").focus()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent").startswith("Truncation")
        page.keyboard.press("Enter")
        assert _labels(page) == _expected_order(default_build, "truncation_rate", descending=False)
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Enter")
        assert _labels(page) == _expected_order(default_build, "score_per_token", descending=True)
        # The visible hint says what a click does.
        hint = page.locator(".tie-note").inner_text()
        assert "Click a column heading to sort" in hint and "best first" in hint
        assert session.errors == []
    finally:
        session.close()


def test_on_a_phone_the_leaderboard_sorts_by_touch_and_keyboard_and_focus_never_hides(browser, default_build):
    session = Session(browser, **PHONE)
    try:
        session.open(default_build.out / "index.html")
        page = session.page
        ranked = _labels(page)
        # Keyboard: from the top of the page to the first row's link, every Tab stop is on
        # screen (the card layout hides the column headings; their buttons must not take focus).
        first_link = page.locator("#leaderboard tbody tr[data-row] th a").first
        page.locator("body").focus()
        hidden, stops = [], []
        for _ in range(60):
            page.keyboard.press("Tab")
            stops.append(page.evaluate("document.activeElement.tagName"))
            if not _focus_is_visible(page):
                hidden.append(page.evaluate("document.activeElement.outerHTML.slice(0, 80)"))
            if first_link.evaluate("a => a === document.activeElement"):
                break
        assert hidden == []
        assert "SELECT" in stops
        hint = page.locator(".tie-note").inner_text()
        assert "Click a column heading" not in hint and "Sort by" in hint
        assert not page.locator("#leaderboard thead th button").first.is_visible()
        menu = page.get_by_label("Sort by")
        assert menu.is_visible()
        menu.focus()
        assert menu.evaluate("m => m.options[m.selectedIndex].text").startswith("Rank")
        page.keyboard.press("ArrowDown")  # next choice: Model, A to Z
        assert _labels(page) == sorted(ranked, key=str)
        # ... and onwards through the following Tab stops (the rows' links), all visible.
        for _ in range(5):
            page.keyboard.press("Tab")
            assert _focus_is_visible(page)
        # Touch: tap the menu and choose an order.
        menu.tap()
        menu.select_option(label="ReasonScore, highest first")
        assert _labels(page) == _expected_order(default_build, "reasonscore", descending=True)
        menu.select_option(label="Truncation, lowest first")
        assert _labels(page) == _expected_order(default_build, "truncation_rate", descending=False)
        assert page.locator("#leaderboard").get_attribute("data-order") == "custom"
        menu.select_option(label="Rank, lowest first")
        assert _labels(page) == ranked
        assert page.locator("#leaderboard").get_attribute("data-order") == "rank"
        assert session.errors == [] and session.warnings == []
    finally:
        session.close()


def test_charts_keep_numbers_and_labels_readable(browser, default_build):
    session = Session(browser, **DESKTOP)
    try:
        _open_drawn(session, default_build.out / "pairwise.html")
        heatmap = session.page.locator("figure[data-chart=heatmap] svg")
        assert heatmap.count() == 1
        # No gridline runs through the cells (and so through their numbers).
        assert heatmap.locator(".role-axis-grid line, .role-axis-grid path").count() == 0
        task = next(p for p in html_pages(default_build.out) if p.startswith("tasks/"))
        _open_drawn(session, default_build.out / task)
        curves = session.page.locator("figure[data-chart=curves]")
        assert curves.count() >= 1
        for k in range(curves.count()):
            figure = curves.nth(k)
            boxes = figure.locator("svg .role-mark text").evaluate_all(
                "ts => ts.filter(t => t.textContent.trim()).map(t => { const r = t.getBoundingClientRect();"
                " return [r.left, r.top, r.right, r.bottom]; })")
            overlapping = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
                           if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
            assert overlapping == []
            # Every charted model is named in the legend (colour and shape), one entry each.
            rows = chart_rows(figure)
            entries = figure.locator("svg .role-legend-label text").evaluate_all("ts => ts.map(t => t.textContent)")
            assert sorted(entries) == sorted({r["model"] for r in rows})
        assert session.errors == [] and session.warnings == []
    finally:
        session.close()


def test_a_signal_badge_shows_its_sentence_on_hover_only(browser, default_build):
    """The badge's sentence is in the page once (for screen readers); a pointer over the
    badge shows it as a tooltip, and it takes no room otherwise."""
    session = Session(browser)
    try:
        session.open(default_build.out / "index.html")
        badge = session.page.locator("#leaderboard li.badge").first
        sentence = badge.locator(".badge-text")
        assert ":" in sentence.inner_text()
        assert sentence.bounding_box()["width"] <= 1
        badge.hover()
        box = sentence.bounding_box()
        assert box["width"] > 50 and box["height"] > 8
        assert box["y"] >= badge.bounding_box()["y"] + badge.bounding_box()["height"]  # below, not over it
        assert session.errors == []
    finally:
        session.close()


def test_the_per_sample_analyses_draw_with_their_tables_at_both_widths(browser, default_build):
    """A model page with all three analyses, a task page's hazards and the budget ranking:
    every analysis chart drawn (marks, a legend entry per hazard series), its table twin
    on the page, nothing wider than a phone, a clean console."""
    pages = [p for p in html_pages(default_build.out) if p.startswith("models/")]
    full = next((p for p in pages if all(f'data-chart="{k}"' in (default_build.out / p).read_text(encoding="utf-8")
                                         for k in ("compression", "hazard", "budget"))), None)
    if full is None:
        pytest.skip("the default data has no per-sample trials with tokens, text and a token limit")
    task = next(p for p in html_pages(default_build.out) if p.startswith("tasks/"))
    for context in (DESKTOP, PHONE):
        session = Session(browser, **context)
        try:
            for rel, kinds in ((full, ("compression", "hazard", "budget")), (task, ("hazard",)), ("budget.html", ())):
                _open_drawn(session, default_build.out / rel)
                for kind in kinds:
                    figure = session.page.locator(f"figure[data-chart={kind}]")
                    assert figure.count() == 1 and "drawn" in (figure.get_attribute("class") or ""), (rel, kind)
                    assert figure.locator("svg .role-mark").count() > 0
                    twin = figure.locator("a").first.get_attribute("href").split("#")[-1]
                    assert session.page.locator(f"table#{twin} tbody tr").count() > 0, (rel, kind)
                    if kind == "hazard":
                        rows = chart_rows(figure)
                        entries = figure.locator("svg .role-legend-label text").evaluate_all(
                            "ts => ts.map(t => t.textContent)")
                        assert sorted(entries) == sorted({r["series"] for r in rows})
                assert session.page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), rel
            assert session.page.locator("table#budget-ranks tbody tr").count() > 0
            assert session.errors == [] and session.warnings == [] and session.blocked == []
        finally:
            session.close()


def test_charts_drawn_from_their_tables_have_the_data_files_numbers(browser, default_build):
    """A model page's charts carry no numbers of their own: site.js reads them from the twin
    tables. What it read is checked against the data files, an independent source, to the
    precision the tables print (a third decimal of C_P, hazards and quartiles of bits per
    token to two, the ReasonScore to one)."""
    out = default_build.out
    pages = [p for p in html_pages(out) if p.startswith("models/")]
    full = next((p for p in pages if 'data-chart="budget"' in (out / p).read_text(encoding="utf-8")), None)
    if full is None:
        pytest.skip("the default data has no per-sample trials with tokens, text and a token limit")
    assert "chart-data" not in (out / full).read_text(encoding="utf-8")
    slug = full.removeprefix("models/").removesuffix(".html")
    board = json.loads((out / "data" / "leaderboard.json").read_text())
    entry = next(m for m in board["models"] if m["slug"] == slug)
    analyses = json.loads((out / "data" / "analyses" / f"{slug}.json").read_text())
    session = Session(browser)
    try:
        _open_drawn(session, out / full)
        forest = chart_rows(session.page.locator("figure[data-chart=forest-probability]"))
        assert [r["label"] for r in forest] == list(entry["tasks"])
        for r in forest:
            task = entry["tasks"][r["label"]]
            assert r["center"] == pytest.approx((task["low"] + task["high"]) / 2, abs=6e-4)
            assert (r["low"], r["high"]) == (pytest.approx(task["low"], abs=6e-4), pytest.approx(task["high"], abs=6e-4))
        sweep = analyses["budget_sweep"]
        budget = chart_rows(session.page.locator("figure[data-chart=budget]"))
        assert [r["center"] for r in budget] == [pytest.approx(v, abs=0.051) for v in sweep["reasonscore"]]
        assert [r["low"] for r in budget] == [pytest.approx(v, abs=0.11) for v in sweep["ci_low"]]
        assert [r["high"] for r in budget] == [pytest.approx(v, abs=0.11) for v in sweep["ci_high"]]
        compression = chart_rows(session.page.locator("figure[data-chart=compression]"))
        tasks, outcomes = analyses["tasks"], ("correct", "incorrect", "truncated")
        bits = tasks["compression"]["bits_per_token"]
        expected = [(f"{task} · {outcome}", q) for task, per in zip(tasks["name"], bits) if per
                    for outcome, q in zip(outcomes, per) if q]
        assert [r["label"] for r in compression] == [label for label, _ in expected]
        for r, (_, (q1, median, q3)) in zip(compression, expected):
            assert (r["q1"], r["median"], r["q3"]) == (pytest.approx(q1, abs=0.0051), pytest.approx(median, abs=0.0051),
                                                       pytest.approx(q3, abs=0.0051))
        hazard = chart_rows(session.page.locator("figure[data-chart=hazard]"))
        for r in hazard:
            k, h = tasks["name"].index(r["series"]), tasks["hazard"]
            n = h["low"][k].index(int(r["bin"].split("–")[0].rstrip("+").replace(",", "")))
            assert r["hazard"] == pytest.approx(h["hazard"][k][n], abs=6e-4)
            assert r["low"] == pytest.approx(max(h["ci_low"][k][n], 0), abs=6e-4)
            assert r["high"] == pytest.approx(min(h["ci_high"][k][n], 1), abs=6e-4)
        assert hazard and session.errors == [] and session.warnings == []
    finally:
        session.close()


def test_a_result_rows_shared_badge_shows_the_sentence_of_the_key_on_hover(browser, default_build):
    """A badge several result rows share says its sentence once, in the key under the table;
    hovering the badge shows that sentence beside it, as the leaderboard's badges do."""
    out = default_build.out
    rel = next(p for p in html_pages(out) if p.startswith("benchmarks/") and "aria-describedby=\"b-"
               in (out / p).read_text(encoding="utf-8"))
    session = Session(browser)
    try:
        session.open(out / rel)
        badge = session.page.locator("li.badge[aria-describedby]").first
        note = session.page.locator("#" + badge.get_attribute("aria-describedby") + " .badge-sentence")
        badge.hover()
        tip = badge.locator(".badge-text")
        assert tip.inner_text() == note.inner_text() and ":" in note.inner_text()
        box = tip.bounding_box()
        assert box["width"] > 50 and box["y"] >= badge.bounding_box()["y"] + badge.bounding_box()["height"]
        assert session.errors == []
    finally:
        session.close()
