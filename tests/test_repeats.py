"""The store's test for a trial given twice (store/repeats.py), against a plain reading of
the trials: a set of (point, sample, epoch) that meets one twice. The rows are stored in a
shuffled order (the test must not rely on the order the store usually gives), in batches
smaller than the table and, once, through the SQL grouping a batch falls back to."""

from __future__ import annotations

import random

import duckdb
import numpy as np
import pytest
from reasonboard.store import repeats


def plain(rows: list[tuple[int, int, int]], first: int) -> bool:
    seen: set[tuple[int, int, int]] = set()
    for row in rows:
        if row[0] >= first:
            if row in seen:
                return True
            seen.add(row)
    return False


def stored(rows: list[tuple[int, int, int]], first: int) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE trials (point INTEGER, sample INTEGER, epoch INTEGER)")
    con.executemany("INSERT INTO trials VALUES (?, ?, ?)", rows)
    con.execute("CREATE TEMP TABLE point_trials AS SELECT point, count(*) AS total FROM trials "
                "WHERE point >= ? GROUP BY point", [first])
    return con


def trials(seed: int) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    rows = [(point, sample, epoch) for point in range(1, 40) for sample in rng.sample(range(1, 300), rng.randint(1, 30))
            for epoch in range(1, rng.choice([2, 2, 4]))]
    rng.shuffle(rows)
    return rows


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fallback", [False, True])
def test_a_trial_given_twice_is_found_exactly(monkeypatch, seed, fallback):
    monkeypatch.setattr(repeats, "BATCH_TRIALS", 50)
    if fallback:
        monkeypatch.setattr(repeats, "_ROOM", 2)
    rng = random.Random(seed)
    rows = trials(seed)
    cases = [rows, [*rows, rng.choice(rows)], [*rows, (1, 1, 1), (1, 1, 2)], rows + [(1, 1, 1)] * 2]
    for case in cases:
        for first in (1, 20):
            assert repeats.any_repeated(stored(case, first), first) == plain(case, first), (seed, first)


def test_epochs_and_samples_are_not_confused():
    """(sample 1, epoch 12) and (sample 2, epoch 2) are two trials, however the number of
    either is written."""
    rows = [(5, 1, 12), (5, 2, 2), (5, 1, 2), (5, 12, 1), (5, 11, 11)]
    assert not repeats.any_repeated(stored(rows, 1), 1)
    assert repeats.any_repeated(stored([*rows, (5, 11, 11)], 1), 1)


def test_batches_hold_whole_points(monkeypatch):
    points, totals = np.array([3, 4, 7, 9]), np.array([2, 5, 1, 9])
    assert repeats._ranges(points, totals) == [(3, 9)]
    monkeypatch.setattr(repeats, "BATCH_TRIALS", 6)
    assert repeats._ranges(points, totals) == [(3, 4), (7, 9)]
