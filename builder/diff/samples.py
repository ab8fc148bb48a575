"""Base and head results of the same evaluation, paired on their shared items (SAMPLES.md
section 5): the score-change report's test where both builds publish per-sample outcomes.

A build publishes each evaluation's outcomes under `data/samples/` (one Parquet file per
evaluation, named by its page's slug, SAMPLES.md section 1's columns without the
evaluation's names: `sampleoutputs.samples_files`). For a model present in both builds, both
files are summed per item and the ReasonScore difference (head minus base) is bootstrapped on the items both
answered, exactly as two models are compared on a board (`stats.pairing`): a regrade of the
same items is tested as one. Where either file is missing the overlap rule speaks, and the
report says so (`compare.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
from threadpoolctl import threadpool_limits

from ..config import SiteConfig
from ..confined import checked_name
from ..errors import InputError
from ..sampleoutputs import SAMPLES_FOLDER
from ..stats.boardtests import BoardTests
from ..stats.paired import PairedTest
from ..store.items import task_items

#: What the builds' own leaderboard.json does not say falls back to the config's defaults.
DEFAULTS = SiteConfig()

#: Every file's trials, each evaluation named by its index, as the store keeps trials
#: (schema.sql: `trials`, `trial_points`, `trial_samples`, the columns
#: `store.items.task_items` reads).
_TRIALS = ["""
CREATE TEMP TABLE named AS
SELECT f.model, t.base_task, t.params, t.sample_id, t.correct, t.truncated, t.options
FROM read_parquet(?, filename = true, union_by_name = true) t JOIN files f USING (filename)
""", """
CREATE TEMP TABLE trial_points AS
SELECT (row_number() OVER ())::INTEGER AS point, model, '' AS template, '' AS sampler, base_task, params
FROM (SELECT DISTINCT model, base_task, params FROM named)
""", """
CREATE TEMP TABLE trial_samples AS
SELECT (row_number() OVER ())::INTEGER AS sample, sample_id FROM (SELECT DISTINCT sample_id FROM named)
""", """
CREATE TEMP TABLE trials AS
SELECT p.point, s.sample, n.correct, n.truncated, n.options
FROM named n JOIN trial_points p USING (model, base_task, params) JOIN trial_samples s USING (sample_id)
"""]


def samples_file(folder: Path, model: Mapping[str, Any]) -> Path | None:
    """The per-sample outcomes of a leaderboard row in `folder` (a site's `data/samples/`,
    or a release snapshot's `samples/`: `<slug>.parquet`), when there are; a name that
    leads outside the folder is refused (confined.py)."""
    slug = model.get("slug")
    if not isinstance(slug, str) or not slug:
        return None
    path = folder / f"{slug}.parquet"
    if not path.is_file():
        return None
    return Path(checked_name(path, folder))


def site_samples(data_dir: Path) -> Path:
    """A built site's per-sample outcomes folder, beside its leaderboard file's folder."""
    return data_dir.parent / SAMPLES_FOLDER


def paired_changes(base_samples: Path | None, head_samples: Path | None, base: Mapping[str, Any],
                   head: Mapping[str, Any], draws: int = DEFAULTS.paired_draws) -> dict[str, PairedTest | None]:
    """For each model in both builds whose score changed and whose outcomes both sample folders
    hold (`samples_file`): its paired test (head minus base) over the head's tasks, None when they share too few
    items. Models without the files on both sides are left out (the overlap rule speaks for
    them).

    All models at once, as a build compares its pairs (`stats.pairing`): head `k` is
    evaluation `2k`, its base `2k + 1`, one pass per task, one draw matrix per shared item
    set whatever the number of models using it."""
    if base_samples is None or head_samples is None or not base_samples.is_dir() or not head_samples.is_dir():
        return {}
    old = {m["id"]: m for m in base.get("models", [])}
    config = head.get("config") or {}
    seed = int(config.get("seed", DEFAULTS.seed))
    min_samples = int(config.get("min_samples", DEFAULTS.min_samples))
    found: list[tuple[str, Path, Path]] = []
    for model in head.get("models", []):
        before = old.get(model["id"])
        if before is not None and before.get("reasonscore") == model.get("reasonscore"):
            continue  # the same score: nothing to test (`compare` tests changed scores only)
        new_file = samples_file(head_samples, model)
        old_file = samples_file(base_samples, before) if before is not None else None
        if new_file is not None and old_file is not None:
            found.append((model["id"], new_file, old_file))
    if not found:
        return {}
    files = [str(f) for _, new, old_file in found for f in (new, old_file)]
    con = duckdb.connect()
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute("CREATE TEMP TABLE files AS SELECT unnest(?::VARCHAR[]) AS filename, "
                    "unnest(?::VARCHAR[]) AS model", [files, [str(k) for k in range(len(files))]])
        con.execute(_TRIALS[0], [list(dict.fromkeys(files))])  # a file on both sides is read once
        for statement in _TRIALS[1:]:
            con.execute(statement)
        tasks = list(config.get("tasks") or []) or [
            row[0] for row in con.execute("SELECT DISTINCT base_task FROM trial_points ORDER BY 1").fetchall()]
        keys = [(str(k), "", "") for k in range(len(files))]
        tests = BoardTests(np.arange(len(files)).reshape(-1, 2), draws, seed, min_samples)
        with threadpool_limits(limits=1, user_api="blas"):
            for task in tasks:
                tests.add(task_items(con, task, keys))
    except duckdb.Error as exc:
        raise InputError(head_samples, f"per-sample outcomes unreadable: {str(exc).splitlines()[0]}; "
                                    "rebuild both sites") from None
    finally:
        con.close()
    return {model_id: test for (model_id, _, _), test in zip(found, tests.finish())}
