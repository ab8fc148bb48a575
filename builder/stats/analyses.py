"""The per-sample analyses of a board (SAMPLES.md section 6), gathered per evaluation.

The PointsDB's trials (SAMPLES.md section 1) are read through two relations: the trials
themselves, and each (evaluation, task)'s token limit, from the evaluation's recorded
generation arguments under any of the harnesses' spellings (`TOKEN_LIMIT_KEYS`; a limit
of `ANSWER_CAP` tokens or fewer caps an answer letter, not a generation, and is no limit
here). Compression, hazard and the budget sweep then run in DuckDB (compression.py,
hazard.py, budget.py); what could not be computed carries the reason the pages print.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from ..sources.trials import ANSWER_CAP
from ..store.pointsdb import PointsDB
from ..store.setup import TOKEN_LIMIT_KEYS
from .analysismemo import AnalysesMemo
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


#: The run's token limit under each harness's spelling, in the order `with_token_limit`
#: (store/setup.py) takes them: an lm-eval run records `max_gen_toks`, not `max_tokens`.
_LIMIT_COLUMNS = ", ".join(f"TRY_CAST(json_extract_string(generation_args, '$.{key}') AS BIGINT)"
                           for key in TOKEN_LIMIT_KEYS)


def trial_views(db: PointsDB, skip: Sequence[str] = ()) -> None:
    """Create the analyses' two relations over the PointsDB's trials, without the trials
    files `skip` names: `analysis_tasks`, each (evaluation, task) numbered with its token
    limit, and `analysis_trials`, a view numbering each trial's (evaluation, task) by a join
    on its point (integers, against a table of a few thousand rows)."""
    db.con.execute(f"""
        CREATE OR REPLACE TEMP TABLE analysis_tasks AS
        SELECT (row_number() OVER (ORDER BY model, template, sampler, base_task))::INTEGER AS et,
               model, template, sampler, base_task, CASE WHEN token_limit > {int(ANSWER_CAP)} THEN token_limit END
                   AS token_limit, CASE WHEN token_limit <= {int(ANSWER_CAP)} THEN token_limit END AS answer_cap
        FROM (SELECT DISTINCT model, template, sampler, base_task FROM trial_points
              WHERE source NOT IN (SELECT unnest(?::VARCHAR[])))
        LEFT JOIN (SELECT model, template, sampler,
                          coalesce({_LIMIT_COLUMNS}) AS token_limit
                   FROM evaluations) USING (model, template, sampler)""", [list(skip)])
    db.con.execute("""
        CREATE OR REPLACE TEMP TABLE analysis_every_point AS
        SELECT p.point, a.et, p.source FROM trial_points p
        JOIN analysis_tasks a USING (model, template, sampler, base_task)
        WHERE p.source NOT IN (SELECT unnest(?::VARCHAR[]))""", [list(skip)])
    db.con.execute("CREATE OR REPLACE TEMP TABLE analysis_points AS SELECT point, et FROM analysis_every_point")
    db.con.execute("""
        CREATE OR REPLACE TEMP VIEW analysis_trials AS
        SELECT a.et, t.point, t.sample, t.epoch, t.correct, t.truncated, t.options, t.tokens, t.compressed
        FROM trials t JOIN analysis_points a USING (point)""")


#: Trials the statements read at once. Their quantiles hold every value of a group in memory,
#: which DuckDB does not spill, so past this the statements run over batches of whole trials
#: files: the memory they take is the batch's, whatever the number of evaluations.
BATCH_TRIALS = 4_000_000


def point_batches(db: PointsDB) -> list[tuple[int, int]]:
    """Ranges of point numbers of `analysis_every_point` (`trial_views`), each a run of whole
    trials files with at most `BATCH_TRIALS` trials between them (a larger file alone). A file's points
    are numbered together (trialcodes.py), so its numbers are a range of their own; and an
    (evaluation, task) has its trials in one file (the store refuses two), so a batch holds
    each of the statements' groups whole."""
    most = BATCH_TRIALS
    row = db.con.execute("SELECT count(*) FROM trials").fetchone()
    if row is None or row[0] <= most:
        return [(-2**31, 2**31 - 1)]
    files = db.con.execute("""
        SELECT min(a.point), max(a.point), sum(c.n) FROM analysis_every_point a
        JOIN (SELECT point, count(*) AS n FROM trials GROUP BY point) c USING (point)
        GROUP BY a.source ORDER BY 1""").fetchall()
    batches: list[tuple[int, int]] = []
    held = most + 1
    for low, high, trials in files:
        if held + trials > most:
            batches.append((low, high))
            held = 0
        batches[-1] = (batches[-1][0], high)
        held += trials
    return batches or [(-2**31, 2**31 - 1)]


def batched_rows(db: PointsDB, mode: str) -> dict[str, Rows]:
    """The statements' rows over every trial of `analysis_every_point`, a batch of trials files
    at a time (`point_batches`). Each batch's rows come in the statements' order and hold their
    (evaluation, task) groups whole, so a stable sort on the (evaluation, task) gives the rows
    one run over all the trials gives."""
    found: dict[str, Rows] = {}
    batches = point_batches(db)
    for low, high in batches:
        db.con.execute("CREATE OR REPLACE TEMP TABLE analysis_points AS SELECT point, et FROM analysis_every_point "
                       "WHERE point BETWEEN ? AND ?", [low, high])
        for name, (names, rows) in run_statements(db, estimator(mode)).items():
            found.setdefault(name, (names, []))[1].extend(rows)
    if len(batches) == 1:
        return found
    return {name: (names, sorted(rows, key=lambda row: row[:4])) for name, (names, rows) in found.items()}


def statement_rows(db: PointsDB, mode: str, memo: AnalysesMemo | None = None) -> dict[str, Rows]:
    """The rows of the analyses' statements (analysissql.py) over the PointsDB's trials; with
    a `memo`, the evaluations it holds are not computed again (analysismemo.py)."""
    if memo is None:
        trial_views(db)
        return batched_rows(db, mode)
    found, skip = memo.split(db, mode)
    trial_views(db, skip)
    return memo.merge(batched_rows(db, mode), found)


def compute_analyses(db: PointsDB, board: Leaderboard, memo: AnalysesMemo | None = None) -> Analyses:
    """Every evaluation's analyses on the board's tasks, and the ranking at each budget
    (with a `memo`, of the evaluations whose trials an earlier build analysed, from it)."""
    if not has_trials(db):
        return NONE
    settings = board.settings
    tasks = list(settings.tasks)
    found = statement_rows(db, settings.mode, memo)
    names, rows = found["recorded"]
    recorded: dict[EvalKey, dict[str, Recorded]] = {}
    for values in rows:
        r = dict(zip(names, values))
        if r["base_task"] in tasks:
            recorded.setdefault((r["model"], r["template"], r["sampler"]), {})[r["base_task"]] = Recorded(
                int(r["trials"]), int(r["with_tokens"]), int(r["with_text"]),
                None if r["token_limit"] is None else int(r["token_limit"]),
                None if r["answer_cap"] is None else int(r["answer_cap"]))
    on_board = {row.evaluation.key: tuple(row.tasks) for row in board.models}
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
            sweep_note=None if key in sweeps else UNLIKE if key in unlike else sweep_note(row.tasks, mine))
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


def sweep_note(tasks: Mapping[str, object], recorded: Mapping[str, Recorded]) -> str:
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
