"""The data files of a build: `data/leaderboard.json`, `leaderboard.csv`, `pairwise.json`,
`signals.json` (PRODUCT.md "Outputs").

Serialised deterministically (sorted keys, rows in the documents' own stable order,
numbers already rounded by the statistics) so `git diff` of two builds shows real changes.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

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


def leaderboard_csv(leaderboard: dict[str, Any]) -> bytes:
    """One row per evaluation, in leaderboard order; lists joined with `;`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for m in leaderboard["models"]:
        rs = m["reasonscore"]
        rank_range = m["rank_range"] or [None, None]
        writer.writerow([
            _cell(m["rank"]), _cell(rank_range[0]), _cell(rank_range[1]), m["id"], m["label"], m["model"],
            m["template"], m["sampler"], _cell(m["complete"]), _cell(rs["center"]), _cell(rs["margin"]),
            _cell(rs["ci_low"]), _cell(rs["ci_high"]), _cell(m["band"]), _cell(m["avg_tokens"]),
            _cell(m["score_per_token"]), _cell(m["truncation_rate"]), _cell(m["distinct_from_next"]),
            ";".join(m["missing_tasks"]),
        ])
    return out.getvalue().encode("utf-8")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def data_files(leaderboard: dict[str, Any], pairwise: dict[str, Any], signals: dict[str, Any] | None) -> dict[str, bytes]:
    files = {
        "data/leaderboard.json": dump_json(leaderboard),
        "data/leaderboard.csv": leaderboard_csv(leaderboard),
        "data/pairwise.json": dump_json(pairwise),
    }
    if signals is not None:
        files["data/signals.json"] = dump_json(signals)
    return files
