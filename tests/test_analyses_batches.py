"""The per-sample analyses over batches of trials files (stats/analyses.py `BATCH_TRIALS`,
which bounds the memory their quantiles take): the same rows as one run over every trial,
whatever the batch size."""

from __future__ import annotations

import itertools

from reasonboard import demo
from reasonboard.config import SiteConfig
from reasonboard.stats import analyses
from reasonboard.store.cache import open_store


def test_batches_of_trials_files_give_the_rows_of_one_run(tmp_path, monkeypatch):
    data = tmp_path / "data"
    demo.write_demo(data, models=6, seed=4)
    db, _ = open_store(data, tmp_path / "cache", None, SiteConfig())
    try:
        whole = analyses.statement_rows(db, "C_P")
        assert analyses.point_batches(db) == [(-2**31, 2**31 - 1)]
        files = db.con.execute("SELECT count(DISTINCT source) FROM trial_points").fetchone()[0]
        trials = db.con.execute("SELECT count(*) FROM trials").fetchone()[0]
        # Each file a batch alone (every file is larger than a batch), then a few files a batch.
        for most, count in ((1000, files), (3 * trials // files, -(-files // 3))):
            monkeypatch.setattr(analyses, "BATCH_TRIALS", most)
            batches = analyses.point_batches(db)
            assert 1 < len(batches) == count
            assert all(low <= high < after for (low, high), (after, _) in itertools.pairwise(batches))
            assert analyses.statement_rows(db, "C_P") == whole
        assert all(rows for _, rows in whole.values())
    finally:
        db.close()
