"""Paired tests on every board, not only the front page's (SAMPLES.md section 5, PRODUCT.md
"Boards"): the second board's adjacent pairs in `pairwise.json` are checked against a plain
Python bootstrap of the ReasonScore difference read straight from the trials files, Holm
against a plain step-down, and the board's page marks each pair by the rule it names."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import ROOT, TWO_BOARDS, TWO_BOARDS_DRAWS, TWO_BOARDS_SEED, build_real
from helpers_site import page, row_cells
from test_compare_data import read_script
from test_paired import plain_task
from test_site_paired import plain_holm

DRAWS, SEED = TWO_BOARDS_DRAWS, TWO_BOARDS_SEED
FIRST, SECOND = TWO_BOARDS["Front"], TWO_BOARDS["Second"]


@pytest.fixture(scope="module")
def built(two_boards_build: dict[str, Any]) -> dict[str, Any]:
    return two_boards_build


def board_order(site: Path, models: dict[str, Any]) -> list[str]:
    """The second board's ranked rows, in the order its page lists them."""
    doc = page(site, "boards/second.html")
    by_label = {m["label"]: i for i, m in models.items()}
    order = []
    for row in doc.by_id("leaderboard").find("tbody").find_all("tr"):
        cells = row_cells(row)
        link = row.find("a")
        if cells and cells[0].text.strip()[:1].isdigit() and link is not None and link.text in by_label:
            order.append(by_label[link.text])
    return order


def items_of(model: dict[str, Any], task: str) -> dict[tuple[str, str], tuple[int, int, int, float]]:
    """(params, sample_id) -> (trials, correct, truncated, guess) of one evaluation on a task,
    summed from its trials file row by row."""
    with duckdb.connect() as con:  # not the module-level connection, whose threads outlive the test
        rows = con.execute(
            "SELECT params, sample_id, correct, truncated, options FROM read_parquet(?) "
            "WHERE model = ? AND template = ? AND sampler = ? AND base_task = ?",
            [str(ROOT / "data" / "trials" / "*.parquet"), model["model"], model["template"], model["sampler"],
             task]).fetchall()
    out: dict[tuple[str, str], tuple[int, int, int, float]] = {}
    for params, sid, correct, truncated, options in rows:
        m, e, t, g = out.get((params, sid), (0, 0, 0, 0.0))
        out[(params, sid)] = (m + 1, e + bool(correct), t + bool(truncated),
                              g + (1.0 / options if options and not truncated else 0.0))
    return out


def plain_board_test(a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float, float, float]:
    """Effect, low, high and p of A minus B on the second board, one replicate at a time."""
    observed, replicates = [], []
    for task in SECOND:
        ia, ib = items_of(a, task), items_of(b, task)
        shared = sorted(ia.keys() & ib.keys())
        spec = []
        for params in sorted({p for p, _ in shared}):
            ids = [sid for p, sid in shared if p == params]
            spec.append((params, ids, [ia[(params, s)] for s in ids], [ib[(params, s)] for s in ids]))
        obs, reps = plain_task(SEED, task, spec, DRAWS)
        observed.append(obs)
        replicates.append(reps)

    def gm(values: list[float]) -> float:
        return 1000 * math.exp(sum(math.log(max(v, 0.01)) for v in values) / len(values))

    effect = gm([o[0] for o in observed]) - gm([o[1] for o in observed])
    diffs = sorted(gm([r[k][0] for r in replicates]) - gm([r[k][1] for r in replicates]) for k in range(DRAWS))
    low, high = diffs[math.floor(0.025 * DRAWS)], diffs[math.floor(0.975 * DRAWS)]
    le = sum(round(d, 9) <= 0 for d in diffs) / DRAWS
    ge = sum(round(d, 9) >= 0 for d in diffs) / DRAWS
    return effect, low, high, min(1.0, 2 * min(le, ge))


def test_second_board_pairs_follow_its_own_ranking_with_holm_over_them(built):
    entries = built["paired"]["boards"]["Second"]
    order = board_order(built["site"], built["models"])
    assert len(order) >= 3 and len(entries) == len(order) - 1
    assert [(e["a"], e["b"]) for e in entries] == list(itertools.pairwise(order))
    assert [e["significant"] for e in entries] == plain_holm([e["p"] for e in entries])
    # The front page's pairs are its own, not the second board's.
    assert "Front" not in built["paired"]["boards"]
    assert [e["a"] for e in built["paired"]["adjacent"]] != [e["a"] for e in entries]


@pytest.mark.parametrize("which", [0, -1])
def test_second_board_tests_equal_a_plain_bootstrap_of_the_trials(built, which):
    e = built["paired"]["boards"]["Second"][which]
    effect, low, high, p = plain_board_test(built["models"][e["a"]], built["models"][e["b"]])
    assert e["method"] == "bootstrap"
    assert e["effect"] == pytest.approx(effect, abs=1e-3)
    assert (e["low"], e["high"]) == pytest.approx((low, high), abs=1e-3)
    assert e["p"] == pytest.approx(p, abs=1e-6)


def test_second_board_page_names_the_paired_rule_and_marks_by_it(built):
    entries = built["paired"]["boards"]["Second"]
    doc = page(built["site"], "boards/second.html")
    rule = doc.find(cls="adjacent-rule").text
    assert f"{len(entries)} of the {len(entries)} adjacent pairs" in rule and "Holm" in rule
    marks = [c for c in doc.find_all("span", cls="tie") if "paired" in c.text]
    assert len(marks) == len(entries)
    assert sum("distinct" in c.text for c in marks) == sum(e["significant"] for e in entries)


def test_a_second_board_of_the_real_logs_is_paired_as_the_first(real_data, tmp_path):
    """The real `popularity` logs on two boards of the same task: the second board's pairs are
    the first's, resampled once and added to both, so its entries equal the first board's
    adjacent entries (which `test_paired_real` checks against a plain reading of the logs),
    and its page marks and names them alike."""
    built = build_real(real_data, tmp_path, '[[boards]]\nname = "popularity"\ntasks = ["popularity"]\n'
                                            '[[boards]]\nname = "Popularity again"\ntasks = ["popularity"]\n')
    paired = json.loads((built.out / "data" / "pairwise.json").read_text(encoding="utf-8"))["paired"]
    entries = paired["boards"]["Popularity again"]
    assert entries and entries == paired["adjacent"]
    assert [e["significant"] for e in entries] == plain_holm([e["p"] for e in entries])
    front, second = page(built.out, "index.html"), page(built.out, "boards/popularity-again.html")
    assert second.find(cls="adjacent-rule").text == front.find(cls="adjacent-rule").text
    assert f"{len(entries)} of the {len(entries)} adjacent pair" in second.find(cls="adjacent-rule").text
    assert [c.text for c in second.find_all("span", cls="tie")] == [c.text for c in front.find_all("span", cls="tie")]


def test_the_compare_view_knows_every_board(built):
    """A board page's "Compare" link names its board, so the compare view's data hold each
    board's tasks, each evaluation's standing on the boards after the first (as the board's
    page prints it) and the build's paired tests there (as pairwise.json has them)."""
    site = built["site"]
    _, index = read_script(site / "data" / "compare" / "index.js")
    assert index["boards"] == [["Front", list(FIRST)], ["Second", list(SECOND)]]
    assert index["board"] == list(FIRST)
    assert index["paired"]["boards"]["Second"] == [
        [e["a"], e["b"], e["shared"], e["effect"], e["low"], e["high"], e["p"], e["method"]]
        for e in built["paired"]["boards"]["Second"]]
    order = board_order(site, built["models"])
    printed = {}
    for row in page(site, "boards/second.html").by_id("leaderboard").find("tbody").find_all("tr"):
        link = row.find("a")
        score = re.search(r"(\d+\.\d) ± \d+\.\d", row.text)
        if link is not None and score:
            printed[link.text] = float(score.group(1))
    for eid, (slug, label) in index["evaluations"].items():
        _, doc = read_script(site / "data" / "compare" / "e" / f"{slug}.js")
        rank, status, score = doc["boards"]["Second"]
        if eid in order:
            assert rank == order.index(eid) + 1 and status == "ranked"
            assert round(score[0], 1) == printed[label] and score[1] <= score[0] <= score[2]
        else:
            assert rank is None and status != "ranked"
        assert "Front" not in doc["boards"]
    page_html = (site / "boards" / "second.html").read_text(encoding="utf-8")
    assert 'data-compare-board="Second"' in page_html
