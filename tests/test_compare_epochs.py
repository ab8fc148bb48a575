"""The compare view with epochs: two crafted evaluations answering the same 30 four-option
items three times each (one of them sometimes truncated), so every item is listed apart in
the compare data and the page pairs them by the paired bootstrap. The data files and the
page's figures against plain arithmetic here (SAMPLES.md sections 2 and 5)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from helpers_points import duck_rows
from reasonboard.cli import main
from test_compare_data import expand, read_script
from test_design_effect import plain_deff

Z975 = 2.241402727604947
ITEMS, EPOCHS, OPTIONS = 30, 3, 4


def outcomes(model: str) -> list[list[tuple[bool, bool]]]:
    """Each item's trials as (correct, truncated): a fixed pattern, different per model."""
    out = []
    for i in range(ITEMS):
        trials = []
        for e in range(EPOCHS):
            if model == "a":
                correct, truncated = (i * 7 + e * 3) % 5 < 3, False
            else:
                truncated = (i + e) % 11 == 0
                correct = not truncated and (i * 5 + e) % 7 < 3
            trials.append((correct, truncated))
        out.append(trials)
    return out


def plain_center(s: float, t: float) -> float:
    if t <= 0:
        return 0.5
    p = min(max(s, 0.0), t) / t
    return (p + Z975**2 / (2 * t)) / (1 + Z975**2 / t)


def plain_cp(samples: list[list[tuple[bool, bool]]]) -> float:
    """C_P from the effective counters: every trial has 4 options, so a completed trial
    adds 1/4 to the guess sum."""
    d = plain_deff(samples)
    n = sum(len(s) for s in samples) / d
    nt = sum(t for s in samples for _, t in s) / d
    ne = sum(c for s in samples for c, _ in s) / d
    g = sum(1 / OPTIONS for s in samples for _, t in s if not t) / d
    nu = n - nt
    return plain_center(ne - g, nu - g) * plain_center(nu, n)


@pytest.fixture(scope="module")
def crafted(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("compare-epochs")
    data = base / "data"
    (data / "trials").mkdir(parents=True)
    for model in ("a", "b"):
        rows = [f"('{i:02d}', {e + 1}, {float(c)}, {c}, {t})"
                for i, trials in enumerate(outcomes(model)) for e, (c, t) in enumerate(trials)]
        duck_rows(
            f"COPY (SELECT '{model}' AS model, 't' AS template, 's' AS sampler, 'task' AS base_task, '{{}}' AS params, "
            "sample_id, epoch::INTEGER AS epoch, credit::DOUBLE AS credit, correct, truncated, "
            f"{OPTIONS}::INTEGER AS options, 100::BIGINT AS tokens, NULL::BIGINT AS input_tokens, "
            "NULL::BIGINT AS compressed "
            f"FROM (VALUES {', '.join(rows)}) v(sample_id, epoch, credit, correct, truncated) "
            "ORDER BY sample_id, epoch) "
            f"TO '{data / 'trials' / f'{model}.parquet'}' (FORMAT parquet)")
    result = CliRunner().invoke(main, ["build", "--data", str(data), "--out", str(base / "site"),
                                       "--cache", str(base / "cache"), "--quiet"])
    assert result.exit_code == 0, result.output
    return base / "site"


def test_listed_items_carry_their_counters(crafted):
    _, index = read_script(crafted / "data" / "compare" / "index.js")
    assert index["layouts"] == {"task": [["{}", ITEMS]]}
    for model in ("a", "b"):
        slug, _ = index["evaluations"][f"{model}|t|s"]
        _, doc = read_script(crafted / "data" / "compare" / "e" / f"{slug}.js")
        entry = doc["outcomes"]["task"]
        assert entry == {"p": "#", "o": "", "x": entry["x"]}  # one character: no bits
        assert expand(entry, ITEMS) == "#" * ITEMS
        want = [[EPOCHS, sum(c for c, _ in s), sum(t for _, t in s), OPTIONS if any(not t for _, t in s) else 0]
                for s in outcomes(model)]
        assert entry["x"] == want


@pytest.mark.slow
@pytest.mark.browser
def test_the_page_pairs_them_by_the_bootstrap(crafted):
    pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import sync_playwright
    from test_browser import CHROMIUM, Session

    if not CHROMIUM.exists():
        pytest.skip("no Chromium")
    effect = plain_cp(outcomes("a")) - plain_cp(outcomes("b"))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        session = Session(browser)
        try:
            session.page.goto((crafted / "compare.html").resolve().as_uri()
                              + f"?a={quote('a|t|s', safe='')}&b={quote('b|t|s', safe='')}")
            session.page.wait_for_selector("#compare-overall", timeout=30000)
            text = session.page.locator("#compare-table tr[data-task='task'] td").nth(2).inner_text()
            found = session.page.evaluate("window.RB_COMPARE_RESULT.rows[0]")
        finally:
            session.close()
            browser.close()
    assert "paired on 30 shared items (paired bootstrap)" in text
    assert found["browser"]["method"] == "bootstrap"
    assert found["browser"]["effect"] == pytest.approx(effect, abs=1e-6)
    assert found["shared_cp"] == pytest.approx([plain_cp(outcomes("a")), plain_cp(outcomes("b"))], abs=1e-12)
    # The build tested this pair too (adjacent rows): the page shows its figures, and the
    # browser's own bootstrap agrees with them up to the draws.
    paired = json.loads((crafted / "data" / "pairwise.json").read_text(encoding="utf-8"))["paired"]
    [build] = paired["tasks"]["task"]
    sign = 1 if build["a"] == "a|t|s" else -1
    assert sign * build["effect"] == pytest.approx(effect, abs=1e-6)
    assert "figures from the build" in text
    assert found["test"]["source"] == "build"
    assert found["browser"]["low"] == pytest.approx(sign * (build["low"] if sign > 0 else build["high"]), abs=0.03)
    assert found["browser"]["high"] == pytest.approx(sign * (build["high"] if sign > 0 else build["low"]), abs=0.03)
    assert found["browser"]["p"] == pytest.approx(build["p"], abs=0.06)
    assert session.errors == [] and session.blocked == []
