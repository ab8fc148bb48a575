"""Model, task and pairwise pages as a reader sees them."""

from __future__ import annotations

from helpers_site import page, row_cells
from reasonboard.site.views.base import NavLink, Pager, spread


def _model(built, predicate):
    return next(m for m in built.leaderboard["models"] if predicate(m))


def _task_interval(t):
    return f"{(t['low'] + t['high']) / 2:.3f} ± {(t['high'] - t['low']) / 2:.3f}"


def test_model_page_shows_score_band_and_every_task_interval(default_build):
    m = _model(default_build, lambda m: m["rank"] == 1)
    doc = page(default_build.out, f"models/{m['slug']}.html")
    rs = m["reasonscore"]
    headline = doc.by_id("h-score").parent
    assert f"{rs['center']:.1f} ± {rs['margin']:.1f}" in headline.text
    band = default_build.results.bands.reasonscore(rs["center"])
    assert band.label in headline.text and band.text in headline.text
    rows = {row_cells(tr)[0].text: tr for tr in doc.by_id("task-results").find("tbody").find_all("tr")}
    assert set(rows) == set(m["tasks"])
    for task, t in m["tasks"].items():
        cells = row_cells(rows[task])
        assert _task_interval(t) in cells[1].text
        assert f"[{t['low']:.3f}, {t['high']:.3f}]" in cells[1].text
        assert cells[2].text == default_build.results.bands.reasonscore(1000 * t["estimate"]).label
    estimators = doc.by_id("modes-caption").parent
    assert [th.text for th in estimators.find("thead").find_all("th")][1:] == ["E_I", "E_P", "E_O", "C_I", "C_P", "C_O"]


def test_model_page_lists_reproducibility_gaps_by_field_name(default_build):
    evaluations = default_build.results.evaluations
    gap_id = next(i for i, e in evaluations.items() if "max_tokens" not in e.generation_args)
    m = _model(default_build, lambda m: m["id"] == gap_id)
    doc = page(default_build.out, f"models/{m['slug']}.html")
    table = doc.by_id("reported-results")
    own = [tr for tr in table.find("tbody").find_all("tr") if "this leaderboard" in tr.text]
    assert len(own) == len(m["tasks"])
    for tr in own:
        missing = [li.text for li in tr.find("ul", cls="missing-list").find_all("li")]
        assert "max_tokens" in missing
        assert "gap" in tr.find("li", cls="badge").text

    complete_id = next(i for i, e in evaluations.items()
                       if {"max_tokens", "temperature"} <= set(e.generation_args))
    m = _model(default_build, lambda m: m["id"] == complete_id)
    doc = page(default_build.out, f"models/{m['slug']}.html")
    for tr in doc.by_id("reported-results").find("tbody").find_all("tr"):
        if "this leaderboard" in tr.text:
            assert tr.find("ul", cls="missing-list") is None
            assert "reported" in tr.find("li", cls="badge").text


def test_model_page_counts_its_ties_and_links_its_leaderboard_row(default_build):
    """The page gives how many models it is tied with and where they are (the rank
    range and its own leaderboard row), not a list that grows with the number of models."""
    models = default_build.leaderboard["models"]
    m = _model(default_build, lambda m: m["tied_count"] >= 2)
    ranked = [x for x in models if x["rank"] is not None]
    lo, hi = m["reasonscore"]["ci_low"], m["reasonscore"]["ci_high"]
    tied = [x for x in ranked if x["id"] != m["id"]
            and not (x["reasonscore"]["ci_low"] > hi or lo > x["reasonscore"]["ci_high"])]
    doc = page(default_build.out, f"models/{m['slug']}.html")
    [section] = [p for p in doc.by_id("ties").parent.find_all("p") if "other ranked model" in p.text]
    text = " ".join(section.text.split())
    best, worst = m["rank_range"]
    assert f"The intervals of {len(tied)} other ranked models overlap" in text
    assert f"between ranks {best} and {worst}" in text
    assert best <= min(x["rank"] for x in tied) and max(x["rank"] for x in tied) <= worst
    links = section.find_all("a")
    assert len(links) == 1
    target, anchor = links[0].attrs["href"].split("#")
    board = page(default_build.out, target.removeprefix("../"))
    assert board.by_id(anchor) is not None and m["label"] in board.by_id(anchor).text
    assert doc.by_id("neighbours-caption") is not None


def test_simulated_models_carry_the_banner_and_content_pages_do_not(default_build):
    m = _model(default_build, lambda m: True)
    assert default_build.results.evaluations[m["id"]].simulated
    for rel in ["index.html", f"models/{m['slug']}.html", "pairwise.html"]:
        banner = page(default_build.out, rel).find("div", cls="banner")
        assert banner is not None and "Simulated demo data" in banner.text, rel
    assert page(default_build.out, "methodology.html").find("div", cls="banner") is None


def test_task_page_orders_models_marks_ties_and_tabulates_curves(default_build):
    results = default_build.results
    task = default_build.leaderboard["config"]["tasks"][0]
    doc = next(page(default_build.out, f"tasks/{p.name}") for p in (default_build.out / "tasks").iterdir()
               if page(default_build.out, f"tasks/{p.name}").find("h1").text == task)
    rows = doc.by_id("task-table").find("tbody").find_all("tr")
    entries = [m for m in default_build.leaderboard["models"] if task in m["tasks"]]
    assert len(rows) == len(entries)
    estimates = []
    for tr in rows:
        label = row_cells(tr)[2].text
        t = next(m for m in entries if m["label"] == label)["tasks"][task]
        assert _task_interval(t) in row_cells(tr)[3].text
        estimates.append(t["estimate"])
    assert estimates == sorted(estimates, reverse=True)
    marks = [row_cells(tr)[1].seen for tr in rows]
    assert marks[-1] == "" and set(marks[:-1]) <= {"≈ tied", "distinct", "≈ tied paired", "distinct paired"}
    curves = [t for t in doc.find_all("table") if (t.attrs.get("id") or "").startswith("curve-table-")]
    assert curves and len(curves) == len(results.curves[task])
    for table in curves:
        assert len(table.find("tbody").find_all("tr")) == len(entries)


def test_pairwise_page_has_the_matrix_as_a_table(default_build):
    pw = default_build.pairwise
    doc = page(default_build.out, "pairwise.html")
    table = doc.by_id("win-rate-table")
    rows = table.find("tbody").find_all("tr")
    assert len(rows) == len(pw["models"])
    a, b = 0, 1
    cell = row_cells(rows[a])[1 + b].text
    assert cell == f"{100 * pw['win_rate'][a][b]:.0f}%"
    assert row_cells(rows[a])[1 + a].text == "·"
    assert len(doc.by_id("bt").find("tbody").find_all("tr")) == len(pw["bradley_terry"])


def test_curves_spread_over_the_whole_range():
    assert spread(list(range(20)), 8) == [0, 3, 5, 8, 11, 14, 16, 19]
    assert spread([1, 2, 3], 8) == [1, 2, 3]


def _window(current: int, total: int) -> list[int | None]:
    pager = Pager(current, tuple(NavLink(str(k), f"index-{k}.html") for k in range(1, total + 1)))
    return [int(p.label) if p else None for p in pager.window]


def test_the_pager_links_a_window_whose_size_does_not_grow_with_the_pages():
    assert _window(1, 1) == [1]
    assert _window(3, 7) == [1, 2, 3, 4, 5, 6, 7]              # a one-page gap shows the page
    assert _window(1, 50) == [1, 2, 3, None, 50]
    assert _window(25, 50) == [1, None, 23, 24, 25, 26, 27, None, 50]
    assert _window(48, 50) == [1, None, 46, 47, 48, 49, 50]
    assert _window(4, 50) == [1, 2, 3, 4, 5, 6, None, 50]
    for total in (10, 100, 1000):
        for current in range(1, total + 1):
            shown = [k for k in _window(current, total) if k]
            assert {1, current, total} <= set(shown) and shown == sorted(set(shown)) and len(shown) <= 9


def test_the_404_page_links_absolutely_when_the_site_has_a_base_url(default_build):
    from dataclasses import replace

    from helpers_site import parse
    from reasonboard import TEMPLATES_DIR
    from reasonboard.site.render import render_site

    results = replace(default_build.results,
                      config=replace(default_build.results.config, base_url="https://example.org/board/"))
    files = render_site(results, default_build.content_dir, TEMPLATES_DIR)
    doc = parse(files["404.html"].decode())
    urls = [a.attrs["href"] for a in doc.find_all("a")] + [l.attrs["href"] for l in doc.find_all("link")
                                                              if l.attrs.get("rel") == "stylesheet"]
    # A host serves 404.html at any depth, so its links cannot be relative.
    assert urls and all(u.startswith("https://example.org/board/") for u in urls if not u.startswith("#"))
    assert "https://example.org/board/index.html" in urls


def test_every_ranked_model_page_shows_its_neighbour_win_rates(tmp_path):
    """A model ranked below the pairwise matrix (`pairwise_top`) still shows its win rates
    against the models on either side, read from `pairwise.json`'s `neighbours`."""
    import json

    from conftest import ROOT
    from reasonboard.build import BuildOptions, run_build

    config = tmp_path / "site.toml"
    config.write_text("pairwise_top = 3\n", encoding="utf-8")
    out = tmp_path / "site"
    run_build(BuildOptions(data_dir=ROOT / "data", out_dir=out, cache_dir=tmp_path / "cache",
                           config_path=config, content_dir=ROOT / "content"))
    board = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    pairwise = json.loads((out / "data" / "pairwise.json").read_text(encoding="utf-8"))
    ranked = sorted((m for m in board["models"] if m["rank"] is not None), key=lambda m: m["rank"])
    assert len(pairwise["models"]) == 3 and len(ranked) > 5
    labels = {m["id"]: m["label"] for m in board["models"]}
    for m in ranked[3:]:
        doc = page(out, f"models/{m['slug']}.html")
        assert doc.by_id("neighbours-caption") is not None, m["id"]
        rows = doc.by_id("neighbours-caption").parent.find("tbody").find_all("tr")
        expected = pairwise["neighbours"][m["id"]]
        assert [row_cells(tr)[1].text for tr in rows] == [labels[e["id"]] for e in expected]
        for tr, e in zip(rows, expected):
            win, loss = (float(c.text.rstrip("%")) for c in row_cells(tr)[2:4])
            assert win == round(100 * e["win_rate"]) and abs(win + loss - 100) <= 1
            assert row_cells(tr)[4].text == str(e["tasks_shared"])
