"""Trials files (SAMPLES.md section 1): what ingest writes, what the store derives from them,
and the errors a bad or doubled file gives.

The real per-instance tree is ingested once; its points are summed twice independently:
by ingest's own summing (the counters ingest printed and wrote before trials were kept) and
by the store from the trials files, and by hand from a plain reading of the files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers_points import duck_rows, load_data, parquet_rows
from reasonboard.errors import InputError
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.sources.points import discover_point_files
from reasonboard.store import trialfiles
from reasonboard.store.ingest import ingest_points
from reasonboard.store.pointsdb import PointsDB
from reasonboard.store.trialfiles import trials_file_name

DATA = Path(__file__).parent / "data" / "per-instance"
SET = DATA / "inspect" / "inspect_ai" / "log-sets" / "set"
STREAMING = DATA / "inspect" / "inspect_ai" / "tests" / "log" / "test_eval_log" / "log_streaming.eval"


def stored_points(db: PointsDB) -> dict[tuple, tuple]:
    rows = db.con.execute("SELECT model, template, sampler, base_task, params, total, correct, truncated, guess, "
                          "tokens FROM points").fetchall()
    return {tuple(r[:5]): tuple(r[5:]) for r in rows}


@pytest.fixture(scope="module")
def whole_tree(tmp_path_factory):
    data = tmp_path_factory.mktemp("trials") / "data"
    result = run_ingest(IngestOptions(paths=(DATA,), data_dir=data))
    return data, result


def test_every_real_file_gives_through_its_trials_file_the_points_ingest_summed(whole_tree):
    data, result = whole_tree
    with load_data(data) as db:
        stored = stored_points(db)
    summed = {(p.model, p.template, p.sampler, p.base_task, p.params): (p.total, p.correct, p.truncated, p.guess, p.tokens)
              for p in result.points}
    assert stored == summed and len(stored) > 50


def test_trials_files_by_hand(whole_tree):
    """Every trials file read plainly: the spec's columns and nothing else (no text), sorted,
    one file per evaluation, and its counters summed by hand equal the stored points."""
    data, _ = whole_tree
    files = sorted((data / "trials").glob("*.parquet"))
    evaluations = {(e["model"], e["template"], e["sampler"]) for e in json.loads((data / "evals.json").read_text())}
    assert {f.name for f in files} == {trials_file_name(*e) for e in evaluations}
    by_hand: dict[tuple, list] = {}
    for path in files:
        names, _ = duck_rows("SELECT * FROM read_parquet(?) LIMIT 0", [str(path)])
        assert tuple(names) == trialfiles.NAMES
        rows = parquet_rows(path)
        keys = [(r["base_task"], r["params"], r["sample_id"], r["epoch"]) for r in rows]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        for r in rows:
            assert 0 <= r["credit"] <= 1 and r["correct"] == (r["credit"] >= 1 and not r["truncated"])
            p = by_hand.setdefault((r["model"], r["template"], r["sampler"], r["base_task"], r["params"]),
                                   [0, 0, 0, 0.0, 0])
            p[0] += 1
            p[1] += r["correct"]
            p[2] += r["truncated"]
            p[3] += 1 / r["options"] if r["options"] and not r["truncated"] else 0.0
            p[4] += r["tokens"] or 0
    with load_data(data) as db:
        stored = stored_points(db)
    assert stored.keys() == by_hand.keys()
    for key, (n, ne, nt, g, tok) in by_hand.items():
        assert stored[key][:3] == (n, ne, nt) and stored[key][4] == tok
        assert stored[key][3] == pytest.approx(g, abs=1e-8)


def test_partial_credit_is_kept_and_helm_names_the_dataset(whole_tree):
    data, _ = whole_tree
    rows = [r for f in (data / "trials").glob("*.parquet") for r in parquet_rows(f)]
    partial = [r for r in rows if 0 < r["credit"] < 1]
    assert partial and not any(r["correct"] for r in partial)
    tasks = {r["base_task"] for r in rows}
    assert "hellaswag" in tasks and "commonsense" not in tasks
    # output text is kept only as its compressed size, prompt and output tokens where recorded
    assert any(r["compressed"] for r in rows) and any(r["input_tokens"] for r in rows)


def test_epochs_are_kept_as_trials_of_one_sample(tmp_path):
    run_ingest(IngestOptions(paths=(STREAMING,), data_dir=tmp_path))
    [path] = (tmp_path / "trials").glob("*.parquet")
    rows = parquet_rows(path)
    assert sorted((r["sample_id"], r["epoch"]) for r in rows) == [("1", 1), ("1", 2), ("2", 1), ("2", 2)]


def test_reingesting_one_task_keeps_the_evaluations_other_tasks(tmp_path):
    short = DATA / "inspect" / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened"
    run_ingest(IngestOptions(paths=(short / "piqa.json", short / "hellaswag.json"), data_dir=tmp_path))
    [path] = (tmp_path / "trials").glob("*.parquet")
    both = path.read_bytes()
    run_ingest(IngestOptions(paths=(short / "piqa.json",), data_dir=tmp_path))
    assert path.read_bytes() == both


def test_an_ingest_removes_the_temporary_files_a_killed_ingest_left(tmp_path):
    """A killed ingest left `.<name>.parquet.*.tmp` in `data/trials/` (and `.evals.json.*.tmp`
    in `data/`): the next ingest removes those of its own name pattern that are stale, and
    nothing else; the project's `.gitignore` covers them meanwhile."""
    import os
    import subprocess
    import time

    from click.testing import CliRunner
    from reasonboard.cli import main

    short = DATA / "inspect" / "every_eval_ever" / "tests" / "data" / "inspect" / "inspect_shortened"
    lab = tmp_path / "lab"
    assert CliRunner().invoke(main, ["init", str(lab)]).exit_code == 0
    data = lab / "data"
    run_ingest(IngestOptions(paths=(short / "piqa.json",), data_dir=data))
    [trials] = (data / "trials").glob("*.parquet")
    old = time.time() - 2 * 3600
    stale = [data / "trials" / f".{trials.name}.k3_9zq0a.tmp", data / "trials" / ".other.parquet.ab12cd34.tmp",
             data / ".evals.json.x8y7z6w5.tmp"]
    kept = [data / "trials" / f".{trials.name}.fresh123.tmp",  # another ingest's, being written now
            data / "trials" / ".notes.tmp", data / "trials" / f".{trials.name}.tmp",
            data / "trials" / f"{trials.name}.abcd1234.tmp", data / ".site.toml.abcd1234.tmp",
            data / "trials" / f".{trials.name}.toolong12.tmp"]
    for path in stale + kept:
        path.write_bytes(b"half")
        if path.name != f".{trials.name}.fresh123.tmp":
            os.utime(path, (old, old))
    subprocess.run(["git", "init", "-q", str(lab)], check=True)
    ignored = subprocess.run(["git", "-C", str(lab), "check-ignore", "--no-index", *map(str, stale)],
                             capture_output=True, text=True).stdout.split()
    assert sorted(ignored) == sorted(map(str, stale))
    run_ingest(IngestOptions(paths=(short / "piqa.json",), data_dir=data))
    assert [p for p in stale if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []


# -- errors ----------------------------------------------------------------------------------


def copy_set(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    run_ingest(IngestOptions(paths=(SET,), data_dir=data))
    return data


def test_the_same_task_in_a_points_file_and_a_trials_file_names_both(tmp_path):
    data = copy_set(tmp_path)
    rows = "model,template,sampler,base_task,params,total,correct,truncated,guess,tokens\n"
    rows += "openai/gpt-5,default,default,popularity,{},10,5,0,0,100\n"
    (data / "points").mkdir()
    (data / "points" / "mine.csv").write_text(rows)
    with pytest.raises(InputError) as raised:
        load_data(data)
    message = str(raised.value)
    name = trials_file_name("openai/gpt-5", "default", "default")
    assert f"trials/{name}" in message and "points/mine.csv" in message and "popularity" in message
    assert "remove the task's rows from the points file" in message


def test_old_ingested_points_are_named_with_the_fix(tmp_path):
    data = copy_set(tmp_path)
    old = data / "points" / "ingested"
    old.mkdir(parents=True)
    (old / "gpt5.csv").write_text("model,template,sampler,base_task,params,total,correct,truncated,guess,tokens\n"
                                  "openai/gpt-5,default,default,popularity,{},100,50,0,0,100\n")
    with pytest.raises(InputError, match=r"earlier reasonboard ingest.*delete points/ingested/"):
        load_data(data)
    shutil.rmtree(data / "trials")
    with PointsDB() as db:
        report = ingest_points(db, discover_point_files(data), data)
    [warning] = report.warnings
    assert "points/ingested/gpt5.csv" in warning and "ingest the logs again" in warning


def write_rows(path: Path, select: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    duck_rows(f"COPY ({select}) TO '{path}' (FORMAT parquet)")


GOOD = ("SELECT 'm' AS model, 't' AS template, 's' AS sampler, 'task' AS base_task, '{}' AS params, "
        "i::VARCHAR AS sample_id, 1 AS epoch, 1.0 AS credit, true AS correct, false AS truncated, "
        "NULL::INTEGER AS options, 10::BIGINT AS tokens, NULL::BIGINT AS input_tokens, NULL::BIGINT AS compressed "
        "FROM range(5) r(i)")


@pytest.mark.parametrize("select, problem, row", [
    (GOOD.replace("1.0 AS credit", "CASE WHEN i = 3 THEN 1.5 ELSE 1.0 END AS credit"), "'credit' must be between 0 and 1", 4),
    (GOOD.replace("true AS correct", "i <> 2 AS correct"), "'correct' must be true exactly when", 3),
    (GOOD.replace("i::VARCHAR AS sample_id", "(i % 4)::VARCHAR AS sample_id"), "is given twice", 5),
    # A repeat at a late epoch, and one whose names differ only by surrounding spaces (the
    # same trial once trimmed), are found and named.
    (GOOD.replace("i::VARCHAR AS sample_id", "'x' AS sample_id").replace("1 AS epoch", "CASE WHEN i = 4 THEN 99 ELSE i + 98 END AS epoch"),
     "is given twice", 5),
    (GOOD.replace("'m' AS model", "CASE WHEN i = 4 THEN ' m' ELSE 'm' END AS model")
     .replace("i::VARCHAR AS sample_id", "(i % 4)::VARCHAR AS sample_id"), "is given twice", 5),
    (GOOD.replace("'{}' AS params", "'[1]' AS params"), "'params' must be a JSON object", 1),
    (GOOD.replace("1 AS epoch", "0 AS epoch"), "'epoch' must be at least 1", 1),
    (GOOD.replace("1.0 AS credit, ", ""), "no column 'credit'", None),
    # A column of another type: the first value that does not convert, by row, with the
    # value seen (the whole scan's conversion error named only the folder).
    (GOOD.replace("1 AS epoch", "CASE WHEN i = 2 THEN '2x' ELSE '1' END AS epoch"),
     "'epoch' must be a whole number below 2,147,483,648 (got '2x'); the file stores this column as VARCHAR", 3),
    (GOOD.replace("1 AS epoch", "(i + 3000000000)::BIGINT AS epoch"), "(got '3000000000')", 1),
])
def test_a_bad_trials_file_is_named_with_its_row(tmp_path, select, problem, row):
    write_rows(tmp_path / "trials" / "bad.parquet", select)
    with pytest.raises(InputError) as raised:
        load_data(tmp_path)
    assert problem in raised.value.problem and raised.value.path.endswith("bad.parquet")
    assert raised.value.row == row


@pytest.mark.parametrize("select, column, length, limit, row", [
    (GOOD.replace("'m' AS model", "CASE WHEN i = 2 THEN repeat('m', 100000) ELSE 'm' END AS model"),
     "model", 100_000, 500, 3),
    (GOOD.replace("'task' AS base_task", "repeat('t', 501) AS base_task"), "base_task", 501, 500, 1),
    (GOOD.replace("'{}' AS params", "'{\"a\": \"' || repeat('x', 70000) || '\"}' AS params"),
     "params", 70_009, 65_536, 1),
    (GOOD.replace("i::VARCHAR AS sample_id", "CASE WHEN i = 3 THEN repeat('s', 5000000) ELSE i::VARCHAR END AS sample_id"),
     "sample_id", 5_000_000, 4096, 4),
])
def test_a_name_or_sample_id_over_its_limit_is_named(tmp_path, select, column, length, limit, row):
    """A 100,000-character model name was accepted and rendered; 5 MB sample ids made DuckDB
    run out of memory naming no file. Now the file, row, column, length seen and limit."""
    write_rows(tmp_path / "trials" / "bad.parquet", select)
    with pytest.raises(InputError) as raised:
        load_data(tmp_path)
    assert raised.value.path.endswith("bad.parquet") and raised.value.row == row
    assert raised.value.problem == f"'{column}' is {length:,} characters long; the limit is {limit:,} (shorten it)"


def test_many_epochs_of_one_sample_are_no_repeat(tmp_path):
    """One sample with 70 epochs: no trial is given twice, so the file loads, as 70 trials
    of one sample."""
    write_rows(tmp_path / "trials" / "good.parquet",
               GOOD.replace("i::VARCHAR AS sample_id", "'x' AS sample_id").replace("1 AS epoch", "i + 1 AS epoch")
               .replace("range(5)", "range(70)"))
    with load_data(tmp_path) as db:
        assert db.con.execute("SELECT total, samples FROM points").fetchall() == [(70, 1)]


def test_a_good_hand_made_trials_file_loads(tmp_path):
    write_rows(tmp_path / "trials" / "good.parquet", GOOD.replace("'{}' AS params", "'{\"b\": \"1\", \"a\": \"2\"}' AS params"))
    with load_data(tmp_path) as db:
        assert stored_points(db) == {("m", "t", "s", "task", '{"a":"2","b":"1"}'): (5, 5, 0, 0.0, 50.0)}
        assert db.con.execute("SELECT DISTINCT params FROM trial_points").fetchall() == [('{"a":"2","b":"1"}',)]
