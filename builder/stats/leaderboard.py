"""The leaderboard: every statistic of an evaluation, assembled from PointsDB aggregates.

Three aggregate queries feed everything: per (evaluation, task) with all six estimators,
per (evaluation, tier, task) with the v1 task score, and per (evaluation, task, difficulty
level) for the difficulty curves, of the evaluations the task pages list. The rest is numpy
on (models × tasks) arrays. The
result is typed (`board.py`), rounded as `leaderboard.json` and `pairwise.json` publish it
(PRODUCT.md "Outputs"); `outputs` writes those documents from it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ..config import SiteConfig
from ..errors import InputError
from ..store.pointsdb import Aggregate, KeySet, PointsDB
from ..vocabulary import MODES
from .bands import Bands
from .board import (
    CurvePoint,
    Curves,
    EvaluationRow,
    Leaderboard,
    NeighbourRate,
    Pairwise,
    Score,
    Settings,
    Strength,
    TaskResult,
    TieGroup,
    TierResult,
)
from .evaluations import Evaluation, identify
from .pairwise import neighbour_win_rates, pairwise
from .reasonscore import reasonscore_v2
from .significance import rank_order, significance
from .taskranks import TaskRanking, task_rankings
from .tiers import score_per_token_v1, tier_reasonscore, tokens_per_trial

EVAL_KEYS = ("model", "template", "sampler")


def _rounded(values: np.ndarray, digits: int) -> list[Any]:
    """An array rounded to `digits` as nested Python lists, NaN as None (JSON null)."""
    values = np.asarray(values, dtype=float)
    # + 0.0 turns -0.0 (a bound like W(0, t).low = -3e-17 rounded) into 0.0.
    out = (np.round(values, digits) + 0.0).astype(object)
    out[~np.isfinite(values)] = None
    rounded: list[Any] = out.tolist()
    return rounded


def r3(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 3) + 0.0


def r6(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 6) + 0.0


@dataclass(frozen=True)
class Tables:
    """An aggregate reshaped to (evaluations × tasks) arrays."""

    present: np.ndarray
    columns: dict[str, np.ndarray]


def _grid(agg: Aggregate, row_index: Mapping[tuple[str, ...], int], key_cols: tuple[str, ...], tasks: list[str],
          names: list[str], shape_rows: int) -> Tables:
    """Scatter aggregate rows into (rows, tasks) arrays by their evaluation and task keys."""
    task_index = {t: j for j, t in enumerate(tasks)}
    size = len(agg)
    # The rows come sorted by their keys: look up each run of equal keys once (a run break
    # wherever any key changes, so unsorted rows would only make shorter runs).
    starts = _run_starts([agg[c] for c in key_cols]) if size else np.zeros(0, dtype=np.int64)
    keys = zip(*(agg[c][starts].tolist() for c in key_cols))
    run_rows = np.fromiter((row_index.get(k, -1) for k in keys), dtype=int, count=len(starts))
    rows = np.repeat(run_rows, np.diff(np.append(starts, size)))
    cols = np.fromiter(map(task_index.get, agg["base_task"].tolist(), itertools.repeat(-1)), dtype=int, count=size)
    keep = (rows >= 0) & (cols >= 0)
    present = np.zeros((shape_rows, len(tasks)), dtype=bool)
    present[rows[keep], cols[keep]] = True
    out = {}
    for name in names:
        grid = np.full((shape_rows, len(tasks)), np.nan)
        grid[rows[keep], cols[keep]] = agg[name][keep]
        out[name] = grid
    return Tables(present, out)


@dataclass(frozen=True)
class LeaderboardResult:
    """What the leaderboard statistics hand the later stages (all typed, all rounded as
    published): the leaderboard, the pairwise result, the difficulty curves, each task's
    own ranking, and the evaluations by id."""

    leaderboard: Leaderboard
    pairwise: Pairwise
    curves: Curves
    task_rankings: Mapping[str, TaskRanking]
    evaluations: Mapping[str, Evaluation]


def compute_leaderboard(db: PointsDB, config: SiteConfig, bands: Bands) -> LeaderboardResult:
    found = db.tasks()
    tasks = sorted(config.tasks) if config.tasks else found
    unknown = [t for t in tasks if t not in set(found)]
    if unknown:
        raise InputError(config.path, f"key 'tasks' names '{unknown[0]}', which no point has "
                                      f"(tasks in the data: {', '.join(found) or 'none'})")
    evaluations = identify(db.evaluations(), config)
    ids = [e.id for e in evaluations]
    index: dict[tuple[str, ...], int] = {e.key: i for i, e in enumerate(evaluations)}
    m = len(evaluations)

    agg = db.aggregate(filters={"base_task": tasks} if tasks else None,
                       group_by=(*EVAL_KEYS, "base_task"), mode=MODES)
    value_names = ["n", "n_t", "n_e", "g", "tok"] + [f"{mode}_{p}" for mode in MODES for p in ("est", "low", "high")]
    grid = _grid(agg, index, EVAL_KEYS, tasks, value_names, m)
    present = grid.present
    col = grid.columns
    mode = config.mode

    scores = reasonscore_v2(col[f"{mode}_low"], col[f"{mode}_high"], present,
                            draws=config.bootstrap, seed=config.seed)
    complete = np.asarray(present.all(axis=1) & (len(tasks) > 0), dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        truncation = np.nansum(col["n_t"], axis=1) / np.nansum(col["n"], axis=1)
    avg_tokens = tokens_per_trial(np.nan_to_num(col["tok"]), np.nan_to_num(col["n"], nan=1.0), present)
    with np.errstate(invalid="ignore", divide="ignore"):
        score_per_token = np.where(avg_tokens > 0, scores.center / avg_tokens, np.nan)

    # Ranks, rank ranges and ties among complete models only (§4: incomplete get no rank).
    ranked = np.flatnonzero(complete)
    # Ties in center are broken by model name (§7), then template and sampler.
    names = ["\x00".join(e.key) for e in evaluations]
    order = ranked[rank_order(scores.center[ranked], [names[i] for i in ranked])]
    sig = significance(scores.ci_low[order], scores.ci_high[order])
    rank = {int(i): r + 1 for r, i in enumerate(order)}
    incomplete = np.flatnonzero(~complete)
    incomplete = incomplete[rank_order(np.nan_to_num(scores.center[incomplete], nan=-1.0), [names[i] for i in incomplete])]
    row_order = [*order.tolist(), *incomplete.tolist()]
    position = {i: p for p, i in enumerate(order.tolist())}

    tiers = _tiers(db, tasks, index, m)
    rs_bands = bands.keys("reasonscore", np.nan_to_num(scores.center, nan=0.0))

    # Round whole arrays once; per-model rows then only index Python lists.
    r = {name: _rounded(grid, 6) for name, grid in col.items()}
    counts = {name: np.nan_to_num(col[name]).astype(np.int64).tolist() for name in ("n", "n_t", "n_e")}
    center, margin, ci_low, ci_high = (_rounded(getattr(scores, name), 3)
                                       for name in ("center", "margin", "ci_low", "ci_high"))
    avg_tokens_r, spt_r, trunc_r = _rounded(avg_tokens, 3), _rounded(score_per_token, 6), _rounded(truncation, 6)
    present_l: list[list[bool]] = present.tolist()
    est, low, high = r[f"{mode}_est"], r[f"{mode}_low"], r[f"{mode}_high"]
    mode_cols = [(r[f"{md}_est"], r[f"{md}_low"], r[f"{md}_high"]) for md in MODES]
    models = []
    for i in row_order:
        p = position.get(i)
        task_results = {}
        for j, task in enumerate(tasks):
            if not present_l[i][j]:
                continue
            task_results[task] = TaskResult(
                total=counts["n"][i][j], truncated=counts["n_t"][i][j], correct=counts["n_e"][i][j],
                guess=r["g"][i][j], tokens=r["tok"][i][j], estimate=est[i][j], low=low[i][j], high=high[i][j],
                modes=tuple((e[i][j], lo[i][j], hi[i][j]) for e, lo, hi in mode_cols))
        tier_values = tiers.get(i, {})
        tier_names = sorted(tier_values)
        models.append(EvaluationRow(
            evaluation=evaluations[i], complete=bool(complete[i]),
            missing_tasks=tuple(t for j, t in enumerate(tasks) if not present_l[i][j]),
            rank=rank.get(i),
            rank_range=(int(sig.rank_best[p]), int(sig.rank_worst[p])) if p is not None else None,
            score=Score(center[i], margin[i], ci_low[i], ci_high[i]),
            band=rs_bands[i] if np.isfinite(scores.center[i]) else None,
            avg_tokens=avg_tokens_r[i], score_per_token=spt_r[i], truncation_rate=trunc_r[i],
            tied_count=int(sig.tied_count[p]) if p is not None else 0,
            distinct_from_next=sig.distinct_from_next[p] if p is not None else None,
            tasks=task_results,
            tiers={t: TierResult(r3(tier_values[t][0]), r3(tier_values[t][1])) for t in tier_names},
            score_per_token_v1=r6(score_per_token_v1([tier_values[t][0] for t in tier_names],
                                                     [tier_values[t][1] for t in tier_names])),
        ))
    leaderboard = Leaderboard(
        settings=Settings(mode=mode, bootstrap=config.bootstrap, seed=config.seed, tasks=tuple(tasks)),
        models=tuple(models),
        tie_groups=tuple(tie_group(group, [ci_low[order[k]] for k in group]) for group in sig.tie_groups),
    )
    pw = _pairwise(order, config.pairwise_top, ids, col, present, mode)
    rankings = task_rankings(leaderboard.models, tasks)
    listed = {task: [m.evaluation.key for m in rankings[task].listed(config.page_size)] for task in tasks}
    curves = _curves(db, tasks, index, ids, listed)
    return LeaderboardResult(leaderboard, pw, curves, rankings, {e.id: e for e in evaluations})


def tie_group(positions: list[int], lows: list[float | None]) -> TieGroup:
    """A tie group (a maximal set of ranked models whose intervals all overlap) as a record of
    constant size: its rank span, its size, and `at`, the published score every member's
    interval contains (the largest lower bound among them). Its members are exactly the ranked
    models with `ci_low <= at <= ci_high`: a clique of intervals is the set of intervals
    holding one point, and this group's point is its last-opening member's lower bound."""
    known = [x for x in lows if x is not None]
    return TieGroup((positions[0] + 1, positions[-1] + 1), len(positions), max(known) if known else None)


def _tiers(db: PointsDB, tasks: list[str], index: Mapping[tuple[str, ...], int],
           m: int) -> dict[int, dict[str, tuple[float, float]]]:
    """(v1 tier ReasonScore, average tokens) of each tier per evaluation (only for tiered
    points), unrounded.

    One grid with a row per (evaluation, tier): the same scatter and the same vectorised
    geometric mean as the task grid, with no loop over tiers.
    """
    agg = db.aggregate(filters={"base_task": tasks} if tasks else None,
                       group_by=(*EVAL_KEYS, "tier", "base_task"), mode="V1")
    names = sorted({t for t in agg["tier"].tolist() if t is not None})
    k = len(names)
    rows: dict[tuple[str, ...], int] = {(*key, tier): i * k + j for key, i in index.items()
                                        for j, tier in enumerate(names)}
    grid = _grid(agg, rows, (*EVAL_KEYS, "tier"), tasks, ["est", "n", "tok"], m * k)
    rs = tier_reasonscore(grid.columns["est"], grid.present)
    toks = tokens_per_trial(np.nan_to_num(grid.columns["tok"]), np.nan_to_num(grid.columns["n"], nan=1.0), grid.present)
    out: dict[int, dict[str, tuple[float, float]]] = {}
    for row in np.flatnonzero(grid.present.any(axis=1)).tolist():
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


def _curves(db: PointsDB, tasks: list[str], index: Mapping[tuple[str, ...], int], ids: list[str],
            listed: Mapping[str, Sequence[tuple[str, ...]]]) -> Curves:
    """C_P per level of each difficulty coordinate: the task pages' difficulty curves, of the
    evaluations each task page lists (`listed`: task -> evaluation keys) and no other.

    DuckDB aggregates only the points of those (evaluation, task) pairs (a semi-join, see
    `PointsDB.aggregate`): the pages list at most `page_size` models per task, so the work
    stays bounded as the board grows, where every evaluation's curves grew with it.

    The aggregate has a row per (evaluation, task, coordinate, level), sorted by those keys.
    Each row gets integer codes (its evaluation's id rank, its task, its coordinate in
    order of first appearance within the task, its level's `_level_key` rank) and one
    `np.lexsort` puts all of them in published order: per task and coordinate, by id, then
    by level. Only the few distinct keys go through Python; the rows stay arrays until the
    points are made.
    """
    if not tasks:
        return {}
    wanted = KeySet((*EVAL_KEYS, "base_task"), [(*key, task) for task in tasks for key in listed.get(task, ())])
    agg = db.aggregate(among=wanted, group_by=(*EVAL_KEYS, "base_task", "param_level"), mode="C_P")
    curves: dict[str, dict[str, tuple[CurvePoint, ...]]] = {t: {} for t in tasks}
    size = len(agg)
    if size == 0:
        return curves
    # Evaluation and task: the rows come sorted by them, so codes change only at run starts.
    starts = _run_starts([agg[c] for c in (*EVAL_KEYS, "base_task")])
    run_keys = zip(*(agg[c][starts].tolist() for c in (*EVAL_KEYS, "base_task")))
    id_rank = {v: r for r, v in enumerate(sorted(ids))}
    task_at = {t: j for j, t in enumerate(tasks)}
    run_eval, run_task = [], []
    for model, template, sampler, task in run_keys:
        i = index.get((model, template, sampler))
        run_eval.append(-1 if i is None else i)
        run_task.append(task_at.get(task, -1))
    lengths = np.diff(np.append(starts, size))
    evaluation = np.repeat(np.asarray(run_eval, dtype=np.int64), lengths)
    task_code = np.repeat(np.asarray(run_task, dtype=np.int64), lengths)
    # Coordinates and levels: few distinct values, coded through dicts.
    names, values = agg["param_name"].tolist(), agg["param_value"].tolist()
    name_code = _codes(names)
    value_code = _codes(values)
    distinct_values = list(dict.fromkeys(values))
    level_rank = np.empty(len(distinct_values), dtype=np.int64)
    level_rank[sorted(range(len(distinct_values)), key=lambda k: _level_key(distinct_values[k]))] = \
        np.arange(len(distinct_values))
    keep = (evaluation >= 0) & (task_code >= 0)
    # A point without a coordinate (NULL name or level) draws no curve point.
    keep &= (name_code != _code_of(names, None)) & (value_code != _code_of(values, None))
    rows = np.flatnonzero(keep)
    if len(rows) == 0:
        return curves
    # A coordinate's place in its task's dict: the order in which the rows first name it.
    pair = task_code[rows] * (int(name_code.max()) + 1) + name_code[rows]
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    group = np.argsort(np.argsort(first))[inverse.ravel()]
    id_code = np.asarray([id_rank[x] for x in ids], dtype=np.int64)
    perm = np.lexsort((rows, level_rank[value_code[rows]], id_code[evaluation[rows]], group))
    order = rows[perm]
    est, low, high = (_rounded(agg[c][order], 6) for c in ("est", "low", "high"))
    n = agg["n"][order].astype(np.int64).tolist()
    point_ids = [ids[i] for i in evaluation[order].tolist()]
    point_values = [values[k] for k in order.tolist()]
    points = list(map(CurvePoint, point_ids, point_values, est, low, high, n))
    bounds = np.flatnonzero(np.diff(group[perm])) + 1
    for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), len(order)]):
        k = int(order[lo])
        curves[tasks[int(task_code[k])]][names[k]] = tuple(points[lo:hi])
    return curves


def _run_starts(columns: list[np.ndarray]) -> np.ndarray:
    """Positions where any of the (sorted) key columns changes value: the starts of runs.

    NULL keys come as masked entries (DuckDB's `fetchnumpy`): a change of mask is a change,
    and whatever lies under two masks may differ, which only splits a run of NULLs in two
    (each part is still one key)."""
    changed = np.zeros(len(columns[0]), dtype=bool)
    changed[0] = True
    for col in columns:
        data, mask = np.ma.getdata(col), np.ma.getmaskarray(col)
        changed[1:] |= (data[1:] != data[:-1]) | (mask[1:] != mask[:-1])
    return np.flatnonzero(changed)


def _codes(values: list[Any]) -> np.ndarray:
    """Each value's position among the distinct values in order of first appearance."""
    at = {v: k for k, v in enumerate(dict.fromkeys(values))}
    return np.fromiter(map(at.__getitem__, values), dtype=np.int64, count=len(values))


def _code_of(values: list[Any], value: Any) -> int:
    """`value`'s code in `_codes(values)`, -1 when it does not occur."""
    return next((k for k, v in enumerate(dict.fromkeys(values)) if v == value), -1)


def _level_key(value: str) -> tuple[int, float, str]:
    """Sort difficulty levels numerically when they are numbers, else as text."""
    try:
        return (0, float(value), value)
    except (TypeError, ValueError):
        return (1, 0.0, str(value))
