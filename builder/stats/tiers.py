"""ReasonScore v1, the tiered view, and both score/token figures (STATISTICS.md §5 and §6).

Task scores per tier come from the `V1` estimator macro (upper Wilson bound of the
guess-corrected counts minus the truncation ratio, floored at 0.01); this module only
combines them: geometric mean per tier, arithmetic mean across tiers, division by tokens.
"""

from __future__ import annotations

import numpy as np

from .reasonscore import geometric_mean


def tier_reasonscore(task_scores: np.ndarray, present: np.ndarray) -> np.ndarray:
    """1000 × geometric mean of the task scores present, per row."""
    return 1000.0 * geometric_mean(task_scores, present, axis=-1)


def tokens_per_trial(tokens: np.ndarray, trials: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Task-balanced average tokens: mean over present tasks of Σtok/Σn, per row."""
    per_task = np.where(present, np.asarray(tokens, float) / np.where(present, trials, 1.0), 0.0)
    counts = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, per_task.sum(axis=-1) / counts, np.nan)


def score_per_token_v1(tier_scores: list[float], tier_tokens: list[float]) -> float | None:
    """mean(tier ReasonScores) / mean(tier average tokens); None without tiers or tokens."""
    if not tier_scores:
        return None
    tokens = float(np.mean(tier_tokens))
    return float(np.mean(tier_scores)) / tokens if tokens > 0 else None
