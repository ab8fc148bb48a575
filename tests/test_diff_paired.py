"""The score-change report pairs base and head results of the same evaluation on the items
both builds' published per-sample outcomes share (SAMPLES.md section 5): a regrade of the same
50 items from 30 to 40 correct is significant, a change within noise is not, and every line
names its rule (overlap where a build publishes no per-sample outcomes)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from reasonboard.cli import main
from reasonboard.sampleoutputs import PUBLISHED, samples_path
from reasonboard.store.pointsdb import sql_string
from test_diff import leaderboard, model

TASK = "arithmetic"


def write_samples(site: Path, model_id: str, correct: list[bool], options: str = "") -> None:
    """A build's published outcomes of one evaluation (where `outputs.samples_files` puts them,
    by the row's slug): one trial per item, write-in answers; by default as builds before
    the compact format wrote them (Parquet version 1), with `PUBLISHED` as builds now do."""
    target = site / samples_path(model(model_id, 0.0, 0.0)["slug"])
    target.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute(
        "COPY (SELECT ? AS base_task, '{}' AS params, printf('s%02d', i) AS sample_id, 1 AS epoch, "
        "CASE WHEN c THEN 1.0 ELSE 0.0 END AS credit, c AS correct, false AS truncated, NULL::INTEGER AS options, "
        "NULL::BIGINT AS tokens, NULL::BIGINT AS input_tokens, NULL::BIGINT AS compressed "
        f"FROM (SELECT unnest(range(?)) AS i, unnest(?::BOOLEAN[]) AS c)) TO {sql_string(target)} (FORMAT parquet{', ' + options if options else ''})",
        [TASK, len(correct), correct])
    con.close()


def write_board(site: Path, rows: list[dict]) -> None:
    (site / "data").mkdir(parents=True, exist_ok=True)
    (site / "data" / "leaderboard.json").write_text(json.dumps(leaderboard(rows, tasks=[TASK])), encoding="utf-8")


def row(model_id: str, center: float, rank: int) -> dict:
    # Wide intervals that overlap across the two builds: the overlap rule calls no change significant.
    return model(model_id, center, 150.0, rank=rank, tasks={TASK: (center / 1000, 0.1, 0.9)})


def test_regrade_of_the_same_items_is_significant_and_noise_is_not(tmp_path):
    base, head = tmp_path / "base", tmp_path / "head"
    write_board(base, [row("regraded/zs/greedy", 300.0, 1), row("noisy/zs/greedy", 280.0, 2),
                       row("bare/zs/greedy", 200.0, 3)])
    write_board(head, [row("regraded/zs/greedy", 548.0, 1), row("noisy/zs/greedy", 300.0, 2),
                       row("bare/zs/greedy", 260.0, 3)])
    write_samples(base, "regraded/zs/greedy", [i < 30 for i in range(50)])
    write_samples(head, "regraded/zs/greedy", [i < 40 for i in range(50)], f"COMPRESSION zstd, {PUBLISHED}")
    # Noise: two items gained and one lost on the same 50 items (both sides in the earlier format).
    write_samples(base, "noisy/zs/greedy", [i < 30 for i in range(50)])
    write_samples(head, "noisy/zs/greedy", [i < 29 or i in (30, 31) for i in range(50)])
    # "bare" has no per-sample outcomes in either build: the overlap rule speaks for it.

    result = CliRunner().invoke(main, ["diff", str(base), str(head), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    by_id = {c["model"]["id"]: c for c in report["changed"]}

    regraded = by_id["regraded/zs/greedy"]
    assert regraded["rule"] == "paired" and regraded["significance"] == "significant_gain"
    assert regraded["test"]["shared"] == 50 and regraded["test"]["significant"]
    assert regraded["test"]["p"] < 0.01
    assert regraded["test"]["low"] > 0

    noisy = by_id["noisy/zs/greedy"]
    assert noisy["rule"] == "paired" and noisy["significance"] == "not_significant"
    assert not noisy["test"]["significant"] and noisy["test"]["p"] > 0.05

    bare = by_id["bare/zs/greedy"]
    assert bare["rule"] == "overlap" and bare["test"] is None
    assert bare["significance"] == "within_intervals"
    assert bare["rule_note"] == "no per-sample outcomes in both builds"
    assert report["summary"]["paired"] == 2

    text = CliRunner().invoke(main, ["diff", str(base), str(head)]).output
    lines = {c: next(line for line in text.splitlines() if f"| {c} |" in line) for c in ("regraded", "noisy", "bare")}
    assert "paired on 50 shared items" in lines["regraded"] and "significant after Holm" in lines["regraded"]
    # The paired figure is named "effect" (it is not the Δ column's difference of centers); a
    # bootstrap p of 0 is the bootstrap's floor and is said to be, never "p = 0" alone.
    test = regraded["test"]
    effect = f"effect {'+' if test['effect'] >= 0 else '-'}{abs(test['effect']):.1f}"
    assert effect in lines["regraded"] and "Δ" not in lines["regraded"].split("|")[-2]
    floor = "p = 0 (no resample crossed zero)"
    assert (floor in lines["regraded"]) == (test["p"] == 0 and test["method"] == "bootstrap")
    assert "p = 0," not in text
    assert lines["regraded"].startswith("| `++` |")
    assert "not significant after Holm" in lines["noisy"] and lines["noisy"].startswith("| `~` |")
    assert lines["bare"].endswith("| overlap |")
