"""Boards, the matrix and filters in a real browser, from file:// with the network cut off, at
a phone's width and a desktop's: a filtered and sorted view restored from its URL, and
axe-core (WCAG 2.1 AA) finding no violation on any page kind.

axe-core comes from the npm registry (`.ci/run` installs it into `.axe/`); it is injected
into each page by Playwright, so nothing is downloaded while the tests run. Without it,
the accessibility test is skipped with the reason, unless REASONBOARD_REQUIRE_AXE is set
(CI), where its absence fails.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, RealBuild, build_real, suggested_boards
from test_browser import DESKTOP, PHONE, Session, _open_drawn, _page_kinds, browser  # noqa: F401 - fixture

pytestmark = [pytest.mark.slow, pytest.mark.browser]

AXE = Path(os.environ.get("REASONBOARD_AXE", ROOT / ".axe" / "package" / "axe.min.js"))
#: The rules of WCAG 2.0 and 2.1, levels A and AA.
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
DEVICES = pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["390x844", "1280x900"])


def _axe_source() -> str:
    if not AXE.is_file():
        if os.environ.get("REASONBOARD_REQUIRE_AXE"):
            pytest.fail(f"axe-core is required and missing at {AXE} (.ci/run installs it from npm)")
        pytest.skip(f"axe-core not installed at {AXE}: run `npm pack axe-core@4.14.1` and unpack it into .axe/ "
                    "(as .ci/run does)")
    return AXE.read_text(encoding="utf-8")


def _violations(session: Session, axe: str) -> list[str]:
    session.page.add_script_tag(content=axe)
    found = session.page.evaluate(
        "async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}})).violations"
        ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))",
        WCAG_AA)
    return list(found)


@pytest.fixture(scope="module")
def two_boards_build(real_data: Path, real_build: RealBuild, tmp_path_factory: pytest.TempPathFactory) -> RealBuild:
    """The real data with the boards its build suggested and one more over the first's tasks,
    so a board page other than the front page exists whatever few boards are suggested
    (with `min_samples`, the real files suggest one)."""
    suggested = suggested_boards(real_build.summary.warnings)
    first = tomllib.loads(suggested)["boards"][0]
    again = "\n[[boards]]\nname = \"Again\"\ntasks = [" + ", ".join(f'"{t}"' for t in first["tasks"]) + "]\n"
    return build_real(real_data, tmp_path_factory.mktemp("real-two-boards"), suggested + again)


@DEVICES
def test_axe_finds_no_wcag_violation_on_any_page_kind(browser, default_build, real_build, two_boards_build,  # noqa: F811
                                                      device):
    axe = _axe_source()
    real_boards_build = two_boards_build
    boards = sorted(p.name for p in (real_boards_build.out / "boards").glob("*.html"))
    pages = [(default_build.out, rel) for rel in [*_page_kinds(default_build.out), "matrix.html"]]
    pages += [(real_build.out, "index.html"), (real_build.out, "matrix.html"),
              (real_boards_build.out, "index.html"), (real_boards_build.out, f"boards/{boards[0]}")]
    session = Session(browser, **device)
    problems = []
    try:
        for out, rel in pages:
            _open_drawn(session, out / rel)
            problems += [f"{out.parent.name}/{rel}: {v}" for v in _violations(session, axe)]
    finally:
        session.close()
    assert problems == [], "\n".join(problems)
    assert session.blocked == []


@DEVICES
def test_filters_and_sort_are_restored_from_the_url(browser, default_build, device):  # noqa: F811
    """A reader filters the leaderboard by a group and a name and sorts it; the address then
    holds that view, and opening it again (offline) shows the same rows in the same order."""
    session = Session(browser, **device)
    try:
        page = session.page
        session.open(default_build.out / "index.html")
        family = page.locator("select[data-facet][name=family]")
        options = family.locator("option").all_inner_texts()
        assert "any" in options and len(options) > 2
        family.select_option(index=1)
        if device is DESKTOP:
            page.locator("#leaderboard thead th button", has_text="Truncation").click()
        else:
            page.select_option("#leaderboard-sort", label="Truncation, lowest first")
        shown = page.locator("#leaderboard tr[data-row]:visible th a").all_inner_texts()
        assert shown and len(shown) < page.locator("#leaderboard tr[data-row]").count()
        url = page.url
        assert "#" in url and "family=" in url and "sort=" in url

        again = Session(browser, **device)
        try:
            again.page.goto(url, wait_until="load")
            assert again.page.locator("select[data-facet][name=family]").input_value() == family.input_value()
            assert again.page.locator("#leaderboard tr[data-row]:visible th a").all_inner_texts() == shown
            header = again.page.locator("#leaderboard thead th", has_text="Truncation")
            assert header.get_attribute("aria-sort") == "ascending"
            # The pages' links carry the view to the matrix's and the board's other pages.
            assert again.errors == [] and again.blocked == []
        finally:
            again.close()
        assert session.errors == [] and session.blocked == []
    finally:
        session.close()


@DEVICES
def test_the_matrix_filters_by_group_and_sorts_one_task(browser, default_build, device):  # noqa: F811
    session = Session(browser, **device)
    try:
        page = session.page
        session.open(default_build.out / "matrix.html")
        rows = page.locator("#matrix tbody tr")
        total = rows.count()
        page.locator("select[data-facet][name=size]").select_option(index=1)
        visible = page.locator("#matrix tbody tr:visible").count()
        assert 0 < visible < total
        url = page.url
        assert "size=" in url
        session.open(default_build.out / "matrix.html")  # the plain address: every row again
        assert page.locator("#matrix tbody tr:visible").count() == total
        page.goto(url, wait_until="load")
        assert page.locator("#matrix tbody tr:visible").count() == visible
        assert session.errors == [] and session.blocked == []
    finally:
        session.close()
