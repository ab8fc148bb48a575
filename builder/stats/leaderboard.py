"""The leaderboard: every statistic of an evaluation, assembled from PointsDB aggregates.

Three aggregate queries feed everything: per (evaluation, task) with all six estimators,
per (evaluation, tier, task) with the v1 task score, and per (evaluation, task, difficulty
level) for the difficulty curves. The rest is numpy on (models × tasks) arrays. The
result is a plain document that is exactly `leaderboard.json` (PRODUCT.md "Outputs"),
plus the pairwise document and the curves the task pages draw.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import SiteConfig
from ..errors import InputError
from ..slugs import evaluation_slugs
from ..store.pointsdb import PointsDB
from ..vocabulary import MODES
from .bands import Bands
from .pairwise import neighbour_win_rates, pairwise
from .reasonscore import reasonscore_v2
from .significance import rank_order, significance
from .tiers import score_per_token_v1, tier_reasonscore, tokens_per_trial

#: Version 2 (issue 16) publishes ties in a size linear in the number of models: a model's
#: `tied_count` beside its `rank_range` and interval instead of the `tied_with` list, and each
#: tie group as a `tie_group` record instead of its member list (see `tie_group`).
SCHEMA = "reasonboard.leaderboard/2"
PAIRWISE_SCHEMA = "reasonboard.pairwise/1"
EVAL_KEYS = ("model", "template", "sampler")


def evaluation_id(model: str, template: str, sampler: str) -> str:
    """A readable, unique id for one evaluation (model, template, sampler)."""
    return f"{model}|{template}|{sampler}"


def _rounded(values: np.ndarray, digits: int) -> list:
    """An array rounded to `digits` as nested Python lists, NaN as None (JSON null)."""
    values = np.asarray(values, dtype=float)
    # + 0.0 turns -0.0 (a bound like W(0, t).low = -3e-17 rounded) into 0.0.
    out = (np.round(values, digits) + 0.0).astype(object)
    out[~np.isfinite(values)] = None
    return out.tolist()


def r3(x: Any) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 3) + 0.0


def r6(x: Any) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 6) + 0.0


@dataclass(frozen=True)
class Tables:
    """An aggregate reshaped to (evaluations × tasks) arrays."""

    present: np.ndarray
    columns: dict[str, np.ndarray]


def _grid(agg, row_index: dict[tuple, int], key_cols: tuple[str, ...], tasks: list[str],
          names: list[str], shape_rows: int) -> Tables:
    """Scatter aggregate rows into (rows, tasks) arrays by their evaluation and task keys."""
    task_index = {t: j for j, t in enumerate(tasks)}
    keys = zip(*(agg[c].tolist() for c in key_cols))
    rows = np.fromiter((row_index.get(k, -1) for k in keys), dtype=int, count=len(agg))
    cols = np.fromiter((task_index.get(t, -1) for t in agg["base_task"].tolist()), dtype=int, count=len(agg))
    keep = (rows >= 0) & (cols >= 0)
    present = np.zeros((shape_rows, len(tasks)), dtype=bool)
    present[rows[keep], cols[keep]] = True
    out = {}
    for name in names:
        grid = np.full((shape_rows, len(tasks)), np.nan)
        grid[rows[keep], cols[keep]] = agg[name][keep]
        out[name] = grid
    return Tables(present, out)


def select_evaluations(evaluations: list[dict[str, Any]], config: SiteConfig) -> list[dict[str, Any]]:
    """Apply the config's `[evaluations]` choice (one "template/sampler" per model name)."""
    chosen = config.evaluations
    if not chosen:
        return evaluations
    available = {(e["model"], f"{e['template']}/{e['sampler']}") for e in evaluations}
    for model, choice in chosen.items():
        if (model, choice) not in available:
            raise InputError(config.path, f"key 'evaluations.{model}' = '{choice}' matches no evaluation "
                                          "(expected \"template/sampler\" of one of the model's evaluations)")
    return [e for e in evaluations
            if e["model"] not in chosen or chosen[e["model"]] == f"{e['template']}/{e['sampler']}"]


def labels_for(evaluations: list[dict[str, Any]]) -> list[str]:
    """The evals.json label (or the model name), with template and sampler added when one
    model name has several evaluations, so every row reads differently."""
    per_model: dict[str, int] = {}
    for e in evaluations:
        per_model[e["model"]] = per_model.get(e["model"], 0) + 1
    labels = []
    for e in evaluations:
        label = e.get("label") or e["model"]
        if per_model[e["model"]] > 1:
            label = f"{label} ({e['template']}, {e['sampler']})"
        labels.append(label)
    return labels


@dataclass(frozen=True)
class LeaderboardResult:
    leaderboard: dict[str, Any]
    pairwise: dict[str, Any]
    curves: dict[str, Any]
    evaluations: dict[str, dict[str, Any]]


def compute_leaderboard(db: PointsDB, config: SiteConfig, bands: Bands) -> LeaderboardResult:
    found = db.tasks()
    tasks = sorted(config.tasks) if config.tasks else found
    unknown = [t for t in tasks if t not in set(found)]
    if unknown:
        raise InputError(config.path, f"key 'tasks' names '{unknown[0]}', which no point has "
                                      f"(tasks in the data: {', '.join(found) or 'none'})")
    evaluations = select_evaluations(db.evaluations(), config)
    ids = [evaluation_id(e["model"], e["template"], e["sampler"]) for e in evaluations]
    labels = labels_for(evaluations)
    index = {(e["model"], e["template"], e["sampler"]): i for i, e in enumerate(evaluations)}
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
    names = ["\x00".join((e["model"], e["template"], e["sampler"])) for e in evaluations]
    order = ranked[rank_order(scores.center[ranked], [names[i] for i in ranked])]
    sig = significance(scores.ci_low[order], scores.ci_high[order])
    rank = {int(i): r + 1 for r, i in enumerate(order)}
    incomplete = np.flatnonzero(~complete)
    incomplete = incomplete[rank_order(np.nan_to_num(scores.center[incomplete], nan=-1.0), [names[i] for i in incomplete])]
    row_order = [*order.tolist(), *incomplete.tolist()]
    position = {i: p for p, i in enumerate(order.tolist())}

    tiers = _tiers(db, tasks, index, m)
    rs_bands = bands.keys("reasonscore", np.nan_to_num(scores.center, nan=0.0))

    # Round whole arrays once; per-model documents then only index Python lists.
    r = {name: _rounded(grid, 6) for name, grid in col.items()}
    counts = {name: np.nan_to_num(col[name]).astype(np.int64).tolist() for name in ("n", "n_t", "n_e")}
    score = {name: _rounded(getattr(scores, name), 3) for name in ("center", "margin", "ci_low", "ci_high")}
    avg_tokens_r, spt_r, trunc_r = _rounded(avg_tokens, 3), _rounded(score_per_token, 6), _rounded(truncation, 6)
    present_l: list[list[bool]] = present.tolist()
    models = []
    for i in row_order:
        e = evaluations[i]
        p = position.get(i)
        task_docs = {}
        for j, task in enumerate(tasks):
            if not present_l[i][j]:
                continue
            task_docs[task] = {
                "total": counts["n"][i][j], "truncated": counts["n_t"][i][j], "correct": counts["n_e"][i][j],
                "guess": r["g"][i][j], "tokens": r["tok"][i][j],
                "estimate": r[f"{mode}_est"][i][j], "low": r[f"{mode}_low"][i][j], "high": r[f"{mode}_high"][i][j],
                "modes": {md: [r[f"{md}_est"][i][j], r[f"{md}_low"][i][j], r[f"{md}_high"][i][j]] for md in MODES},
            }
        tier_doc = tiers.get(i, {})
        tier_names = sorted(tier_doc)
        models.append({
            "id": ids[i], "slug": None, "model": e["model"], "template": e["template"], "sampler": e["sampler"],
            "label": labels[i], "complete": bool(complete[i]),
            "missing_tasks": [t for j, t in enumerate(tasks) if not present_l[i][j]],
            "rank": rank.get(i),
            "rank_range": [int(sig.rank_best[p]), int(sig.rank_worst[p])] if p is not None else None,
            "reasonscore": {name: score[name][i] for name in score},
            "band": rs_bands[i] if np.isfinite(scores.center[i]) else None,
            "avg_tokens": avg_tokens_r[i], "score_per_token": spt_r[i], "truncation_rate": trunc_r[i],
            "tied_count": int(sig.tied_count[p]) if p is not None else 0,
            "distinct_from_next": sig.distinct_from_next[p] if p is not None else None,
            "tasks": task_docs,
            "tiers": {t: {"reasonscore": r3(tier_doc[t]["reasonscore"]), "avg_tokens": r3(tier_doc[t]["avg_tokens"])}
                      for t in tier_names},
            "score_per_token_v1": r6(score_per_token_v1([tier_doc[t]["reasonscore"] for t in tier_names],
                                                        [tier_doc[t]["avg_tokens"] for t in tier_names])),
        })
    assign_slugs(models)
    leaderboard = {
        "schema": SCHEMA,
        "config": {"mode": mode, "bootstrap": config.bootstrap, "seed": config.seed, "tasks": tasks},
        "models": models,
        "tie_groups": [tie_group(group, [score["ci_low"][order[k]] for k in group]) for group in sig.tie_groups],
    }
    pw = _pairwise_doc(order, config.pairwise_top, ids, col, present, mode)
    curves = _curves(db, tasks, index, ids)
    eval_docs = {ids[i]: {
        "label": labels[i], "hf_id": e.get("hf_id"), "organization": e.get("organization"),
        "relationship": e.get("relationship"), "generation_args": json.loads(e.get("generation_args") or "{}"),
        "harness": e.get("harness"), "simulated": bool(e.get("simulated")), "groups": list(e.get("groups") or []),
        "model": e["model"], "template": e["template"], "sampler": e["sampler"],
        # INGEST.md section 6: whether the harness recorded truncation and tokens at all.
        "truncation_observed": e.get("truncation_observed") is not False,
        "tokens_observed": e.get("tokens_observed") is not False,
    } for i, e in enumerate(evaluations)}
    return LeaderboardResult(leaderboard, pw, curves, eval_docs)


def tie_group(positions: list[int], lows: list[float]) -> dict[str, Any]:
    """A tie group (a maximal set of ranked models whose intervals all overlap) as a record of
    constant size: its rank span, its size, and `at`, the published score every member's
    interval contains (the largest lower bound among them). Its members are exactly the ranked
    models with `ci_low <= at <= ci_high`: a clique of intervals is the set of intervals
    holding one point, and this group's point is its last-opening member's lower bound."""
    return {"ranks": [positions[0] + 1, positions[-1] + 1], "size": len(positions), "at": max(lows)}


def assign_slugs(models: list[dict[str, Any]]) -> None:
    """Each row's `slug`: its page is `models/<slug>.html` (`slugs.evaluation_slugs`): the
    model's own page while the model has one evaluation, else a page under it,
    `<model>/<template>-<sampler>`, so the model's address never depends on how many
    evaluations it has."""
    triples = [(d["model"], d["template"], d["sampler"]) for d in models]
    for doc, slug in zip(models, evaluation_slugs(triples)):
        doc["slug"] = slug.page


def _tiers(db: PointsDB, tasks: list[str], index: dict[tuple, int], m: int) -> dict[int, dict[str, dict[str, float]]]:
    """v1 tier ReasonScores and average tokens per evaluation (only for tiered points).

    One grid with a row per (evaluation, tier): the same scatter and the same vectorised
    geometric mean as the task grid, with no loop over tiers.
    """
    agg = db.aggregate(filters={"base_task": tasks} if tasks else None,
                       group_by=(*EVAL_KEYS, "tier", "base_task"), mode="V1")
    names = sorted({t for t in agg["tier"].tolist() if t is not None})
    k = len(names)
    rows = {(*key, tier): i * k + j for key, i in index.items() for j, tier in enumerate(names)}
    grid = _grid(agg, rows, (*EVAL_KEYS, "tier"), tasks, ["est", "n", "tok"], m * k)
    rs = tier_reasonscore(grid.columns["est"], grid.present)
    toks = tokens_per_trial(np.nan_to_num(grid.columns["tok"]), np.nan_to_num(grid.columns["n"], nan=1.0), grid.present)
    out: dict[int, dict[str, dict[str, float]]] = {}
    for row in np.flatnonzero(grid.present.any(axis=1)).tolist():
        i, j = divmod(row, k)
        out.setdefault(i, {})[names[j]] = {"reasonscore": float(rs[row]), "avg_tokens": float(toks[row])}
    return out


def _pairwise_doc(order: np.ndarray, top_n: int, ids: list[str], col: dict[str, np.ndarray],
                  present: np.ndarray, mode: str) -> dict[str, Any]:
    """`pairwise.json`: the win-rate matrix and Bradley–Terry ranking of the top models, and
    every ranked model's win rates against its two neighbours on either side (§8)."""
    est, low, high = (col[f"{mode}_{p}"][order] for p in ("est", "low", "high"))
    ranked_present = present[order]
    ranked_ids = [ids[i] for i in order.tolist()]
    neighbours: dict[str, list[dict[str, Any]]] = {i: [] for i in ranked_ids}
    if len(order) >= 2:
        pairs, rates, shared = neighbour_win_rates(est, low, high, ranked_present)
        for (a, b), rate, n in sorted(zip(pairs.tolist(), rates.tolist(), shared.tolist())):
            neighbours[ranked_ids[a]].append({"id": ranked_ids[b], "win_rate": r6(rate), "tasks_shared": int(n)})
    top = slice(0, min(top_n, len(order)))
    top_ids = ranked_ids[top]
    doc: dict[str, Any] = {"schema": PAIRWISE_SCHEMA, "models": top_ids, "win_rate": [], "tasks_shared": [],
                           "expected_wins": {}, "bradley_terry": [], "neighbours": neighbours}
    if len(top_ids) < 2:
        return doc
    pw = pairwise(est[top], low[top], high[top], ranked_present[top])
    bt_order = np.lexsort((np.array(top_ids, dtype=object), -pw.strength))
    doc.update({
        "win_rate": [[r6(x) for x in row] for row in pw.win_rate.tolist()],
        "tasks_shared": pw.tasks_shared.tolist(),
        "expected_wins": {top_ids[k]: r6(pw.expected_wins[k]) for k in range(len(top_ids))},
        "bradley_terry": [{"id": top_ids[k], "strength": r6(pw.strength[k]), "rank": r + 1}
                          for r, k in enumerate(bt_order.tolist())],
    })
    return doc


def _curves(db: PointsDB, tasks: list[str], index: dict[tuple, int], ids: list[str]) -> dict[str, Any]:
    """C_P per level of each difficulty coordinate: the task pages' difficulty curves."""
    curves: dict[str, dict[str, list[dict[str, Any]]]] = {t: {} for t in tasks}
    if not tasks:
        return curves
    agg = db.aggregate(filters={"base_task": tasks}, group_by=(*EVAL_KEYS, "base_task", "param_level"), mode="C_P")
    est, low, high = (_rounded(agg[c], 6) for c in ("est", "low", "high"))
    n = agg["n"].astype(np.int64).tolist()
    keys = zip(agg["model"].tolist(), agg["template"].tolist(), agg["sampler"].tolist(), agg["base_task"].tolist(),
               agg["param_name"].tolist(), agg["param_value"].tolist())
    for k, (model, template, sampler, task, name, value) in enumerate(keys):
        i = index.get((model, template, sampler))
        if i is None or name is None or value is None:
            continue
        curves[task].setdefault(name, []).append(
            {"id": ids[i], "value": value, "estimate": est[k], "low": low[k], "high": high[k], "n": n[k]})
    for per_param in curves.values():
        for points in per_param.values():
            points.sort(key=lambda d: (d["id"], _level_key(d["value"])))
    return curves


def _level_key(value: str) -> tuple:
    """Sort difficulty levels numerically when they are numbers, else as text."""
    try:
        return (0, float(value), value)
    except (TypeError, ValueError):
        return (1, 0.0, str(value))
