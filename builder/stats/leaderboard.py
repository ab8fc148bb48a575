"""The leaderboard: every statistic of an evaluation, assembled from PointsDB aggregates.

Three aggregate queries feed everything: per (evaluation, task) with all six estimators,
per (evaluation, tier, task) with the v1 task score, and per (evaluation, task, difficulty
level) for the difficulty curves (curves.py), of the evaluations the task pages list. The
rest is numpy on (models × tasks) arrays. The result is typed (`board.py`), rounded as
`leaderboard.json` and `pairwise.json` publish it (PRODUCT.md "Outputs"); `outputs` writes
those documents from it.

The work is split where the store is left behind: `read_board` queries the PointsDB,
`rank_board` is numpy and Python only, and `with_curves` queries again for the evaluations
the task pages list. A build runs `rank_board` in a forked process while this one computes
the signals from the store (build.py); `compute_leaderboard` runs the three in a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Mapping

import numpy as np

from ..config import BoardSpec, SiteConfig
from ..errors import InputError
from ..store.pointsdb import COUNTERS, Aggregate, PointsDB
from ..vocabulary import MODES
from .analyses import NONE, Analyses, compute_analyses
from .bands import Bands
from .board import (
    Curves,
    EvaluationRow,
    Leaderboard,
    NeighbourRate,
    Pairwise,
    RankedBoard,
    Score,
    Settings,
    Strength,
    TaskResult,
    TieGroup,
    TierResult,
)
from .boardsuggest import board_advice
from .curves import difficulty_curves
from .evaluations import Evaluation, identify
from .grid import EVAL_KEYS, Tables, grid, r3, r6, rounded
from .pairwise import neighbour_win_rates, pairwise
from .reasonscore import reasonscore_v2
from .significance import rank_order, significance
from .taskranks import TaskRanking, task_rankings
from .tiers import score_per_token_v1, tier_reasonscore, tokens_per_trial
from .verdicts import Comparisons


@dataclass(frozen=True)
class LeaderboardResult:
    """What the leaderboard statistics hand the later stages (all typed, all rounded as
    published): the leaderboard (the first board's), the pairwise result, the difficulty
    curves, each task's own ranking (every task in the data), the evaluations by id, every
    board, and the paired comparisons of the first board's pairs."""

    leaderboard: Leaderboard
    pairwise: Pairwise
    curves: Curves
    task_rankings: Mapping[str, TaskRanking]
    evaluations: Mapping[str, Evaluation]
    boards: tuple[RankedBoard, ...] = ()

    @property
    def advice(self) -> list[str]:
        """What the build says of boards ranking fewer than two evaluations (boardsuggest)."""
        return board_advice(self.boards, self.leaderboard.models)
    #: The per-sample analyses of the evaluations with trials (`with_analyses`).
    analyses: Analyses = NONE
    #: The paired comparisons on shared items (empty without trials: stats/comparisons.py).
    comparisons: Comparisons = field(default_factory=Comparisons)


@dataclass(frozen=True)
class BoardInputs:
    """What the leaderboard statistics read from the PointsDB; everything made from it
    (`rank_board`) is numpy and Python only."""

    #: Every task in the data: the columns of the arrays.
    tasks: tuple[str, ...]
    #: The boards, each with its tasks made explicit (the first is the leaderboard).
    boards: tuple[BoardSpec, ...]
    #: In the store's order (`identify`): the rows of the arrays.
    evaluations: tuple[Evaluation, ...]
    #: Per (evaluation, task): the counts, tokens and every estimator's estimate and bounds.
    grid: Tables
    #: The tiers of tiered points, and their v1 task scores per (evaluation, tier) and task.
    tier_names: tuple[str, ...]
    tiers: Tables
    #: Per task with trials: the items any evaluation answered (SAMPLES.md section 3).
    task_items: Mapping[str, int] = field(default_factory=dict)

    def task_estimates(self, mode: str) -> Iterator[tuple[Evaluation, dict[str, float | None]]]:
        """Each evaluation with its estimate (`mode`, rounded as published) on each task it
        has points on, in the store's order: the leaderboard's own results, known before
        any rank is (the signals need them, build.py)."""
        est = rounded(self.grid.columns[f"{mode}_est"], 6)
        present: list[list[bool]] = self.grid.present.tolist()
        for i, e in enumerate(self.evaluations):
            yield e, {task: est[i][j] for j, task in enumerate(self.tasks) if present[i][j]}


def compute_leaderboard(db: PointsDB, config: SiteConfig, bands: Bands) -> LeaderboardResult:
    """Every statistic of the leaderboard: `read_board`, `rank_board`, `with_curves`."""
    return with_curves(db, rank_board(read_board(db, config), config, bands), config)


def read_board(db: PointsDB, config: SiteConfig) -> BoardInputs:
    """The tasks, the boards, the evaluations and the two aggregates the statistics are made
    from. Every task in the data is read, whatever the boards rank: a board decides a
    ranking, never which results are shown (PRODUCT.md "Boards")."""
    tasks = db.tasks()
    boards = resolve_boards(config, tasks)
    evaluations = tuple(identify(db.evaluations(), config))
    index: dict[tuple[str, ...], int] = {e.key: i for i, e in enumerate(evaluations)}
    agg = db.aggregate(filters=None, group_by=(*EVAL_KEYS, "base_task"), mode=MODES)
    value_names = [*COUNTERS, *(f"{mode}_{p}" for mode in MODES for p in ("est", "low", "high"))]
    tier_agg = db.aggregate(filters=None, group_by=(*EVAL_KEYS, "tier", "base_task"), mode="V1")
    task_items = db.task_items([e.key for e in evaluations])
    # Scattered here, so what a process forked for `rank_board` is given is a few arrays.
    tier_names, tiers = _tier_grid(tier_agg, tasks, index, len(evaluations))
    # Every board reads the same columns: the grid holds every task in the data.
    return BoardInputs(tuple(tasks), boards, evaluations, grid(agg, index, EVAL_KEYS, tasks, value_names, len(evaluations)),
                       tier_names, tiers, {t: task_items[t] for t in tasks if t in task_items})


def resolve_boards(config: SiteConfig, found: list[str]) -> tuple[BoardSpec, ...]:
    """The configured boards with their tasks checked against the data and sorted (a board
    with no tasks given holds every task found)."""
    known = set(found)
    key = "tasks" if not config.boards else "boards"
    boards = []
    for spec in config.board_specs:
        unknown = [t for t in spec.tasks if t not in known]
        if unknown:
            where = f"key '{key}'" + (f" (board '{spec.name}')" if config.boards else "")
            raise InputError(config.path, f"{where} names '{unknown[0]}', which no point has "
                                          f"(tasks in the data: {', '.join(found) or 'none'})")
        boards.append(replace(spec, tasks=tuple(sorted(spec.tasks)) if spec.tasks else tuple(found)))
    return tuple(boards)


def with_curves(db: PointsDB, result: LeaderboardResult, config: SiteConfig) -> LeaderboardResult:
    """`result` with the difficulty curves of the evaluations each task page lists."""
    tasks = list(result.task_rankings)
    evaluations = list(result.evaluations.values())
    listed = {task: [m.evaluation.key for m in result.task_rankings[task].listed(config.page_size)]
              for task in tasks}
    index: dict[tuple[str, ...], int] = {e.key: i for i, e in enumerate(evaluations)}
    return replace(result, curves=difficulty_curves(db, tasks, index, [e.id for e in evaluations], listed))


def with_analyses(db: PointsDB, result: LeaderboardResult) -> LeaderboardResult:
    """`result` with the per-sample analyses of its evaluations (analyses.py)."""
    return replace(result, analyses=compute_analyses(db, result.leaderboard))


def rank_board(inputs: BoardInputs, config: SiteConfig, bands: Bands) -> LeaderboardResult:
    """The leaderboard, the pairwise result and the task rankings (no curves yet: they need
    the store again, `with_curves`)."""
    tasks = list(inputs.tasks)
    evaluations = inputs.evaluations
    ids = [e.id for e in evaluations]
    present = inputs.grid.present
    col = inputs.grid.columns
    mode = config.mode

    # Round whole arrays once; per-model rows then only index Python lists.
    r = {name: rounded(values, 6) for name, values in col.items()}
    counts = {name: np.nan_to_num(col[name]).astype(np.int64).tolist()
              for name in ("trials", "trials_truncated", "trials_correct", "samples", "points", "sampled")}
    effective = rounded(col["n"], 3)
    partial = [[None if x != x else int(x) for x in row] for row in col["partial"].tolist()]
    # SAMPLES.md section 4: a task result with fewer than `min_samples` samples is preliminary.
    short_grid = _short(present, col, config)
    short = short_grid.tolist()
    present_l: list[list[bool]] = present.tolist()
    est, low, high = r[f"{mode}_est"], r[f"{mode}_low"], r[f"{mode}_high"]
    mode_cols = [(r[f"{md}_est"], r[f"{md}_low"], r[f"{md}_high"]) for md in MODES]
    # Every task each evaluation has, made once and shared by every board's row of it.
    task_results = [
        {task: TaskResult(
            total=counts["trials"][i][j], truncated=counts["trials_truncated"][i][j],
            correct=counts["trials_correct"][i][j], guess=r["trials_guess"][i][j], tokens=r["tok"][i][j],
            estimate=est[i][j], low=low[i][j], high=high[i][j],
            modes=tuple((e[i][j], lo[i][j], hi[i][j]) for e, lo, hi in mode_cols),
            samples=counts["samples"][i][j], effective_trials=effective[i][j], preliminary=short[i][j],
            items=counts["samples"][i][j] if counts["sampled"][i][j] == counts["points"][i][j] else None,
            partial=partial[i][j])
         for j, task in enumerate(tasks) if present_l[i][j]}
        for i in range(len(evaluations))]
    tiers = _tiers(inputs.tier_names, inputs.tiers)
    tier_rows = []
    for i in range(len(evaluations)):
        tier_values = tiers.get(i, {})
        tier_names = sorted(tier_values)
        tier_rows.append((
            {t: TierResult(r3(tier_values[t][0]), r3(tier_values[t][1])) for t in tier_names},
            r6(score_per_token_v1([tier_values[t][0] for t in tier_names], [tier_values[t][1] for t in tier_names]))))

    boards = []
    first_order: np.ndarray | None = None
    for spec in inputs.boards:
        columns = [tasks.index(t) for t in spec.tasks]
        leaderboard, order = _rank_on(inputs, columns, short_grid[:, columns], config, bands, task_results,
                                      tier_rows)
        boards.append(RankedBoard(spec.name, spec.description, leaderboard))
        if first_order is None:
            first_order = order
    assert first_order is not None, "a config always has at least one board"
    columns = [tasks.index(t) for t in inputs.boards[0].tasks]
    pw = _pairwise(first_order, config.pairwise_top, ids, {k: v[:, columns] for k, v in col.items()},
                   present[:, columns], mode)
    leaderboard = boards[0].leaderboard
    # Each task's ranking lists every evaluation with that task, on a board or not.
    rankings = task_rankings(leaderboard.models, tasks, inputs.task_items)
    return LeaderboardResult(leaderboard, pw, {}, rankings, {e.id: e for e in evaluations}, tuple(boards))


def _rank_on(inputs: BoardInputs, columns: list[int], short: np.ndarray, config: SiteConfig, bands: Bands,
             task_results: list[dict[str, TaskResult]],
             tier_rows: list[tuple[dict[str, TierResult], float | None]]) -> tuple[Leaderboard, np.ndarray]:
    """One board's leaderboard over the task `columns` of the grid, and the rank order (row
    indices of the ranked evaluations). An evaluation is ranked when it has every task of the
    board; the others get no rank and no band (STATISTICS.md §4), and are listed after the
    ranked ones by name, never by their score: a score over other tasks is not comparable.
    `short`: per evaluation and board task, a result with too few samples (`_short`)."""
    tasks = [inputs.tasks[j] for j in columns]
    evaluations = inputs.evaluations
    present = inputs.grid.present[:, columns]
    col = {k: v[:, columns] for k, v in inputs.grid.columns.items()}
    mode = config.mode
    scores = reasonscore_v2(col[f"{mode}_low"], col[f"{mode}_high"], present,
                            draws=config.bootstrap, seed=config.seed)
    complete = np.asarray(present.all(axis=1) & (len(tasks) > 0), dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        truncation = np.nansum(col["trials_truncated"], axis=1) / np.nansum(col["trials"], axis=1)
    # Tokens per real trial: tokens are never divided by the design effect (SAMPLES.md §2).
    avg_tokens = tokens_per_trial(np.nan_to_num(col["tok"]), np.nan_to_num(col["trials"], nan=1.0), present)
    # Not recorded is not zero: a harness that records no tokens (or 0 for every answer, when
    # an answer has at least one) or no truncation publishes none, not 0.
    avg_tokens = np.where(np.array([e.tokens_observed for e in evaluations], dtype=bool) & (avg_tokens > 0),
                          avg_tokens, np.nan)
    truncation = np.where(np.array([e.truncation_observed for e in evaluations], dtype=bool), truncation, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        score_per_token = np.where(avg_tokens > 0, scores.center / avg_tokens, np.nan)

    # SAMPLES.md section 4: an evaluation with a preliminary task result on the board is
    # preliminary: shown, never ranked.
    preliminary = complete & short.any(axis=1)
    # Ranks, rank ranges and ties among complete models only (§4: incomplete get no rank).
    ranked = np.flatnonzero(complete & ~preliminary)
    # Ties in center are broken by model name (§7), then template and sampler.
    names = ["\x00".join(e.key) for e in evaluations]
    order = ranked[rank_order(scores.center[ranked], [names[i] for i in ranked])]
    sig = significance(scores.ci_low[order], scores.ci_high[order])
    rank = {int(i): r + 1 for r, i in enumerate(order)}
    # Preliminary rows (complete, comparable) by score, then the incomplete ones by name,
    # never by a score over other tasks; both below the ranked rows, never interleaved (§4).
    prelim = np.flatnonzero(preliminary)
    prelim = prelim[rank_order(np.nan_to_num(scores.center[prelim], nan=-1.0), [names[i] for i in prelim])]
    incomplete = sorted(np.flatnonzero(~complete).tolist(), key=lambda i: names[i])
    row_order = [*order.tolist(), *prelim.tolist(), *incomplete]
    position = {i: p for p, i in enumerate(order.tolist())}
    rs_bands = bands.keys("reasonscore", np.nan_to_num(scores.center, nan=0.0))

    center, margin, ci_low, ci_high = (rounded(getattr(scores, name), 3)
                                       for name in ("center", "margin", "ci_low", "ci_high"))
    avg_tokens_r, spt_r, trunc_r = rounded(avg_tokens, 3), rounded(score_per_token, 6), rounded(truncation, 6)
    present_l: list[list[bool]] = present.tolist()
    models = []
    for i in row_order:
        p = position.get(i)
        tier_results, spt_v1 = tier_rows[i]
        models.append(EvaluationRow(
            evaluation=evaluations[i], complete=bool(complete[i]),
            missing_tasks=tuple(t for j, t in enumerate(tasks) if not present_l[i][j]),
            rank=rank.get(i),
            rank_range=(int(sig.rank_best[p]), int(sig.rank_worst[p])) if p is not None else None,
            score=Score(center[i], margin[i], ci_low[i], ci_high[i]),
            band=rs_bands[i] if p is not None and np.isfinite(scores.center[i]) else None,
            avg_tokens=avg_tokens_r[i], score_per_token=spt_r[i], truncation_rate=trunc_r[i],
            tied_count=int(sig.tied_count[p]) if p is not None else 0,
            distinct_from_next=sig.distinct_from_next[p] if p is not None else None,
            tasks=task_results[i], tiers=tier_results, score_per_token_v1=spt_v1,
            status="incomplete" if not complete[i] else "preliminary" if preliminary[i] else "ranked",
            preliminary_tasks=tuple(t for j, t in enumerate(tasks) if short[i, j]),
        ))
    leaderboard = Leaderboard(
        settings=Settings(mode=mode, bootstrap=config.bootstrap, seed=config.seed, tasks=tuple(tasks),
                          min_samples=config.min_samples),
        models=tuple(models),
        tie_groups=tuple(tie_group(group, [ci_low[order[k]] for k in group]) for group in sig.tie_groups),
    )
    return leaderboard, order


def _short(present: np.ndarray, col: Mapping[str, np.ndarray], config: SiteConfig) -> np.ndarray:
    """Per (evaluation, task): a result with fewer than `min_samples` samples (SAMPLES.md §4)."""
    return np.asarray(present & (np.nan_to_num(col["samples"], nan=0.0) < config.min_samples), dtype=bool)


def tie_group(positions: list[int], lows: list[float | None]) -> TieGroup:
    """A tie group (a maximal set of ranked models whose intervals all overlap) as a record of
    constant size: its rank span, its size, and `at`, the published score every member's
    interval contains (the largest lower bound among them). Its members are exactly the ranked
    models with `ci_low <= at <= ci_high`: a clique of intervals is the set of intervals
    holding one point, and this group's point is its last-opening member's lower bound."""
    known = [x for x in lows if x is not None]
    return TieGroup((positions[0] + 1, positions[-1] + 1), len(positions), max(known) if known else None)


def _tier_grid(agg: Aggregate, tasks: list[str], index: Mapping[tuple[str, ...], int],
               m: int) -> tuple[tuple[str, ...], Tables]:
    """The tier names and one grid with a row per (evaluation, tier), evaluation-major: the
    same scatter as the task grid, with no loop over tiers."""
    names = tuple(sorted({t for t in agg["tier"].tolist() if t is not None}))
    k = len(names)
    rows: dict[tuple[str, ...], int] = {(*key, tier): i * k + j for key, i in index.items()
                                        for j, tier in enumerate(names)}
    return names, grid(agg, rows, (*EVAL_KEYS, "tier"), tasks, ["est", "trials", "tok"], m * k)


def _tiers(names: tuple[str, ...], tier_grid: Tables) -> dict[int, dict[str, tuple[float, float]]]:
    """(v1 tier ReasonScore, average tokens) of each tier per evaluation (only for tiered
    points), unrounded, by the vectorised geometric mean of each row of `_tier_grid`."""
    k = len(names)
    rs = tier_reasonscore(tier_grid.columns["est"], tier_grid.present)
    toks = tokens_per_trial(np.nan_to_num(tier_grid.columns["tok"]), np.nan_to_num(tier_grid.columns["trials"], nan=1.0),
                            tier_grid.present)
    out: dict[int, dict[str, tuple[float, float]]] = {}
    for row in np.flatnonzero(tier_grid.present.any(axis=1)).tolist():
        i, j = divmod(row, k)
        out.setdefault(i, {})[names[j]] = (float(rs[row]), float(toks[row]))
    return out


def _pairwise(order: np.ndarray, top_n: int, ids: list[str], col: dict[str, np.ndarray],
              present: np.ndarray, mode: str) -> Pairwise:
    """The win-rate matrix and Bradley–Terry ranking of the top models, and every ranked
    model's win rates against its two neighbours on either side (§8)."""
    est, low, high = (col[f"{mode}_{p}"][order] for p in ("est", "low", "high"))
    ranked_present = present[order]
    ranked_ids = [ids[i] for i in order.tolist()]
    near: dict[str, list[NeighbourRate]] = {i: [] for i in ranked_ids}
    if len(order) >= 2:
        pairs, rates, shared = neighbour_win_rates(est, low, high, ranked_present)
        for (a, b), rate, n in sorted(zip(pairs.tolist(), rates.tolist(), shared.tolist())):
            near[ranked_ids[a]].append(NeighbourRate(ranked_ids[b], r6(rate), int(n)))
    neighbours = {i: tuple(rates) for i, rates in near.items()}
    top = slice(0, min(top_n, len(order)))
    top_ids = tuple(ranked_ids[top])
    if len(top_ids) < 2:
        return Pairwise(top_ids, (), (), {}, (), neighbours)
    pw = pairwise(est[top], low[top], high[top], ranked_present[top])
    bt_order = np.lexsort((np.array(top_ids, dtype=object), -pw.strength))
    return Pairwise(
        models=top_ids,
        win_rate=tuple(tuple(r6(x) for x in row) for row in pw.win_rate.tolist()),
        tasks_shared=tuple(tuple(row) for row in pw.tasks_shared.tolist()),
        expected_wins={top_ids[k]: r6(pw.expected_wins[k]) for k in range(len(top_ids))},
        bradley_terry=tuple(Strength(top_ids[k], r6(pw.strength[k]), r + 1) for r, k in enumerate(bt_order.tolist())),
        neighbours=neighbours,
    )
