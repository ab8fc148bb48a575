"""Whether a trials file gives a trial twice: the same point, sample and epoch (SAMPLES.md
section 1: a trials file holds each trial once).

The exact test is a grouping of every trial by (point, sample, epoch): at 2,500 evaluations,
36 million groups, a hashed grouping that spills past the buffer pool and cost 9.2 CPU s
(a third of the store). The trials are stored almost in that order already: a trials file
is sorted by task, params, sample id and epoch, and points and samples are numbered in the
order of their names (trialcodes.py), so the stored rows of a point come in a few rising
runs (DuckDB's parallel insert interleaves a few chunks). Here each batch of whole points
is read as integers, each trial made one number (point, sample, epoch in mixed radix), and
the numbers sorted: a stable sort finds the runs and merges them in about one pass, and a
trial given twice is two equal neighbours. Exact whatever the order the rows come in (the
order only decides the speed); a batch whose numbers would not fit in 63 bits is grouped
in SQL instead.
"""

from __future__ import annotations

import duckdb
import numpy as np

#: Trials read at once (three int32 columns and an int64 key each: about 80 MB).
BATCH_TRIALS = 4_000_000
#: The largest mixed-radix number a batch may need (int64, with room).
_ROOM = 1 << 62


def any_repeated(con: duckdb.DuckDBPyConnection, first: int) -> bool:
    """Whether a fresh point (numbered from `first`, with its trial count in the temp table
    `point_trials`) holds a trial twice: the same sample and epoch (names trimmed and params
    canonical, as stored)."""
    counts = con.execute("SELECT point, total FROM point_trials WHERE point >= ? ORDER BY point", [first]).fetchnumpy()
    return any(_batch_repeats(con, low, high) for low, high in _ranges(counts["point"], counts["total"]))


def _ranges(points: np.ndarray, totals: np.ndarray) -> list[tuple[int, int]]:
    """Ranges [low, high] of point numbers, each of whole points with about `BATCH_TRIALS`
    trials at most between them (a larger point alone)."""
    if len(points) == 0:
        return []
    batch = (np.cumsum(totals) - totals) // BATCH_TRIALS
    starts = np.flatnonzero(np.r_[True, batch[1:] != batch[:-1]])
    ends = np.r_[starts[1:], len(points)] - 1
    return [(int(points[s]), int(points[e])) for s, e in zip(starts, ends)]


def _batch_repeats(con: duckdb.DuckDBPyConnection, low: int, high: int) -> bool:
    rows = con.execute("SELECT point, sample, epoch FROM trials WHERE point BETWEEN ? AND ?", [low, high]).fetchnumpy()
    point, sample, epoch = rows["point"], rows["sample"], rows["epoch"]
    if len(point) < 2:
        return False
    samples, epochs = int(sample.max()) + 1, int(epoch.max()) + 1
    if int(sample.min()) < 0 or int(epoch.min()) < 0 or (high - low + 1) * samples * epochs >= _ROOM:
        found = con.execute("SELECT count(*) FROM (SELECT 1 FROM trials WHERE point BETWEEN ? AND ? "
                            "GROUP BY point, sample, epoch HAVING count(*) > 1)", [low, high]).fetchone()
        return bool(found and found[0])
    key = (point.astype(np.int64) - low) * (samples * epochs) + sample.astype(np.int64) * epochs + epoch
    key.sort(kind="stable")
    return bool((key[1:] == key[:-1]).any())
