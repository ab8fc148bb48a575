"""Pages describe the build they are part of, read on a build of a small project whose
`site.toml` sets every statistical setting to something other than its default:

a. the methodology page gives each formula with the defaults (`C_P`, 5,000 bootstrap draws,
   seed 42, `min_samples` 20, 2,000 paired replicates, one board); it must not read as if the
   site used those, and must name the ones it used;
b. model and task pages print the site's estimator (`mode`, here E_P): their figures are
   labelled E_P, not C_P, and an E estimator's 0 (lucky guesses kept) is "never right", not
   "no better than guessing", though every trial records its answer options;
c. a release's board says why an evaluation that has every task is not ranked (C has 20
   samples of t2, fewer than `min_samples`): it is preliminary, not missing a task;
d. the budget sweep ranks the front board: a second board's page links to it as the front
   board's ranking, not as its own."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from helpers_site import page
from reasonboard.cli import main
from reasonboard.store.pointsdb import sql_string

ITEMS = 40
SETTINGS = """mode = "E_P"
bootstrap = 1000
seed = 7
min_samples = 30
paired_draws = 500
pairwise_top = 3

[[boards]]
name = "First"
tasks = ["t1", "t2"]

[[boards]]
name = "Second"
tasks = ["t2"]
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("method-settings")
    (root / "content").mkdir()
    (root / "content" / "site.toml").write_text(SETTINGS, encoding="utf-8")
    trials = root / "data" / "trials"
    trials.mkdir(parents=True)
    con = duckdb.connect()
    for name, right in (("a", 30), ("b", 20), ("c", 10)):
        con.execute(
            "COPY (SELECT ? AS model, 'tpl' AS template, 'smp' AS sampler, t AS base_task, '{}' AS params, "
            "printf('s%02d', i) AS sample_id, 1 AS epoch, CASE WHEN i < ? THEN 1.0 ELSE 0.0 END AS credit, "
            "i < ? AS correct, false AS truncated, 4 AS options, (50 + 20 * i)::BIGINT AS tokens, "
            "NULL::BIGINT AS input_tokens, NULL::BIGINT AS compressed "
            "FROM (SELECT unnest(range(?)) AS i), (SELECT unnest(['t1', 't2']) AS t) "
            "WHERE NOT (? AND t = 't2' AND i >= 20) ORDER BY t, sample_id) "
            f"TO {sql_string(trials / f'{name}.parquet')} (FORMAT parquet)", [name, right, right, ITEMS, name == "c"])
    con.close()
    evals = [{"model": m, "template": "tpl", "sampler": "smp", "label": m.upper(),
              "generation_args": {"max_tokens": 1000, "temperature": 0.0}} for m in "abc"]
    (root / "data" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    result = CliRunner().invoke(main, ["release", "r1", "--date", "2026-01-01", "--project", str(root)])
    assert result.exit_code == 0, result.output
    return root / "site"


def test_methodology_names_the_settings_of_this_build(site):
    text = page(site, "methodology.html").text
    # The defaults are not stated as what this site did.
    for default in ("Draw 5,000 bootstrap samples, seed 42", "C_P is the default everywhere",
                    "Take each task's C_P interval"):
        assert default not in text
    settings = page(site, "methodology.html").by_id("site-settings")
    assert settings is not None, "the page names no settings of its own"
    said = settings.parent.text
    assert "Task scores: the E_P estimator." in said
    assert "ReasonScore intervals: 1,000 bootstrap draws, seed 7." in said
    assert "fewer than 30 samples is preliminary" in said and "share at least 30" in said
    assert "500 paired bootstrap replicates" in said
    assert "2 boards: First (the front page): t1, t2; Second: t2." in said
    # And what it says agrees with the build's own record.
    config = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))["config"]
    assert (config["mode"], config["bootstrap"], config["seed"]) == ("E_P", 1000, 7)


def _header(doc, table_id: str) -> list[str]:
    table = doc.by_id(table_id)
    assert table is not None, table_id
    return [th.text for th in table.find("thead").find_all("th")]


def test_model_and_task_pages_label_the_site_estimator(site):
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    a = next(m for m in board["models"] if m["label"] == "A")
    mid, low, high = a["tasks"]["t1"]["modes"]["E_P"]
    model = page(site, f"models/{a['slug']}.html")
    assert _header(model, "task-results")[1] == "E_P"
    assert model.by_id("task-results-caption").text.startswith("E_P per task")
    # The figure printed is the E_P interval, so the label is what it is.
    row = next(r for r in model.by_id("task-results").find_all("tr") if "t1" in r.text)
    assert f"[{low:.3f}, {high:.3f}]" in row.text
    figure = model.by_id("task-intervals-figcaption").text
    assert figure.startswith("E_P estimate") and "0 = never right" in figure and "guessing" not in figure
    task = page(site, "tasks/t1.html")
    assert "E_P" in _header(task, "task-table") and "C_P" not in _header(task, "task-table")
    assert "Each result is the E_P estimator" in task.text
    assert task.by_id("task-models-figcaption").text.startswith("E_P interval")


def test_release_board_says_why_a_complete_evaluation_is_unranked(site):
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    c = next(m for m in board["models"] if m["label"] == "C")
    assert c["rank"] is None and c["missing_tasks"] == [] and c["preliminary_tasks"] == ["t2"]
    doc = page(site, "releases/r1.html")
    row = next(r for r in doc.by_id("release-board").find_all("tr") if r.find("th") is not None
               and r.find("th").text.startswith("C"))
    assert "preliminary" in row.text and "missing" not in row.text
    heading = next(r for r in doc.by_id("release-board").find_all("tr") if "Not ranked" in r.text)
    assert "preliminary" in heading.text


def test_second_board_links_the_budget_sweep_as_the_front_boards(site):
    front = page(site, "index.html").find("p", cls="lede")
    second = page(site, "boards/second.html").find("p", cls="lede")
    budget = [a.text for a in front.find_all("a") if a.attrs.get("href", "").endswith("budget.html")]
    assert budget == ["The ranking at a smaller token budget"]
    budget = [a.text for a in second.find_all("a") if a.attrs.get("href", "").endswith("budget.html")]
    assert budget == ["The First board's ranking at a smaller token budget"]
