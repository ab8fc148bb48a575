"""The statistics' records cross a pipe on every build (stats/records.py): pickled and
copied with their field values in field order, they come back equal, frozen and slotted."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from reasonboard.stats.board import EvaluationRow, Leaderboard, Score, TaskResult


def records(result) -> list:
    board: Leaderboard = result.leaderboard
    found: list = [board, board.settings, *board.tie_groups]
    for m in board.models:
        found += [m, m.score, m.evaluation, *m.tasks.values(), *m.tiers.values()]
    return found


def test_every_record_comes_back_equal(default_build):
    results = default_build.results
    found = records(results) + list(results.task_rankings.values())
    kinds = {type(r) for r in found}
    assert {EvaluationRow, Score, TaskResult} <= kinds
    for record in found:
        assert pickle.loads(pickle.dumps(record, protocol=5)) == record
        assert copy.deepcopy(record) == record
    row = results.leaderboard.models[0]
    assert row.score.__getstate__() == tuple(getattr(row.score, f.name) for f in dataclasses.fields(Score))
    back = pickle.loads(pickle.dumps(row))
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.rank = 3  # type: ignore[misc]
    assert not hasattr(back, "__dict__")
