"""The data files of a build: `data/leaderboard.json`, `leaderboard.csv`, `pairwise.json`,
`signals.json` (PRODUCT.md "Outputs").

The documents are written from the statistics' typed results (`stats/board.py`); they are
an output format, not what the stages hand each other. Serialised deterministically (sorted
keys, rows in the results' own stable order, numbers already rounded by the statistics) so
`git diff` of two builds shows real changes.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from .stats.board import EvaluationRow, Leaderboard, Pairwise, TaskResult
from .vocabulary import MODES

#: Version 2 (issue 16) publishes ties in a size linear in the number of models: a model's
#: `tied_count` beside its `rank_range` and interval instead of the `tied_with` list, and each
#: tie group as a `tie_group` record instead of its member list (see `stats.board.TieGroup`).
SCHEMA = "reasonboard.leaderboard/2"
PAIRWISE_SCHEMA = "reasonboard.pairwise/1"

CSV_COLUMNS = (
    "rank", "rank_low", "rank_high", "id", "label", "model", "template", "sampler", "complete",
    "reasonscore", "margin", "ci_low", "ci_high", "band", "avg_tokens", "score_per_token",
    "truncation_rate", "distinct_from_next", "missing_tasks",
)


def dump_json(document: Any) -> bytes:
    """Sorted keys, one element of each top-level list per line.

    Line per model (or triple, or benchmark) keeps `git diff` of two builds readable, and
    encoding each element compactly lets the C encoder do the work: `indent=` would switch
    json to its pure-Python encoder, which takes seconds on a 2,000-model leaderboard.
    """
    def compact(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    if not isinstance(document, dict):
        return (compact(document) + "\n").encode("utf-8")
    parts = []
    for key in sorted(document):
        value = document[key]
        if isinstance(value, list) and value:
            body = ",\n  ".join(compact(item) for item in value)
            parts.append(f"{compact(key)}:[\n  {body}\n]")
        else:
            parts.append(f"{compact(key)}:{compact(value)}")
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")


def leaderboard_document(leaderboard: Leaderboard) -> dict[str, Any]:
    """`leaderboard.json` (PRODUCT.md "Outputs")."""
    settings = leaderboard.settings
    return {
        "schema": SCHEMA,
        "config": {"mode": settings.mode, "bootstrap": settings.bootstrap, "seed": settings.seed,
                   "tasks": list(settings.tasks)},
        "models": [_row_document(m) for m in leaderboard.models],
        "tie_groups": [{"ranks": list(g.ranks), "size": g.size, "at": g.at} for g in leaderboard.tie_groups],
    }


def _row_document(m: EvaluationRow) -> dict[str, Any]:
    s = m.score
    return {
        "id": m.id, "slug": m.slug, "model": m.model, "template": m.template, "sampler": m.sampler,
        "label": m.label, "complete": m.complete, "missing_tasks": list(m.missing_tasks), "rank": m.rank,
        "rank_range": list(m.rank_range) if m.rank_range is not None else None,
        "reasonscore": {"center": s.center, "margin": s.margin, "ci_low": s.ci_low, "ci_high": s.ci_high},
        "band": m.band, "avg_tokens": m.avg_tokens, "score_per_token": m.score_per_token,
        "truncation_rate": m.truncation_rate, "tied_count": m.tied_count,
        "distinct_from_next": m.distinct_from_next,
        "tasks": {task: _task_document(t) for task, t in m.tasks.items()},
        "tiers": {name: {"reasonscore": t.reasonscore, "avg_tokens": t.avg_tokens} for name, t in m.tiers.items()},
        "score_per_token_v1": m.score_per_token_v1,
    }


def _task_document(t: TaskResult) -> dict[str, Any]:
    return {
        "total": t.total, "truncated": t.truncated, "correct": t.correct, "guess": t.guess, "tokens": t.tokens,
        "estimate": t.estimate, "low": t.low, "high": t.high,
        "modes": {mode: list(values) for mode, values in zip(MODES, t.modes)},
    }


def pairwise_document(pw: Pairwise) -> dict[str, Any]:
    """`pairwise.json`: the top models' matrix and Bradley–Terry ranking, every ranked
    model's neighbours."""
    return {
        "schema": PAIRWISE_SCHEMA, "models": list(pw.models),
        "win_rate": [list(row) for row in pw.win_rate],
        "tasks_shared": [list(row) for row in pw.tasks_shared],
        "expected_wins": dict(pw.expected_wins),
        "bradley_terry": [{"id": s.id, "strength": s.strength, "rank": s.rank} for s in pw.bradley_terry],
        "neighbours": {model: [{"id": n.id, "win_rate": n.win_rate, "tasks_shared": n.tasks_shared} for n in near]
                       for model, near in pw.neighbours.items()},
    }


def leaderboard_csv(leaderboard: Leaderboard) -> bytes:
    """One row per evaluation, in leaderboard order; lists joined with `;`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for m in leaderboard.models:
        rs = m.score
        rank_range: tuple[int | None, int | None] = m.rank_range or (None, None)
        writer.writerow([
            _cell(m.rank), _cell(rank_range[0]), _cell(rank_range[1]), m.id, m.label, m.model,
            m.template, m.sampler, _cell(m.complete), _cell(rs.center), _cell(rs.margin),
            _cell(rs.ci_low), _cell(rs.ci_high), _cell(m.band), _cell(m.avg_tokens),
            _cell(m.score_per_token), _cell(m.truncation_rate), _cell(m.distinct_from_next),
            ";".join(m.missing_tasks),
        ])
    return out.getvalue().encode("utf-8")


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def data_files(leaderboard: Leaderboard, pairwise: Pairwise, signals: dict[str, Any] | None) -> dict[str, bytes]:
    files = {
        "data/leaderboard.json": dump_json(leaderboard_document(leaderboard)),
        "data/leaderboard.csv": leaderboard_csv(leaderboard),
        "data/pairwise.json": dump_json(pairwise_document(pairwise)),
    }
    if signals is not None:
        files["data/signals.json"] = dump_json(signals)
    return files
