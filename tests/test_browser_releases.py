"""The releases' pages, a model page's history chart and the cost page in a real browser,
from file://, offline: no request, no console error or warning, every chart drawn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasonboard.build import BuildOptions
from reasonboard.release import make_release
from test_browser import Session, browser  # noqa: F401  (the module's browser fixture)
from test_releases import _write

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser-releases")
    for name, date, models in (("v1", "2026-01-01", {"a": 300, "b": 200}),
                               ("v2", "2026-02-01", {"a": 300, "b": 290, "c": 340})):
        _write(root / "data", models)
        evals = json.loads((root / "data" / "evals.json").read_text(encoding="utf-8"))
        for n, e in enumerate(evals):
            e.update(price_in=1.0 + n, price_out=4.0 * (n + 1), price_source="list", price_date="2026-01-01")
        (root / "data" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
        make_release(BuildOptions(project=root), name, date)
    return root / "site"


@pytest.mark.parametrize("rel", ["releases.html", "releases/v1.html", "releases/v2.html", "releases/v2-changes.html",
                                 "models/b.html", "cost.html"])
def test_page_draws_offline(browser, site, rel):  # noqa: F811
    session = Session(browser)
    try:
        session.open(site / rel)
        charts = session.page.locator("figure[data-chart]")
        if charts.count():
            session.page.wait_for_function(
                "() => [...document.querySelectorAll('figure[data-chart]')]"
                ".every(f => f.classList.contains('drawn') || f.classList.contains('failed'))", timeout=15000)
            assert session.page.locator("figure[data-chart].failed").count() == 0
            assert session.page.locator("figure[data-chart] svg").count() == charts.count()
        assert session.errors == [] and session.blocked == [] and session.seen == []
        assert session.warnings == []
    finally:
        session.close()
    if rel == "models/b.html":
        assert (site / rel).read_text(encoding="utf-8").count('data-chart="history"') == 1
    if rel == "cost.html":
        assert 'data-chart="cost-score"' in (site / rel).read_text(encoding="utf-8")
