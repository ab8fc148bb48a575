"""The compare view in a real browser, from file:// with the network cut off, at a phone's
width and a desktop's: two evaluations picked on the leaderboard open `compare.html`, whose
figures equal a plain reading of the real Inspect `popularity` logs (exact McNemar, the C_P
difference on the shared items); a pair without enough shared items falls back to intervals;
unknown IDs get a message; axe-core finds no WCAG 2.1 AA violation."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from test_browser import DESKTOP, PHONE, Session, browser  # noqa: F401 - fixture
from test_browser_views import _axe_source, _violations
from test_compare_data import read_script
from test_ingest_inspect import SET, plain_samples
from test_paired_boards import board_order
from test_paired_real import MODELS, plain_cp, plain_mcnemar

pytestmark = [pytest.mark.slow, pytest.mark.browser]
DEVICES = pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["390x844", "1280x900"])
DONE = "#compare-overall, .compare-message"


def _open(session: Session, out, a: str | None, b: str | None) -> None:
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in (("a", a), ("b", b)) if v is not None)
    session.page.goto((out / "compare.html").resolve().as_uri() + (f"?{query}" if query else ""), wait_until="load")
    session.page.wait_for_selector(DONE, timeout=30000)


def _row(session: Session, task: str) -> str:
    return session.page.locator(f"#compare-table tr[data-task='{task}'] td").nth(2).inner_text()


def _p_text(p: float) -> str:
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}".rstrip("0").rstrip(".") if p < 1 else "1"


def _signed(v: float) -> str:
    text = f"{abs(v):.3f}"
    return ("+" if v >= 0 or float(text) == 0 else "\u2212") + text


@DEVICES
def test_popularity_pairs_equal_a_plain_reading_of_the_logs(browser, real_build, device):  # noqa: F811
    outcomes = {MODELS[path.name]: {str(s["id"]): s["scores"]["match"]["value"] == "C" for s in plain_samples(path)}
                for path in sorted(SET.iterdir())}
    ids = {m["model"]: m["id"] for m in real_build.leaderboard["models"] if m["model"] in outcomes}
    session = Session(browser, **device)
    try:
        names = sorted(outcomes)
        for k, a in enumerate(names):
            for b in names[k + 1:]:
                xa, xb = outcomes[a], outcomes[b]
                bb = sum(xa[i] and not xb[i] for i in xa)
                cc = sum(xb[i] and not xa[i] for i in xa)
                p = plain_mcnemar(bb, cc)
                effect = plain_cp(sum(xa.values()), 100) - plain_cp(sum(xb.values()), 100)
                _open(session, real_build.out, ids[a], ids[b])
                text = _row(session, "popularity")
                assert "paired on 100 shared items (exact McNemar)" in text
                assert f"difference {_signed(effect)} " in text
                assert f"p = {_p_text(p)}," in text
                # One paired test on the page: Holm's correction leaves 5 %.
                verdict = "not distinguishable" if p > 0.05 else f"{a if effect > 0 else b} is higher"
                assert text.startswith(verdict + ":")
                found = session.page.evaluate("window.RB_COMPARE_RESULT.rows.find(r => r.task === 'popularity')")
                # The browser's own computation, whether or not the build's figures are shown.
                assert found["browser"]["rawP"] == p  # exact: both correctly rounded
                assert found["browser"]["effect"] == pytest.approx(effect, abs=1e-6)
                assert found["browser"]["b"] == bb and found["browser"]["c"] == cc
                low, high = found["browser"]["low"], found["browser"]["high"]
                assert low <= round(effect, 6) <= high
                overall = session.page.locator("#compare-overall").inner_text()
                # The board of this build covers every task: neither has them all, and it says so.
                assert overall.startswith("Overall: no comparison on the board's ReasonScore")
    finally:
        session.close()
    assert session.errors == [] and session.blocked == [] and session.seen == []


@DEVICES
def test_too_few_shared_items_fall_back_to_intervals(browser, real_build, device):  # noqa: F811
    ids = {m["model"]: m["id"] for m in real_build.leaderboard["models"]}
    session = Session(browser, **device)
    try:
        _open(session, real_build.out, ids["openai/gpt-4o-mini"], ids["ollama/gemma3"])
        text = _row(session, "popularity")
        assert "paired" not in text.split("(not paired")[0]
        assert "their 95% intervals overlap (not paired: they share 1 item, fewer than the 20 a paired test needs)" in text
        assert "ollama/gemma3's result is preliminary (1 sample, fewer than 20)" in text
        assert session.page.locator("#compare-table td[data-rule='paired']").count() == 0
        only = session.page.locator("#compare-table tr[data-task='theory_of_mind'] td").nth(2).inner_text()
        assert only == "only openai/gpt-4o-mini has this task"
        # mmlu: two evaluations with no item in common.
        _open(session, real_build.out, ids["openai/gpt-4"], "openai/gpt2|multiple_choice_joint|greedy-1")
        assert "not paired: they share 0 items" in _row(session, "mmlu")
    finally:
        session.close()
    assert session.errors == [] and session.blocked == []


@DEVICES
def test_unknown_or_missing_ids_say_so(browser, default_build, device):  # noqa: F811
    first = default_build.leaderboard["models"][0]["id"]
    session = Session(browser, **device)
    try:
        _open(session, default_build.out, first, "no-such|model|here")
        message = session.page.locator(".compare-message").inner_text()
        assert "No evaluation has the ID “no-such|model|here”." in message
        _open(session, default_build.out, first, None)
        assert "The address names only one evaluation." in session.page.locator(".compare-message").inner_text()
        _open(session, default_build.out, first, first)
        assert "same evaluation" in session.page.locator(".compare-message").inner_text()
        _open(session, default_build.out, None, None)
        assert "Choose two evaluations" in session.page.locator(".compare-message").inner_text()
        assert session.page.locator("#compare-a option").count() == len(default_build.leaderboard["models"])
    finally:
        session.close()
    assert session.errors == [] and session.blocked == []


@DEVICES
def test_picking_two_on_the_leaderboard_opens_the_comparison(browser, default_build, device):  # noqa: F811
    """By keyboard: tab to a row's "Compare" box, tick it with the space bar, the same for a
    second row, then follow the link the page made."""
    models = default_build.leaderboard["models"]
    a, b = models[0], models[1]
    session = Session(browser, **device)
    axe = _axe_source()
    try:
        session.open(default_build.out / "index.html")
        for m in (a, b):
            box = session.page.locator(f"th[data-compare-id='{m['id']}'] input[type=checkbox]")
            box.focus()
            session.page.keyboard.press("Space")
            assert box.is_checked()
        link = session.page.locator("a.compare-link")
        assert link.is_visible()
        assert link.inner_text() == f"Compare {a['label']} with {b['label']}"
        link.focus()
        session.page.keyboard.press("Enter")
        session.page.wait_for_selector("#compare-overall", timeout=30000)
        assert session.page.url.split("?")[1] == f"a={quote(a['id'], safe='')}&b={quote(b['id'], safe='')}"
        overall = session.page.locator("#compare-overall").inner_text()
        # Adjacent rows of the board: the build's paired test of the ReasonScore, as pairwise.json has it.
        assert "paired on" in overall and "figures from the build" in overall
        assert session.page.locator("#compare-table tbody tr").count() == 12
        assert session.errors == []  # axe's own attempts to read style sheets log errors: checked first
        assert _violations(session, axe) == []
        session.open(default_build.out / "matrix.html")
        assert session.page.locator("th[data-compare-id] input[type=checkbox]").count() == len(models)
        assert _violations(session, axe) == []
    finally:
        session.close()
    assert session.blocked == []


def test_a_board_pages_compare_link_compares_on_that_board(browser, two_boards_build):  # noqa: F811
    """Picked on the second board's page, two evaluations are compared on that board's tasks
    and ReasonScores (the scores its page prints), and the picker says which board; an
    unknown board name is said, and the first board is used."""
    site = two_boards_build["site"]
    order = board_order(site, two_boards_build["models"])
    a, b = order[0], order[1]
    session = Session(browser, **DESKTOP)
    try:
        session.open(site / "boards" / "second.html")
        for eid in (a, b):
            session.page.locator(f"th[data-compare-id='{eid}'] input[type=checkbox]").check()
        session.page.locator("a.compare-link").click()
        session.page.wait_for_selector("#compare-overall", timeout=30000)
        assert session.page.url.endswith("&board=Second")
        overall = session.page.locator("#compare-overall").inner_text()
        assert overall.startswith("Overall (ReasonScore on the “Second” board's 2 tasks, ")
        # The second board's scores (test_paired_boards holds them equal to its page's).
        _, index = read_script(site / "data" / "compare" / "index.js")
        centers = [read_script(site / "data" / "compare" / "e" / f"{index['evaluations'][e][0]}.js")[1]
                   ["boards"]["Second"][2][0] for e in (a, b)]
        assert f"tasks, {centers[0]:.1f} against {centers[1]:.1f}): " in overall
        assert "figures from the build" in overall
        assert session.page.locator("#compare-board").input_value() == "Second"
        session.page.goto(session.page.url.replace("board=Second", "board=Nope"), wait_until="load")
        session.page.wait_for_selector("#compare-overall", timeout=30000)
        assert "No board is named “Nope”" in session.page.locator(".compare-message").inner_text()
        assert "“Front” board's 3 tasks" in session.page.locator("#compare-overall").inner_text()
    finally:
        session.close()
    assert session.errors == [] and session.blocked == []
