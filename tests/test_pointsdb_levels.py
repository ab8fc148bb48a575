"""`aggregate(group_by=(..., "param_level"))` reads each point's params with json_each:
checked against a plain reading in Python (each key of the params object, its value as
text) on coordinates of every JSON kind, and combined with a tier unnest."""

from __future__ import annotations

import json
from collections import Counter

from helpers_points import ingest_rows, point

PARAMS = [
    {"len": 8, "depth": 1},
    {"len": 16, "depth": 1, "mode name": "chain", 'q"k': "a\"b"},
    {"len": 16, "flag": True, "ratio": 0.25, "none": None, "nested": {"b": [1, 2]}},
    {},
    {"len": 8},
]


def text(value):
    """A coordinate's level as text, as json_extract_string gives it."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def test_param_levels_equal_the_plain_reading(tmp_path):
    points = [point(model=f"m{i % 2}", base_task="t", params=p, sampler=f"s{i}", total=10 + i, correct=i,
                    tiers=["easy"] if i % 2 else ["easy", "hard"])
              for i, p in enumerate(PARAMS * 3)]
    db = ingest_rows(tmp_path, points)
    try:
        agg = db.aggregate(group_by=("model", "param_level"), mode="C_P")
        got = {(r["model"], r["param_name"], r["param_value"]): (r["points"], r["n"]) for r in agg.rows()}
        want_points: Counter = Counter()
        want_n: Counter = Counter()
        for p in points:
            for name, value in p["params"].items():
                want_points[(p["model"], name, text(value))] += 1
                want_n[(p["model"], name, text(value))] += p["total"]
        assert got == {k: (want_points[k], float(want_n[k])) for k in want_points}
        assert ("m1", 'q"k', 'a"b') in got and ("m0", "nested", '{"b":[1,2]}') in got

        tiered = db.aggregate(group_by=("tier", "param_level"), mode="C_P")
        got_t = {(r["tier"], r["param_name"], r["param_value"]): r["points"] for r in tiered.rows()}
        want_t: Counter = Counter()
        for p in points:
            for tier in p["tiers"]:
                for name, value in p["params"].items():
                    want_t[(tier, name, text(value))] += 1
        assert got_t == dict(want_t)
    finally:
        db.close()
