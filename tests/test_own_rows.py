"""The leaderboard's own rows (`store.reported.own_row_columns`) against a plain reading:
every row made by `result_part` and `record_part` as section 1 describes, one call per row."""

from __future__ import annotations

import math

import numpy as np
from reasonboard.config import SiteConfig
from reasonboard.store.keys import Aliases, key
from reasonboard.store.reported import (
    OWN_METRIC,
    OWN_SOURCE_TYPE,
    OwnResult,
    RowColumns,
    own_row_columns,
    record_part,
    result_part,
    score_problem,
    setup_part,
)


def plain(own_rows, config, aliases, first_row_id):
    columns, dropped = RowColumns(first_row_id), 0
    for own in sorted(own_rows, key=lambda o: (o.evaluation_id, o.task)):
        bench = aliases.benchmark(key(own.task))
        model_id = (own.model or "").strip()
        if score_problem(own.score) is not None or not bench or not model_id:
            dropped += 1
            continue
        args = own.generation_args
        columns.add(
            record_part(own=True, source_path=None, evaluation_id=own.evaluation_id, schema_version=None,
                        model_id=model_id, aliases=aliases,
                        organization=own.organization or config.organization or None,
                        relationship=own.relationship or config.relationship,
                        source_type=OWN_SOURCE_TYPE, harness=own.harness, harness_version=None),
            result_part(index=None, benchmark_name=own.task, evaluation_name=own.task, bench=bench, slice_key=None,
                        metric_name=OWN_METRIC, unit=None, min_score=0.0, max_score=1.0, score=own.score,
                        args={}, scaffold=None, setup=setup_part(args, args.get("agent_scaffold"))),
        )
    return columns, dropped


def test_own_rows_equal_the_plain_reading():
    hot = {"temperature": 0.7, "max_tokens": 2048}
    scaffold = {"temperature": 0, "agent_scaffold": "react", "eval_plan": ""}
    own = [
        OwnResult("org/b", "eval-2", "Math Level 5", 0.25, generation_args=hot),
        OwnResult("org/b", "eval-2", "gsm8k", 1, harness="lm-eval", generation_args=hot),
        OwnResult("org/a", "eval-1", "gsm8k", 0.5, organization="Lab A", relationship="first_party"),
        OwnResult("org/a", "eval-1", "Math Level 5", None),
        OwnResult("org/a", "eval-1", "???", 0.5),
        OwnResult(" ", "eval-3", "gsm8k", 0.5),
        OwnResult("org/c", "eval-4", "gsm8k", math.nan, generation_args=scaffold),
        OwnResult("org/c", "eval-4", "MATH level 5", 0.75, generation_args=scaffold),
        OwnResult("org/c", "eval-4", "Aliased", 0.125, generation_args=scaffold),
    ]
    config = SiteConfig(organization="Publisher", relationship="first_party")
    aliases = Aliases.from_tables({}, {"aliased": "gsm8k"})
    got, got_dropped = own_row_columns(own, config, aliases, 100)
    want, want_dropped = plain(own, config, aliases, 100)
    assert (got_dropped, len(got)) == (want_dropped, len(want)) == (4, 5)
    assert got.rows == want.rows
    assert [type(v) for r in got.rows for v in r] == [type(v) for r in want.rows for v in r]
    a, b = got.arrays(), want.arrays()
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype and a[name].tolist() == b[name].tolist(), name
    assert a["row_id"].tolist() == list(range(100, 105))
    assert np.all(a["min_score"] == 0.0)
