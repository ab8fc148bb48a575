"""The per-sample analyses of a board (SAMPLES.md section 6), gathered per evaluation.

The store sums each (evaluation, task)'s trials (SAMPLES.md section 1) once, as it stores
them (store/trialsummary.py): counts by outcome and by bin of output tokens, quartiles, and
the budget sweep's effective counters at the run's token limit (from the evaluation's
recorded generation arguments under any of the harnesses' spellings; a limit that caps an
answer letter is no limit here). Compression, hazard and the budget sweep read those sums
in DuckDB (compression.py, hazard.py, budget.py), never the trials; what could not be
computed carries the reason the pages print.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ..store.pointsdb import PointsDB
from ..store.trialsummary import TASKS
from .analysissql import EvalKey, Rows, run_statements
from .board import Leaderboard, TaskResult
from .budget import BudgetRank, Sweep, budget_ranks, budget_sweep, estimator
from .compression import TaskCompression, compression
from .grid import r6
from .hazard import TaskHazard, hazard


@dataclass(frozen=True, slots=True)
class Recorded:
    """What one (evaluation, task)'s trials record: how many there are, how many give their
    output tokens and their output text's compressed size, and the run's token limit; `cap`:
    a recorded limit of `ANSWER_CAP` tokens or fewer, which caps an answer, not a generation
    (`limit` is then None, and a page says why there is no sweep rather than "no limit")."""

    trials: int
    with_tokens: int
    with_text: int
    limit: int | None
    cap: int | None = None


@dataclass(frozen=True, slots=True)
class EvaluationAnalyses:
    """One evaluation's analyses, per task on the board that has trials. `sweep_note` says
    why there is no sweep (None when there is one)."""

    recorded: Mapping[str, Recorded]
    compression: Mapping[str, TaskCompression]
    hazard: Mapping[str, TaskHazard]
    sweep: Sweep | None
    sweep_note: str | None


@dataclass(frozen=True)
class Analyses:
    """By evaluation id: each evaluation with trials; `ranks`: the ranked evaluations with a
    sweep, their rank at each budget."""

    evaluations: Mapping[str, EvaluationAnalyses]
    ranks: Mapping[str, BudgetRank]


NONE = Analyses({}, {})


def has_trials(db: PointsDB) -> bool:
    """Whether the PointsDB has a trials table (a store made before trials were kept has none)."""
    has = db.con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'trials' "
                         "AND NOT temporary").fetchone()
    return bool(has and has[0])


def trial_views(db: PointsDB) -> None:
    """Create the relations the analyses' statements read: `analysis_tasks`, each
    (evaluation, task) of a trials file numbered with its token limit, and the store's sums
    of their trials (store/trialsummary.py) under the statements' names."""
    db.con.execute(f"CREATE OR REPLACE TEMP TABLE analysis_tasks AS {TASKS}")
    for view, table in (("analysis_counts", "trial_counts"), ("analysis_outcomes", "trial_outcomes"),
                        ("analysis_budgets", "trial_budgets")):
        db.con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS SELECT task AS et, * EXCLUDE (task) FROM {table}")


def statement_rows(db: PointsDB, mode: str) -> dict[str, Rows]:
    """The rows of the analyses' statements (analysissql.py), from the store's sums of the
    PointsDB's trials."""
    trial_views(db)
    return run_statements(db, estimator(mode))


def compute_analyses(db: PointsDB, board: Leaderboard) -> Analyses:
    """Every evaluation's analyses on the board's tasks, and the ranking at each budget."""
    if not has_trials(db):
        return NONE
    settings = board.settings
    tasks = list(settings.tasks)
    found = statement_rows(db, settings.mode)
    names, rows = found["recorded"]
    recorded: dict[EvalKey, dict[str, Recorded]] = {}
    for values in rows:
        r = dict(zip(names, values))
        if r["base_task"] in tasks:
            recorded.setdefault((r["model"], r["template"], r["sampler"]), {})[r["base_task"]] = Recorded(
                int(r["trials"]), int(r["with_tokens"]), int(r["with_text"]),
                None if r["token_limit"] is None else int(r["token_limit"]),
                None if r["answer_cap"] is None else int(r["answer_cap"]))
    # A row lists every task its evaluation has points on (the matrix shows them all); the
    # sweep and its note speak of the board's tasks only, as the page's score does.
    on_board = {row.evaluation.key: tuple(t for t in row.tasks if t in settings.tasks) for row in board.models}
    with_trials = {key: tasks_of for key, tasks_of in on_board.items() if key in recorded}
    sweeps = budget_sweep(db, tasks, with_trials, settings.mode, settings.bootstrap, settings.seed, found)
    # The last level re-counts the board's own trials: where it does not give the board's own
    # task results (points not derived from these trials), the sweep would contradict the page.
    by_key = {row.evaluation.key: row for row in board.models}
    unlike = {key for key, sweep in sweeps.items() if not _reproduces(sweep, by_key[key].tasks)}
    sweeps = {key: sweep for key, sweep in sweeps.items() if key not in unlike}
    squeezed = compression(db, found)
    hazards = hazard(db, found)
    out = {}
    for row in board.models:
        key = row.evaluation.key
        if key not in recorded:
            continue
        mine = recorded[key]
        out[row.evaluation.id] = EvaluationAnalyses(
            recorded=mine,
            compression={t: squeezed[(key, t)] for t in tasks if (key, t) in squeezed},
            hazard={t: hazards[(key, t)] for t in tasks if (key, t) in hazards},
            sweep=sweeps.get(key),
            sweep_note=None if key in sweeps else UNLIKE if key in unlike else sweep_note(on_board[key], mine))
    ranked = [row.evaluation.key for row in board.models if row.rank is not None]
    ids = {row.evaluation.key: row.evaluation.id for row in board.models}
    ranks = budget_ranks(sweeps, ranked)
    return Analyses(out, {ids[key]: rank for key, rank in ranks.items()})


UNLIKE = "its trials, re-counted at the full budget, do not give this page's own task results"


def _reproduces(sweep: Sweep, results: Mapping[str, TaskResult]) -> bool:
    """Whether the sweep's last level (the full budget) gives the board's own task
    estimates and bounds, as published (6 decimals)."""
    full = sweep.levels[-1].tasks
    return all(t in results and (r6(full[t][0]), r6(full[t][1]), r6(full[t][2])) ==
               (results[t].estimate, results[t].low, results[t].high) for t in full)


def sweep_note(tasks: Collection[str], recorded: Mapping[str, Recorded]) -> str:
    """Why an evaluation has no budget sweep, as a sentence."""
    missing = [t for t in tasks if t not in recorded]
    if missing:
        return f"task {missing[0]} has no per-sample trials, so its score at a smaller budget cannot be recomputed"
    no_limit = [t for t, r in recorded.items() if r.limit is None]
    capped = [recorded[t].cap for t in no_limit if recorded[t].cap is not None]
    if capped:
        tokens = "1 output token" if capped[0] == 1 else f"{capped[0]} output tokens"
        return (f"the run's limit of {tokens} caps the answer itself, not a line of reasoning, "
                "so there is no smaller budget to re-count")
    if no_limit:
        return "the run recorded no output-token limit"
    untold = [t for t, r in recorded.items() if r.with_tokens < r.trials]
    if untold:
        r = recorded[untold[0]]
        if r.with_tokens == 0:
            return f"the trials of task {untold[0]} do not record their output tokens"
        return (f"{r.trials - r.with_tokens} of the {r.trials} trials of task {untold[0]} "
                "do not record their output tokens")
    return "no trial could be re-counted"
