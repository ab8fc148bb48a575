"""The leaderboard page as a reader sees it: intervals, bands, ties, incomplete models last."""

from __future__ import annotations

from dataclasses import replace

from helpers_site import page, parse, row_cells
from reasonboard import TEMPLATES_DIR
from reasonboard.site.render import render_site


def _rows(doc):
    table = doc.by_id("leaderboard")
    return [tr for tr in table.find_all("tr") if "data-row" in tr.attrs]


def _unranked(doc):
    """The evaluations listed below the table as not ranked on this board."""
    box = doc.by_id("unranked")
    return box.find_all("li") if box is not None else []


def _expected_interval(center, margin):
    return f"{center:.1f} ± {margin:.1f}"


def test_every_row_shows_its_interval_and_band_wording(default_build):
    doc = page(default_build.out, "index.html")
    models = default_build.leaderboard["models"]
    bands = default_build.results.bands
    rows = _rows(doc)
    ranked = [m for m in models if m["rank"] is not None]
    assert len(rows) == len(ranked)
    for tr, m in zip(rows, ranked):
        rs = m["reasonscore"]
        score_cell = row_cells(tr)[3]
        assert _expected_interval(rs["center"], rs["margin"]) in score_cell.text
        assert f"[{rs['ci_low']:.1f}, {rs['ci_high']:.1f}]" in score_cell.text
        band = bands.reasonscore(rs["center"])
        badge = score_cell.find("span", cls="band")
        assert badge.text == band.label and badge.attrs["title"] == band.text
        assert m["label"] in row_cells(tr)[2].text


def test_tie_markers_follow_the_statistics(default_build):
    doc = page(default_build.out, "index.html")
    ranked = [m for m in default_build.leaderboard["models"] if m["rank"] is not None]
    rows = _rows(doc)[: len(ranked)]
    assert any(m["distinct_from_next"] is False for m in ranked), "the demo data should contain ties"
    # Where the next row shares enough items, the paired test speaks (marked "paired").
    paired = {e["a"]: e for e in default_build.pairwise.get("paired", {}).get("adjacent", [])}
    for tr, m in zip(rows, ranked):
        mark = row_cells(tr)[1].seen
        if m["distinct_from_next"] is None:
            assert mark == ""
        elif m["id"] in paired:
            assert mark == ("distinct paired" if paired[m["id"]]["significant"] else "≈ tied paired")
        elif m["distinct_from_next"]:
            assert mark == "distinct"
        else:
            assert mark == "≈ tied"
        rank_text = row_cells(tr)[0].text
        best, worst = m["rank_range"]
        assert rank_text.startswith(str(m["rank"]))
        assert (f"({best}–{worst})" in rank_text) == (best != worst)


def test_unranked_models_are_listed_after_the_table_by_name_without_a_score(default_build):
    """An evaluation missing a task of the board is not compared on its axis: listed apart,
    by name, with what it misses, and no score, band or interval."""
    doc = page(default_build.out, "index.html")
    models = default_build.leaderboard["models"]
    incomplete = [m for m in models if not m["complete"]]
    assert incomplete, "the demo data has a model missing a task"
    assert len(doc.by_id("leaderboard").find_all("tbody")) == 1
    later = _unranked(doc)
    assert [li.find("a").text for li in later] == sorted((m["label"] for m in incomplete), key=str)
    for li, m in zip(later, incomplete):
        assert all(t in li.text for t in m["missing_tasks"])
        assert "±" not in li.text and li.find("span", cls="band") is None
    assert all(m["band"] is None for m in incomplete)


def test_signal_badges_spell_out_their_letter_and_meaning(default_build):
    doc = page(default_build.out, "index.html")
    # A badge every ranked row carries alike is said once above the table, not on each row.
    common = doc.find("div", cls="common-badges")
    said_once = [li.find("strong").text.split()[0] for li in common.find_all("li")] if common else []
    assert "C" in said_once, "the demo's rows share their completeness badge"
    for tr in _rows(doc):
        badges = row_cells(tr)[-1].find_all("li", cls="badge")
        letters = [b.find("b").text for b in badges]
        assert sorted(letters + said_once, key="RCPX".index) == ["R", "C", "P", "X"]
        assert not set(letters) & set(said_once)
        for b in badges:
            sentence = b.find("span", cls="badge-text").text
            assert sentence and ":" in sentence  # "Reproducibility: ..." for screen readers and on hover
            assert "title" not in b.attrs  # the sentence once, not twice per badge


def test_the_table_reads_without_javascript(default_build):
    doc = page(default_build.out, "index.html")
    table = doc.by_id("leaderboard")
    assert table.find("caption").text
    assert all(th.attrs.get("scope") == "col" for th in table.find("thead").find_all("th"))
    # Controls that need JavaScript start hidden; the chart says where its twin table is.
    assert "hidden" in doc.find("form", data_filter_for="leaderboard").attrs
    figure = doc.find("figure", cls="chart")
    assert figure.find("div", cls="chart-canvas").attrs.get("aria-label")
    assert figure.find("a").attrs["href"] == "#leaderboard"


def test_a_small_page_size_paginates_the_index(default_build):
    results = default_build.results
    small = replace(results, config=replace(results.config, page_size=7))
    files = render_site(small, default_build.content_dir, TEMPLATES_DIR)
    n = len(default_build.leaderboard["models"])
    pages = sorted(p for p in files if p.startswith("index"))
    assert sorted(pages) == sorted(["index.html"] + [f"index-{k}.html" for k in range(2, -(-n // 7) + 1)])
    shown = []
    for p in ["index.html"] + [f"index-{k}.html" for k in range(2, len(pages) + 1)]:
        doc = parse(files[p].decode())
        shown += [row_cells(tr)[2].find("a").text for tr in _rows(doc)]
        shown += [li.find("a").text for li in _unranked(doc)]
        pager = doc.find("nav", cls="pager")
        assert pager is not None and len(pager.find_all("a")) >= len(pages) - 1
    assert shown == [m["label"] for m in default_build.leaderboard["models"]]


def test_each_tie_group_is_listed_once_on_the_page_of_its_best_ranked_member(default_build):
    results = default_build.results
    size = 5
    small = replace(results, config=replace(results.config, page_size=size))
    files = render_site(small, default_build.content_dir, TEMPLATES_DIR)
    models = default_build.leaderboard["models"]
    labels = {m["id"]: m["label"] for m in models}
    position = {m["id"]: n for n, m in enumerate(models)}
    groups = default_build.leaderboard["tie_groups"]
    assert len(groups) >= 2, "the demo data should have several tie groups"
    listed: dict[str, list[str]] = {}
    for path, body in files.items():
        if path.startswith("index"):
            ties = parse(body.decode()).by_id("tie-groups")
            items = ties.find_all("li") if ties is not None else []
            listed[path] = sorted(" ".join(li.text.split()) for li in items)
    # Schema 2 records: the page names the rank span, the size, the shared score and the
    # best-ranked member (ranked rows come first, so rank r is row r - 1).
    expected: dict[str, list[str]] = {}
    for g in groups:
        first, last = g["ranks"]
        member = models[first - 1]
        assert member["rank"] == first and position[member["id"]] == first - 1
        page_no = (first - 1) // size + 1
        home = "index.html" if page_no == 1 else f"index-{page_no}.html"
        expected.setdefault(home, []).append(
            f"ranks {first}–{last}: {g['size']} models whose intervals contain {g['at']:.1f}, from {labels[member['id']]}")
    assert {p: gs for p, gs in listed.items() if gs} == {p: sorted(gs) for p, gs in expected.items()}
    assert sum(len(gs) for gs in listed.values()) == len(groups)
