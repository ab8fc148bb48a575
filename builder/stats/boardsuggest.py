"""Boards the data supports (PRODUCT.md "Boards"): when a configured board ranks fewer than
two evaluations, the build names the task sets that at least two evaluations share, ready
to paste into site.toml as `[[boards]]` entries.

A candidate is the intersection of two evaluations' task sets (every set two or more
evaluations share is such an intersection or contains one with the same members); it is
kept when no larger candidate is shared by as many evaluations (a closed set: adding a task
would lose an evaluation). Task sets are deduplicated first, so the pairwise step grows
with the number of distinct task sets, not of evaluations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Sequence

from .board import EvaluationRow, RankedBoard

#: At most this many distinct task sets are intersected pairwise (the most common ones).
MAX_SETS = 300


@dataclass(frozen=True)
class Suggestion:
    tasks: tuple[str, ...]
    #: How many evaluations have every one of `tasks`.
    evaluations: int

    @property
    def name(self) -> str:
        if len(self.tasks) <= 3:
            return " + ".join(self.tasks)
        return f"{self.tasks[0]} and {len(self.tasks) - 1} more tasks"

    def toml(self) -> list[str]:
        """The entry as site.toml lines (TOML strings are JSON strings for these names)."""
        return ["[[boards]]", f"name = {json.dumps(self.name, ensure_ascii=False)}",
                f"tasks = [{', '.join(json.dumps(t, ensure_ascii=False) for t in self.tasks)}]"]


def suggest_boards(task_sets: Iterable[Iterable[str]], limit: int = 5) -> list[Suggestion]:
    """The task sets shared by at least two evaluations (`task_sets`: each evaluation's
    tasks), closed, best first: most evaluations, then most tasks, then by name."""
    counts: dict[frozenset[str], int] = {}
    for tasks in task_sets:
        key = frozenset(tasks)
        if key:
            counts[key] = counts.get(key, 0) + 1
    distinct = sorted(counts, key=lambda s: (-counts[s], sorted(s)))[:MAX_SETS]
    candidates = {s for s in distinct if counts[s] >= 2}
    for i, a in enumerate(distinct):
        for b in distinct[i + 1:]:
            shared = a & b
            if shared:
                candidates.add(shared)
    support = {c: sum(n for s, n in counts.items() if c <= s) for c in candidates}
    closed = [c for c, n in support.items() if n >= 2
              and not any(c < d and support[d] == n for d in candidates)]
    closed.sort(key=lambda c: (-support[c], -len(c), sorted(c)))
    return [Suggestion(tuple(sorted(c)), support[c]) for c in closed[:limit]]


def board_advice(boards: Sequence[RankedBoard], models: Sequence[EvaluationRow]) -> list[str]:
    """What the build says when a board ranks fewer than two evaluations: which board, and
    the task sets at least two of `models` share, as `[[boards]]` lines for site.toml (one
    warning, its lines indented under it)."""
    short = [b for b in boards if b.ranked < 2]
    if not short:
        return []
    lines = [_short_board(b) for b in short]
    # A task result with too few samples is never ranked (SAMPLES.md section 4), so a board
    # built on it would rank nobody: only the results a board can rank count here.
    suggestions = suggest_boards([t for t, r in m.tasks.items() if r.has_interval and not r.preliminary]
                                 for m in models)
    if not suggestions:
        lines.append("no two evaluations share a task: every result is on its model's page and in matrix.html")
        return lines
    entries = [f"    # ranks {s.evaluations} evaluations\n" + "\n".join(f"    {line}" for line in s.toml())
               for s in suggestions]
    lines.append("task sets that at least two evaluations share, as boards for content/site.toml (each ranks "
                 "the evaluations that have all its tasks, each with at least min_samples samples):\n"
                 + "\n".join(entries))
    return lines


def _short_board(board: RankedBoard) -> str:
    """Why `board` ranks fewer than two: too few evaluations have its tasks, or those that
    have them have too few samples on one (preliminary)."""
    ranked = board.ranked
    tasks = "its task" if len(board.tasks) == 1 else f"all {len(board.tasks)} of its tasks"
    line = f"board '{board.name}' ranks {ranked} evaluation{'s' if ranked != 1 else ''}: fewer than two have {tasks}"
    preliminary = sum(1 for m in board.leaderboard.models if m.status == "preliminary")
    if preliminary:
        min_samples = board.leaderboard.settings.min_samples
        line += (f" with at least {min_samples} samples each (min_samples); {preliminary} more "
                 f"{'have' if preliminary != 1 else 'has'} them with fewer, so {'are' if preliminary != 1 else 'is'} "
                 "preliminary")
    return line
