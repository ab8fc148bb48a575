"""Base and head results of the same evaluation, paired on their shared items (SAMPLES.md
section 5): the score-change report's test where both builds publish per-sample outcomes.

A build publishes each evaluation's outcomes under `data/samples/` (one Parquet file per
evaluation, named by its page's slug, SAMPLES.md section 1's columns without the
evaluation's names: `sampleoutputs.samples_files`). For a model present in both builds, both files are summed per item in
DuckDB and the ReasonScore difference (head minus base) is bootstrapped on the items both
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

from ..config import SiteConfig
from ..confined import checked_name
from ..errors import InputError
from ..sampleoutputs import SAMPLES_FOLDER, samples_path
from ..stats.paired import PairedTest
from ..stats.pairing import BoardTests
from ..store.items import TaskItems

#: What the builds' own leaderboard.json does not say falls back to the config's defaults.
DEFAULTS = SiteConfig()

_ITEMS = """
SELECT side, base_task, params, sample_id, count(*) AS trials, count(*) FILTER (WHERE correct) AS correct,
       count(*) FILTER (WHERE truncated) AS truncated,
       coalesce(fsum(1.0 / options) FILTER (WHERE NOT truncated AND options IS NOT NULL), 0) AS guess
FROM (SELECT 0 AS side, * FROM read_parquet(?) UNION ALL BY NAME SELECT 1 AS side, * FROM read_parquet(?))
GROUP BY ALL ORDER BY base_task, params, sample_id, side
"""


def samples_file(data_dir: Path, model: Mapping[str, Any]) -> Path | None:
    """The published per-sample outcomes of a leaderboard row (`sampleoutputs.samples_path` of its
    slug, beside the leaderboard file's folder), when the build has them; a name that leads
    outside the samples folder is refused (confined.py)."""
    slug = model.get("slug")
    if not isinstance(slug, str) or not slug:
        return None
    site = data_dir.parent
    path = site / samples_path(slug)
    if not path.is_file():
        return None
    return Path(checked_name(path, site / SAMPLES_FOLDER))


def paired_changes(base_data: Path | None, head_data: Path | None, base: Mapping[str, Any], head: Mapping[str, Any],
                   draws: int = DEFAULTS.paired_draws) -> dict[str, PairedTest | None]:
    """For each model in both builds whose outcomes both publish: its paired test (head minus
    base) over the head's tasks, None when they share too few items. Models without the
    files on both sides are left out (the overlap rule speaks for them)."""
    if base_data is None or head_data is None:
        return {}
    old = {m["id"]: m for m in base.get("models", [])}
    config = head.get("config") or {}
    seed = int(config.get("seed", DEFAULTS.seed))
    min_samples = int(config.get("min_samples", DEFAULTS.min_samples))
    tasks = list(config.get("tasks") or [])
    out: dict[str, PairedTest | None] = {}
    con = duckdb.connect()
    try:
        for model in head.get("models", []):
            before = old.get(model["id"])
            if before is None:
                continue
            new_file, old_file = samples_file(head_data, model), samples_file(base_data, before)
            if new_file is None or old_file is None:
                continue
            test = BoardTests(np.array([[0, 1]]), draws, seed, min_samples)
            try:
                found = _task_items(con, new_file, old_file, tasks)
            except duckdb.Error as exc:
                raise InputError(new_file, f"per-sample outcomes unreadable beside {old_file}: "
                                           f"{str(exc).splitlines()[0]}; rebuild both sites") from None
            for items in found:
                test.add(items)
            out[model["id"]] = test.finish()[0]
    finally:
        con.close()
    return out


def _task_items(con: duckdb.DuckDBPyConnection, head: Path, base: Path, tasks: list[str]) -> list[TaskItems]:
    """Both files' items per task, the head as evaluation 0 and the base as 1."""
    rows = con.execute(_ITEMS, [str(head), str(base)]).fetchall()
    by_task: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        by_task.setdefault(row[1], []).append(row)
    out = []
    for task in tasks or sorted(by_task):
        found = by_task.get(task, [])
        params = sorted({r[2] for r in found})
        ids = [sorted({r[3] for r in found if r[2] == p}) for p in params]
        stratum = {p: k for k, p in enumerate(params)}
        item = [{sid: k for k, sid in enumerate(group)} for group in ids]
        found.sort(key=lambda r: (r[0], stratum[r[2]], item[stratum[r[2]]][r[3]]))
        out.append(TaskItems(
            task=task, params=tuple(params), sample_ids=tuple(tuple(g) for g in ids),
            evaluation=np.array([r[0] for r in found], dtype=np.int64),
            stratum=np.array([stratum[r[2]] for r in found], dtype=np.int64),
            item=np.array([item[stratum[r[2]]][r[3]] for r in found], dtype=np.int64),
            trials=np.array([r[4] for r in found], dtype=np.int64), correct=np.array([r[5] for r in found], dtype=np.int64),
            truncated=np.array([r[6] for r in found], dtype=np.int64),
            guess=np.array([r[7] for r in found], dtype=np.float64)))
    return out
