"""`leaderboard.json` gives no number for a counter the harness did not record: real
lm-evaluation-harness sample files (tests/data/per-instance/lm-eval) have no token counts and
no stop reasons, so their tasks' `tokens` and `truncated` are null, not a 0 nobody counted,
while the Inspect `popularity` logs beside them (which record both) keep their sums. Each
expectation comes from `evals.json` (`observed`) and the trials files ingest wrote."""

from __future__ import annotations

import json
from pathlib import Path

from helpers_lab import cli_ok
from helpers_points import duck_rows

DATA = Path(__file__).parent / "data" / "per-instance"
INPUTS = (DATA / "lm-eval", DATA / "inspect" / "inspect_ai" / "log-sets" / "set")


def test_unrecorded_tokens_and_truncation_are_null_per_task(tmp_path):
    data, site = tmp_path / "data", tmp_path / "site"
    cli_ok("ingest", *map(str, INPUTS), "--data", str(data))
    cli_ok("build", "--data", str(data), "--out", str(site), "--cache", str(tmp_path / "cache"), "--quiet")
    evals = json.loads((data / "evals.json").read_text(encoding="utf-8"))
    observed = {(e["model"], e["template"], e["sampler"]): e.get("observed") or {} for e in evals}
    files = sorted(str(p) for p in (data / "trials").rglob("*.parquet"))
    _, rows = duck_rows("SELECT model, template, sampler, base_task, count(tokens), coalesce(sum(tokens), 0) "
                        "FROM read_parquet(?, union_by_name = true) GROUP BY ALL", [files])
    recorded = {(m, t, s, task): (n, total) for m, t, s, task, n, total in rows}
    board = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    blind = seen = 0
    for m in board["models"]:
        key = (m["model"], m["template"], m["sampler"])
        flags = observed[key]
        for task, t in m["tasks"].items():
            with_tokens, tokens = recorded[(*key, task)]
            if flags.get("tokens") is False:
                assert with_tokens == 0 and t["tokens"] is None, (key, task, t["tokens"])
                blind += 1
            else:
                assert t["tokens"] == tokens, (key, task)
                seen += 1
            if flags.get("truncation") is False:
                assert t["truncated"] is None, (key, task, t["truncated"])
            else:
                assert isinstance(t["truncated"], int), (key, task)
    assert blind >= 3 and seen >= 3
