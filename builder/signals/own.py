"""The leaderboard's own results as result rows (EVALCARDS.md §1): what the signals add to
the reported rows the store holds, so the board's own scores get the same signals."""

from __future__ import annotations

from ..config import SiteConfig
from ..stats.leaderboard import BoardInputs
from ..store.reported import OwnResult


def own_results(inputs: BoardInputs, config: SiteConfig) -> list[OwnResult]:
    """Each evaluation's per-task estimate as a result row, in the store's order of the
    evaluations (not their ranks: a row keeps its id, and so its anchor, when other models
    move)."""
    rows = []
    for e, estimates in inputs.task_estimates(config.mode):
        for task, score in estimates.items():
            rows.append(OwnResult(
                model=e.hf_id or e.model, evaluation_id=e.id, task=task, score=score,
                organization=e.organization or config.organization or None,
                relationship=e.relationship or config.relationship,
                generation_args=e.generation_args or {}, harness=e.harness,
                sampled=task not in e.likelihood_tasks,
            ))
    return rows
