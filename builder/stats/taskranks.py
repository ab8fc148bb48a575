"""Each task's own ranking: the evaluations with an interval on it, best first, with the
plausible rank range of each and whether it is tied with the next (STATISTICS.md §7 applied
to one task's intervals). The task pages only format it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .board import EvaluationRow, TaskResult
from .significance import rank_ranges


@dataclass(frozen=True, slots=True)
class TaskRanking:
    """One task's evaluations in order: by the point estimate (the interval's midpoint when
    there is none), ties broken by label like the leaderboard."""

    task: str
    #: The evaluations with an interval on the task, best first.
    rows: tuple[EvaluationRow, ...]
    rank_best: tuple[int, ...]
    rank_worst: tuple[int, ...]
    #: Whether each row's interval overlaps the next row's; None for the last row.
    tied_next: tuple[bool | None, ...]
    #: The evaluations without an interval on the task, in leaderboard order.
    missing: tuple[EvaluationRow, ...]
    #: How many of `rows` are ranked; the rest are preliminary (fewer than `min_samples`
    #: samples), listed after them with no rank range (0, 0) and no tie mark.
    ranked: int = -1

    #: The task's items among the evaluations with trials on it (SAMPLES.md section 3: the
    #: union of their (params, sample_id)); None when no evaluation has trials on it.
    items: int | None = None

    def is_preliminary(self, position: int) -> bool:
        return 0 <= self.ranked <= position

    def listed(self, page_size: int) -> tuple[EvaluationRow, ...]:
        """The rows the task's page lists: its first `page_size`. The one definition the
        page and the difficulty curves share, since the statistics make curves for these
        models only."""
        return self.rows[:page_size]


def task_rankings(models: Sequence[EvaluationRow], tasks: Sequence[str],
                  items: Mapping[str, int] | None = None) -> dict[str, TaskRanking]:
    return {task: task_ranking(models, task, (items or {}).get(task)) for task in tasks}


def task_ranking(models: Sequence[EvaluationRow], task: str, items: int | None = None) -> TaskRanking:
    entries: list[tuple[EvaluationRow, TaskResult]] = []
    missing = []
    for m in models:
        t = m.tasks.get(task)
        if t is None or not t.has_interval:
            missing.append(m)
        else:
            entries.append((m, t))
    # Preliminary results (fewer than `min_samples` samples, SAMPLES.md section 4) after the
    # others, never interleaved with them, and outside their rank ranges and ties.
    entries.sort(key=lambda x: (x[1].preliminary, -_center(x[1]), x[0].label))
    ranked = [t for _, t in entries if not t.preliminary]
    low = np.array([t.low for t in ranked], dtype=float)
    high = np.array([t.high for t in ranked], dtype=float)
    if ranked:
        best, worst = rank_ranges(low, high)
        # Two intervals overlap unless one lies wholly above the other.
        tied: list[bool | None] = (~((low[:-1] > high[1:]) | (low[1:] > high[:-1]))).tolist()
        tied.append(None)
    else:
        best, worst, tied = np.array([], dtype=int), np.array([], dtype=int), []
    rest = len(entries) - len(ranked)
    return TaskRanking(task, tuple(m for m, _ in entries), tuple(int(b) for b in best.tolist()) + (0,) * rest,
                       tuple(int(w) for w in worst.tolist()) + (0,) * rest, tuple(tied) + (None,) * rest,
                       tuple(missing), len(ranked), items)


def _center(t: TaskResult) -> float:
    """The point estimate, or the interval's midpoint when there is none."""
    if t.estimate is not None:
        return t.estimate
    assert t.low is not None and t.high is not None
    return (t.low + t.high) / 2
