"""The token-budget sweep (SAMPLES.md section 6): what a model would score with a smaller
output-token budget, read from one run.

At each budget `L / d` (`d` in `DIVISORS`, `L` the run's recorded token limit of each
task), every trial with more output tokens than the budget counts as truncated. DuckDB sums
the trials into points exactly as ingest does (INGEST.md section 2), shrinks them to their
effective counters (SAMPLES.md section 2, with the truncation of that budget), sums them
per task and applies the site's estimator; the ReasonScore of each (evaluation, budget) is
`reasonscore_v2` on those bounds with the board's own draws, seed and task columns. At `L`
nothing is cut that the run did not cut, so the sweep's last level is the board's score.

It holds only when the prompt did not state the budget (a model told of a smaller budget
might have answered shorter), which the pages say beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Mapping, Sequence

import numpy as np

from ..store.pointsdb import PointsDB
from ..vocabulary import MODES
from .analysissql import EvalKey, Rows, query
from .reasonscore import reasonscore_v2
from .significance import rank_order, rank_ranges

#: Budgets as divisors of the limit, smallest budget first: L/16, L/8, L/4, L/2, L (the
#: levels of the `budget` statement in store/sql/analyses.sql, which spells them out).
DIVISORS = (16, 8, 4, 2, 1)

#: (estimate, low, high) of the site's estimator on one task.
Estimate = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class BudgetLevel:
    """One budget, `L / divisor`: the ReasonScore interval and each task's estimate."""

    divisor: int
    ci_low: float
    ci_high: float
    tasks: Mapping[str, Estimate]

    @property
    def center(self) -> float:
        return (self.ci_low + self.ci_high) / 2.0

    @property
    def margin(self) -> float:
        return (self.ci_high - self.ci_low) / 2.0


@dataclass(frozen=True, slots=True)
class Sweep:
    """An evaluation's sweep: each task's token limit and the levels in `DIVISORS` order."""

    limits: Mapping[str, int]
    levels: tuple[BudgetLevel, ...]

    @property
    def limit(self) -> int | None:
        """The one limit of every task, None when the tasks' limits differ."""
        values = set(self.limits.values())
        return values.pop() if len(values) == 1 else None


def budget_sweep(db: PointsDB, tasks: Sequence[str], board_tasks: Mapping[EvalKey, Collection[str]],
                 mode: str = "C_P", draws: int = 5000, seed: int = 42,
                 statements: Mapping[str, Rows] | None = None) -> dict[EvalKey, Sweep]:
    """The sweep of every evaluation of `board_tasks` (its tasks on the board, `tasks` in the
    board's column order) whose every one of those tasks has trials that all record their
    output tokens and a recorded limit; the others have none. `statements`: their
    rows when the caller has them (with the estimator of `mode`)."""
    if mode not in MODES:
        raise ValueError(f"unknown estimator mode {mode!r}")
    names, rows = statements["budget"] if statements else query(db, "budget", replace=("ESTIMATOR", estimator(mode)))
    column = {t: j for j, t in enumerate(tasks)}
    estimates: dict[EvalKey, dict[tuple[int, str], Estimate]] = {}
    for row in rows:
        r = dict(zip(names, row))
        if r["base_task"] in column:
            estimates.setdefault((r["model"], r["template"], r["sampler"]), {})[(int(r["divisor"]), r["base_task"])] = \
                (float(r["est"]), float(r["low"]), float(r["high"]))
    swept = [key for key in sorted(estimates) if key in board_tasks and board_tasks[key]
             and all((1, t) in estimates[key] for t in board_tasks[key])]
    if not swept:
        return {}
    size = len(swept) * len(DIVISORS)
    low, high = np.zeros((size, len(tasks))), np.zeros((size, len(tasks)))
    present = np.zeros((size, len(tasks)), dtype=bool)
    for i, key in enumerate(swept):
        for k, d in enumerate(DIVISORS):
            for task in board_tasks[key]:
                at, j = i * len(DIVISORS) + k, column[task]
                _, low[at, j], high[at, j] = estimates[key][(d, task)]
                present[at, j] = True
    scores = reasonscore_v2(low, high, present, draws=draws, seed=seed)
    limits = _limits(statements["recorded"] if statements else query(db, "recorded"))
    out = {}
    for i, key in enumerate(swept):
        levels = []
        for k, d in enumerate(DIVISORS):
            at = i * len(DIVISORS) + k
            levels.append(BudgetLevel(d, float(scores.ci_low[at]), float(scores.ci_high[at]),
                                      {t: estimates[key][(d, t)] for t in tasks if t in board_tasks[key]}))
        out[key] = Sweep({t: limits[(key, t)] for t in tasks if t in board_tasks[key]}, tuple(levels))
    return out


@dataclass(frozen=True, slots=True)
class BudgetRank:
    """One model's rank and rank range (STATISTICS.md section 7, among the models compared)
    at each budget, in `DIVISORS` order, and whether its rank moves with the budget."""

    ranks: tuple[int, ...]
    ranges: tuple[tuple[int, int], ...]

    @property
    def depends(self) -> bool:
        return len(set(self.ranks)) > 1


def budget_ranks(sweeps: Mapping[EvalKey, Sweep], models: Sequence[EvalKey]) -> dict[EvalKey, BudgetRank]:
    """The ranking at each budget of `models` (the board's ranked models, in its order) that
    have a sweep: by center, ties broken by name as the board breaks them."""
    keys = [m for m in models if m in sweeps]
    if not keys:
        return {}
    names = ["\x00".join(k) for k in keys]
    ranks = np.zeros((len(keys), len(DIVISORS)), dtype=np.int64)
    best = np.zeros_like(ranks)
    worst = np.zeros_like(ranks)
    for k in range(len(DIVISORS)):
        low = np.array([sweeps[m].levels[k].ci_low for m in keys])
        high = np.array([sweeps[m].levels[k].ci_high for m in keys])
        order = rank_order((low + high) / 2.0, names)
        ranks[order, k] = np.arange(1, len(keys) + 1)
        best[:, k], worst[:, k] = rank_ranges(low, high)
    return {m: BudgetRank(tuple(int(x) for x in ranks[i]), tuple((int(b), int(w)) for b, w in zip(best[i], worst[i])))
            for i, m in enumerate(keys)}


def estimator(mode: str) -> str:
    """The estimator macro of `mode` (one of `MODES`)."""
    return f"est_{mode.lower()}"


def _limits(recorded: Rows) -> dict[tuple[EvalKey, str], int]:
    """Each (evaluation, task)'s recorded token limit, from the `recorded` statement's rows."""
    names, rows = recorded
    out = {}
    for row in rows:
        r = dict(zip(names, row))
        if r["token_limit"] is not None:
            out[((r["model"], r["template"], r["sampler"]), r["base_task"])] = int(r["token_limit"])
    return out
