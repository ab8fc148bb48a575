"""Each task's own ranking (stats/taskranks.py), on hand-made rows with hand-worked answers."""

from __future__ import annotations

from reasonboard.stats.board import EvaluationRow, Score, TaskResult
from reasonboard.stats.evaluations import Evaluation
from reasonboard.stats.taskranks import task_ranking
from reasonboard.vocabulary import MODES


def row(name: str, tasks: dict[str, tuple[float | None, float | None, float | None]]) -> EvaluationRow:
    evaluation = Evaluation(
        id=f"{name}|t|s", model=name, template="t", sampler="s", label=name, slug=name.lower(),
        anchor=name.lower(), model_slug=name.lower(), hf_id=None, organization=None, relationship=None,
        generation_args={}, harness=None, simulated=False, groups=(), truncation_observed=True,
        tokens_observed=True)
    results = {task: TaskResult(total=10, truncated=0, correct=5, guess=0.0, tokens=100.0,
                                estimate=est, low=low, high=high, modes=((est, low, high),) * len(MODES))
               for task, (est, low, high) in tasks.items()}
    return EvaluationRow(
        evaluation=evaluation, complete=True, missing_tasks=(), rank=None, rank_range=None,
        score=Score(None, None, None, None), band=None, avg_tokens=None, score_per_token=None,
        truncation_rate=None, tied_count=0, distinct_from_next=None, tasks=results, tiers={},
        score_per_token_v1=None)


# In leaderboard order. On task "x": A [0.7, 0.9] at 0.8; B [0.5, 0.9] without an estimate
# (so at its midpoint 0.7); C [0.65, 0.75] at 0.7, after B on the tie in centre because of
# its label; F [0.1, 0.3] at 0.2. D has the task without an interval, E lacks the task.
ROWS = [
    row("F", {"x": (0.2, 0.1, 0.3)}),
    row("D", {"x": (None, None, None)}),
    row("C", {"x": (0.7, 0.65, 0.75)}),
    row("A", {"x": (0.8, 0.7, 0.9)}),
    row("E", {"y": (0.5, 0.4, 0.6)}),
    row("B", {"x": (None, 0.5, 0.9)}),
]


def test_rows_are_ordered_by_estimate_then_midpoint_ties_by_label() -> None:
    ranking = task_ranking(ROWS, "x")
    assert [m.label for m in ranking.rows] == ["A", "B", "C", "F"]
    assert [m.label for m in ranking.missing] == ["D", "E"]


def test_rank_ranges_and_ties_with_the_next_row() -> None:
    ranking = task_ranking(ROWS, "x")
    # Best rank: 1 + how many intervals lie wholly above; worst: how many do not lie wholly
    # below (counting itself). A, B and C overlap each other; all three lie above F.
    assert ranking.rank_best == (1, 1, 1, 4)
    assert ranking.rank_worst == (3, 3, 3, 4)
    # A-B overlap, B-C overlap, C [0.65, 0.75] lies above F [0.1, 0.3]; F is last.
    assert ranking.tied_next == (True, True, False, None)


def test_a_task_nobody_has_an_interval_on() -> None:
    ranking = task_ranking(ROWS[:2], "z")
    assert ranking.rows == () and ranking.rank_best == () and ranking.tied_next == ()
    assert [m.label for m in ranking.missing] == ["F", "D"]
