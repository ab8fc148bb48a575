"""The store's sums of each task's trials for the per-sample analyses (store/trialsummary.py):
the same sums whatever the batch of trials they are read in (`BATCH_TRIALS`, which bounds
the memory their quartiles take), and the sums of a fresh store after every kind of change
a cached store is brought up to date with (a changed, removed or added trials file, a
changed token limit), and from a user's own database."""

from __future__ import annotations

import json
import shutil

import duckdb
from reasonboard import demo
from reasonboard.config import SiteConfig
from reasonboard.stats import analyses
from reasonboard.store import trialsummary
from reasonboard.store.cache import open_store
from reasonboard.store.pointsdb import sql_string

SUMS = ("trial_counts", "trial_outcomes", "trial_budgets")


def rows_of(data, cache):
    """The analyses' statement rows and the summaries' tables of a store of `data`."""
    db, _ = open_store(data, cache, None, SiteConfig())
    try:
        return analyses.statement_rows(db, "C_P"), {t: sums(db.con, t) for t in SUMS}
    finally:
        db.close()


def sums(con, table):
    """A summary table's rows keyed by the names of their task, not its number (which
    depends on the order files were stored in)."""
    return sorted(con.execute(f"""SELECT p.source, p.model, p.template, p.sampler, p.base_task, s.* EXCLUDE (task)
                                  FROM {table} s JOIN trial_points p ON p.point = s.task""").fetchall(), key=repr)


def test_batches_of_tasks_give_the_sums_of_one_run(tmp_path, monkeypatch):
    data = tmp_path / "data"
    demo.write_demo(data, models=6, seed=4)
    whole = rows_of(data, tmp_path / "one")
    assert all(rows for _, rows in whole[0].values()) and all(whole[1].values())
    # Each task a batch alone (every task is larger than a batch), then a few tasks a batch.
    for most in (10, 3000):
        monkeypatch.setattr(trialsummary, "BATCH_TRIALS", most)
        assert rows_of(data, tmp_path / f"batches-{most}") == whole


def flip_one_file(trials_dir):
    """Every trial of the first task of one trials file answered the other way round."""
    target = sorted(trials_dir.glob("*.parquet"))[1]
    temporary = target.with_name(target.name + ".tmp")
    con = duckdb.connect()
    (task,) = con.execute("SELECT min(base_task) FROM read_parquet(?)", [str(target)]).fetchone()
    con.execute(f"""COPY (SELECT * REPLACE (CASE WHEN flip THEN 1.0 - credit ELSE credit END AS credit,
                                             CASE WHEN flip THEN NOT correct ELSE correct END AS correct)
                          FROM (SELECT *, base_task = ? AND NOT truncated AND credit IN (0, 1) AS flip
                                FROM read_parquet(?)))
                    TO {sql_string(temporary)} (FORMAT parquet)""", [task, str(target)])
    con.execute(f"COPY (SELECT * EXCLUDE (flip) FROM read_parquet({sql_string(temporary)})) "
                f"TO {sql_string(target)} (FORMAT parquet)")
    con.close()
    temporary.unlink()


def test_a_cached_store_brought_up_to_date_has_the_sums_of_a_fresh_one(tmp_path):
    data, cache = tmp_path / "data", tmp_path / "cache"
    demo.write_demo(data, models=5, seed=2)
    rows_of(data, cache)
    files = sorted((data / "trials").glob("*.parquet"))
    aside = tmp_path / files[0].name
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    changes = [
        lambda: flip_one_file(data / "trials"),
        lambda: shutil.move(files[0], aside),  # a file removed
        lambda: shutil.move(aside, files[0]),  # and back
        # Another limit for one evaluation, none for another: their budget sums change or go.
        lambda: write_evals(data, [dict(e, generation_args={**e["generation_args"], "max_tokens": 3000})
                                   if i == 0 else
                                   dict(e, generation_args={k: v for k, v in e["generation_args"].items()
                                                            if k != "max_tokens"}) if i == 1 else e
                                   for i, e in enumerate(evals)]),
    ]
    before = rows_of(data, cache)
    for k, change in enumerate(changes):
        change()
        updated = rows_of(data, cache)
        assert updated == rows_of(data, tmp_path / f"fresh-{k}")
        assert updated != before  # every change changes some sums
        before = updated


def write_evals(data, entries):
    (data / "evals.json").write_text(json.dumps(entries), encoding="utf-8")


def test_a_users_database_gets_the_sums_of_its_trials(tmp_path):
    from reasonboard.store.parts import from_user_db

    data = tmp_path / "data"
    demo.write_demo(data, models=4, seed=3)
    expected = rows_of(data, tmp_path / "cache")
    [stored] = (tmp_path / "cache").glob("pointsdb-*.duckdb")
    copy = tmp_path / "user.duckdb"
    con = duckdb.connect(str(copy))
    con.execute(f"ATTACH {sql_string(stored)} AS src (READ_ONLY)")
    for table in ("points", "trial_points", "trial_samples", "trials", "evaluations"):
        con.execute(f"CREATE TABLE {table} AS SELECT * FROM src.{table}")
    con.close()
    db, _ = from_user_db(copy, tmp_path / "none", SiteConfig(), False)
    try:
        assert (analyses.statement_rows(db, "C_P"), {t: sums(db.con, t) for t in SUMS}) == expected
    finally:
        db.close()
