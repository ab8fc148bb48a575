"""The methodology page describes the build it is part of. Its text gives each formula with
the defaults (`C_P`, 5,000 bootstrap draws, seed 42, `min_samples` 20, 2,000 paired
replicates, one board); a site built with other settings must not read as if it used those,
and must name the ones it used. Read on a build of a small project whose `site.toml` sets
every one of them to something else."""

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
            "i < ? AS correct, false AS truncated, NULL::INTEGER AS options, NULL::BIGINT AS tokens, "
            "NULL::BIGINT AS input_tokens, NULL::BIGINT AS compressed "
            "FROM (SELECT unnest(range(?)) AS i), (SELECT unnest(['t1', 't2']) AS t) ORDER BY t, sample_id) "
            f"TO {sql_string(trials / f'{name}.parquet')} (FORMAT parquet)", [name, right, right, ITEMS])
    con.close()
    evals = [{"model": m, "template": "tpl", "sampler": "smp", "label": m.upper()} for m in "abc"]
    (root / "data" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "--project", str(root), "--quiet"])
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
