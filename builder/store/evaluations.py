"""Loading `evals.json` (read by `sources.evals`) into the PointsDB's evaluations table."""

from __future__ import annotations

import json
from typing import Any

from .pointsdb import PointsDB


def ingest_evals(db: PointsDB, entries: list[dict[str, Any]]) -> None:
    """Insert the evaluations in one statement, columns in the table's order (row-by-row inserts into a file-backed
    database cost a transaction each: seconds for a few thousand evaluations)."""
    db.con.execute("DELETE FROM evaluations")
    if not entries:
        return
    rows = sorted(entries, key=lambda e: (e["model"], e["template"], e["sampler"]))
    columns = {
        "model": [e["model"] for e in rows], "template": [e["template"] for e in rows],
        "sampler": [e["sampler"] for e in rows], "label": [e.get("label") for e in rows],
        "groups": [e["groups"] for e in rows], "hf_id": [e.get("hf_id") for e in rows],
        "organization": [e.get("organization") for e in rows], "relationship": [e.get("relationship") for e in rows],
        "generation_args": [json.dumps(e["generation_args"], sort_keys=True, separators=(",", ":")) for e in rows],
        "harness": [e.get("harness") for e in rows], "simulated": [bool(e.get("simulated", False)) for e in rows],
        # NULL when not said: only ingest knows, and what it does not say was observed.
        "truncation_observed": [(e.get("observed") or {}).get("truncation") for e in rows],
        "tokens_observed": [(e.get("observed") or {}).get("tokens") for e in rows],
        **{key: [e.get(key) for e in rows] for key in ("price_in", "price_out", "price_source", "price_date")},
        # The harness's own headline figure per task (INGEST.md: shown beside ours).
        "harness_scores": [json.dumps(e.get("harness_scores") or {}, sort_keys=True, separators=(",", ":"))
                           for e in rows],
        "likelihood_tasks": [e.get("likelihood_tasks") or [] for e in rows],
    }
    types = {"groups": "VARCHAR[][]", "simulated": "BOOLEAN[]", "truncation_observed": "BOOLEAN[]",
             "tokens_observed": "BOOLEAN[]", "price_in": "DOUBLE[]", "price_out": "DOUBLE[]",
             "likelihood_tasks": "VARCHAR[][]"}
    db.con.execute(
        "INSERT INTO evaluations SELECT "
        + ", ".join(f"unnest(?::{types.get(name, 'VARCHAR[]')})" for name in columns),
        list(columns.values()),
    )
