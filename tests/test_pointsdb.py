"""`PointsDB.aggregate(filters, group_by, mode)`: sums of counters, then the estimator
(STATISTICS.md section 3), never an average of per-point scores."""

from __future__ import annotations

import math
from functools import reduce
from operator import add

import pytest
from helpers_points import ingest_rows, point, ref_estimate
from reasonboard.store.pointsdb import COUNTERS, MODES, KeySet, PointsDB

# Three points of one model on one task, of very different sizes: the sum and the
# average of per-point scores disagree a lot here.
POINTS = [
    point(model="m1", base_task="t1", params={"len": 8, "depth": 1}, total=200, correct=190, truncated=2,
          guess=40.0, tokens=1000.0, tiers=["easy"], groups=["g1"]),
    point(model="m1", base_task="t1", params={"len": 16, "depth": 1}, total=10, correct=1, truncated=6,
          guess=1.0, tokens=500.0, tiers=["hard"], groups=["g1"]),
    point(model="m1", base_task="t1", params={"len": 16, "depth": 2}, total=30, correct=12, truncated=3,
          guess=6.75, tokens=900.0, tiers=["easy", "hard"], groups=["g1", "g2"]),
    point(model="m1", base_task="t2", params={"len": 8, "depth": 1}, total=50, correct=20, truncated=0,
          guess=0.0, tokens=50.0, tiers=["easy"]),
    point(model="m2", base_task="t1", params={"len": 8, "depth": 1}, total=40, correct=40, truncated=0,
          guess=10.0, tokens=80.0, tiers=["easy"], groups=["g2"]),
    point(model="m2", base_task="t1", params={"len": 8, "depth": 1}, template="other", total=40, correct=0,
          truncated=40, guess=0.0, tokens=4000.0),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = ingest_rows(tmp_path_factory.mktemp("pdb"), POINTS)
    yield d
    d.close()


def sums(rows):
    n = sum(r["total"] for r in rows)
    return (n, sum(r["truncated"] for r in rows), sum(r["correct"] for r in rows), sum(r["guess"] for r in rows))


def select(**conds):
    def ok(r):
        for key, value in conds.items():
            if key in ("tiers", "groups"):
                if not set(r.get(key, [])) & set(value):
                    return False
            elif r[key] not in (value if isinstance(value, (list, tuple)) else [value]):
                return False
        return True
    return [r for r in POINTS if ok(r)]


def test_reaggregation_applies_the_estimator_to_sums(db):
    agg = db.aggregate(group_by=("model", "template", "sampler", "base_task"), mode=MODES)
    rows = agg.rows()
    keys = [(r["model"], r["template"], r["sampler"], r["base_task"]) for r in rows]
    assert keys == sorted(keys)
    assert keys == [("m1", "tpl", "smp", "t1"), ("m1", "tpl", "smp", "t2"),
                    ("m2", "other", "smp", "t1"), ("m2", "tpl", "smp", "t1")]
    for r in rows:
        mine = select(model=r["model"], template=r["template"], base_task=r["base_task"])
        n, n_t, n_e, g = sums(mine)
        assert (r["n"], r["n_t"], r["n_e"], r["g"]) == (n, n_t, n_e, pytest.approx(g, abs=1e-12))
        assert r["tok"] == sum(p["tokens"] for p in mine)
        assert r["points"] == len(mine)
        for mode in MODES:
            got = (r[f"{mode}_est"], r[f"{mode}_low"], r[f"{mode}_high"])
            assert got == pytest.approx(ref_estimate(mode, n, n_t, n_e, g), abs=1e-12), mode


def test_reaggregation_is_not_an_average_of_point_scores(db):
    r = db.aggregate(filters={"model": "m1", "base_task": "t1"}, group_by=("model",), mode="C_P").rows()[0]
    mine = select(model="m1", base_task="t1")
    per_point = [ref_estimate("C_P", p["total"], p["truncated"], p["correct"], p["guess"])[0] for p in mine]
    mean = sum(per_point) / len(per_point)
    geo = math.exp(sum(math.log(x) for x in per_point) / len(per_point))
    assert r["est"] == pytest.approx(ref_estimate("C_P", *sums(mine))[0], abs=1e-12)
    assert abs(r["est"] - mean) > 0.05 and abs(r["est"] - geo) > 0.05


def test_single_mode_adds_unprefixed_columns_and_v1_is_available(db):
    agg = db.aggregate(filters={"model": "m2", "template": "tpl"}, group_by=(), mode="V1")
    assert len(agg) == 1
    assert set(agg.columns) == {*COUNTERS, "V1_est", "V1_low", "V1_high", "est", "low", "high"}
    # m2 is perfect on its only point: v1 task score 1 at any sample count.
    assert agg["est"][0] == pytest.approx(1.0, abs=1e-12)
    several = db.aggregate(group_by=(), mode=("E_I", "C_O"))
    assert "est" not in several.columns and {"E_I_est", "C_O_high"} <= set(several.columns)


def test_group_by_nothing_sums_everything(db):
    r = db.aggregate(group_by=(), mode="E_P").rows()[0]
    assert (r["n"], r["n_t"], r["n_e"]) == sums(POINTS)[:3]
    assert r["points"] == len(POINTS)


@pytest.mark.parametrize("filters, conds", [
    ({"model": "m1"}, {"model": "m1"}),
    ({"model": ["m1", "m2"], "base_task": "t1"}, {"model": ["m1", "m2"], "base_task": "t1"}),
    ({"template": "other"}, {"template": "other"}),
    ({"tiers": "hard"}, {"tiers": ["hard"]}),
    ({"tiers": ["hard", "easy"], "model": "m1"}, {"tiers": ["hard", "easy"], "model": "m1"}),
    ({"groups": ["g2"]}, {"groups": ["g2"]}),
    ({"params": '{"depth":1,"len":8}'}, {"params": [{"len": 8, "depth": 1}]}),
])
def test_filters_select_the_matching_points(db, filters, conds):
    r = db.aggregate(filters=filters, group_by=(), mode="C_I").rows()[0]
    mine = select(**conds)
    assert mine, "the test needs matching points"
    assert r["points"] == len(mine)
    assert (r["n"], r["n_t"], r["n_e"]) == sums(mine)[:3]
    assert r["est"] == pytest.approx(ref_estimate("C_I", *sums(mine))[0], abs=1e-12)


def test_filters_matching_nothing_and_hostile_values(db):
    r = db.aggregate(filters={"model": "nobody' OR '1'='1"}, group_by=(), mode="E_I").rows()[0]
    assert r["points"] == 0
    assert db.aggregate(filters={"model": "x'); DROP TABLE points; --"}, mode="E_I").rows() == []
    assert db.con.execute("SELECT count(*) FROM points").fetchone()[0] == len(POINTS)


def test_group_by_tier_counts_a_point_in_every_tier_it_carries(db):
    agg = db.aggregate(filters={"model": "m1", "base_task": "t1"}, group_by=("tier",), mode="C_P")
    got = {r["tier"]: r for r in agg.rows()}
    assert list(got) == ["easy", "hard"]
    for tier in ("easy", "hard"):
        mine = [p for p in select(model="m1", base_task="t1") if tier in p["tiers"]]
        assert got[tier]["points"] == len(mine) == 2
        assert got[tier]["est"] == pytest.approx(ref_estimate("C_P", *sums(mine))[0], abs=1e-12)


def test_points_without_tiers_form_a_null_group_listed_first(db):
    agg = db.aggregate(filters={"model": "m2"}, group_by=("template", "tier"), mode="E_I")
    assert [(r["template"], r["tier"]) for r in agg.rows()] == [("other", None), ("tpl", "easy")]


def test_group_by_tier_and_group_is_a_cross_product(db):
    # A point in tiers {easy, hard} and groups {g1, g2} belongs to all four combinations.
    agg = db.aggregate(filters={"model": "m1"}, group_by=("tier", "group"), mode="E_P")
    got = {(r["tier"], r["grp"]): r["points"] for r in agg.rows()}
    expected: dict = {}
    for p in select(model="m1"):
        for t in p.get("tiers") or [None]:
            for g in p.get("groups") or [None]:
                expected[(t, g)] = expected.get((t, g), 0) + 1
    assert got == expected


def test_group_by_one_difficulty_coordinate(db):
    agg = db.aggregate(filters={"model": "m1", "base_task": "t1"}, group_by=("param:len",), mode="E_O")
    rows = agg.rows()
    col = next(c for c in agg.columns if c.startswith("param_"))
    assert [r[col] for r in rows] == ["16", "8"]  # JSON values come back as text, sorted as text
    for r in rows:
        mine = [p for p in select(model="m1", base_task="t1") if str(p["params"]["len"]) == r[col]]
        assert r["points"] == len(mine)
        assert r["est"] == pytest.approx(ref_estimate("E_O", *sums(mine))[0], abs=1e-12)


def test_group_by_param_level_counts_each_point_once_per_coordinate(db):
    agg = db.aggregate(filters={"model": "m1", "base_task": "t1"}, group_by=("param_level",), mode="E_P")
    got = {(r["param_name"], r["param_value"]): r["points"] for r in agg.rows()}
    assert got == {("depth", "1"): 2, ("depth", "2"): 1, ("len", "16"): 2, ("len", "8"): 1}


def test_group_by_param_with_filters_binds_parameters_in_order(db):
    # json-path parameters sit in the SELECT list, filter values in WHERE: mixing both
    # must still bind each value to its own placeholder.
    agg = db.aggregate(filters={"tiers": "easy", "model": "m1"}, group_by=("base_task", "param:depth"),
                       mode=("C_P", "E_I"))
    got = {(r["base_task"], r["param_1"]): r["points"] for r in agg.rows()}
    assert got == {("t1", "1"): 1, ("t1", "2"): 1, ("t2", "1"): 1}


def test_a_key_set_selects_only_the_combinations_it_lists(db):
    # (m1, t2) and (m2, t1): filtering on model and task separately would also take (m1, t1).
    among = KeySet(("model", "base_task"), [("m1", "t2"), ("m2", "t1")])
    agg = db.aggregate(among=among, group_by=("model", "template", "base_task", "param_level"), mode="C_P")
    got = {(r["model"], r["template"], r["base_task"], r["param_name"], r["param_value"]): (r["points"], r["est"])
           for r in agg.rows()}
    expected = {}
    for key in ((p["model"], p["template"], p["base_task"], name, str(p["params"][name]))
                for p in POINTS if (p["model"], p["base_task"]) in among.rows for name in p["params"]):
        mine = [p for p in POINTS if (p["model"], p["template"], p["base_task"]) == key[:3]
                and str(p["params"][key[3]]) == key[4]]
        expected[key] = (len(mine), pytest.approx(ref_estimate("C_P", *sums(mine))[0], abs=1e-12))
    assert got == expected
    assert {k[:3] for k in got} == {("m1", "tpl", "t2"), ("m2", "tpl", "t1"), ("m2", "other", "t1")}
    # With filters too (their parameters bind after the key set's), and an empty key set.
    r = db.aggregate(among=among, filters={"template": "other"}, group_by=(), mode="E_I").rows()[0]
    assert r["points"] == len(select(model="m2", template="other"))
    assert db.aggregate(among=KeySet(("model",), []), group_by=("model",)).rows() == []


def test_a_key_set_binds_hostile_values(db):
    r = db.aggregate(among=KeySet(("model",), [("m1' OR '1'='1",), ("m2",)]), group_by=(), mode="E_I").rows()[0]
    assert r["points"] == len(select(model="m2"))
    with pytest.raises(ValueError, match="select points by"):
        db.aggregate(among=KeySet(("tiers",), [("easy",)]))
    with pytest.raises(ValueError, match="select points by"):
        db.aggregate(among=KeySet(("model; DROP TABLE points",), [("m1",)]))
    with pytest.raises(ValueError, match="columns"):
        db.aggregate(among=KeySet(("model", "base_task"), [("m1",)]))
    assert db.con.execute("SELECT count(*) FROM points").fetchone()[0] == len(POINTS)


def test_bad_arguments_are_rejected(db):
    with pytest.raises(ValueError, match="mode"):
        db.aggregate(mode="C_X")
    with pytest.raises(ValueError, match="group by"):
        db.aggregate(group_by=("tokens",))
    with pytest.raises(ValueError, match="filter by"):
        db.aggregate(filters={"total": 3})


def test_tasks_params_and_evaluations(tmp_path):
    evals = [{"model": "m1", "template": "tpl", "sampler": "smp", "label": "Model One", "groups": ["x"]}]
    with ingest_rows(tmp_path, POINTS, evals=evals) as d:
        assert d.tasks() == ["t1", "t2"]
        assert d.param_names() == {"t1": ["depth", "len"], "t2": ["depth", "len"]}
        ev = d.evaluations()
        assert [(e["model"], e["template"], e["sampler"]) for e in ev] == [
            ("m1", "tpl", "smp"), ("m2", "other", "smp"), ("m2", "tpl", "smp")]
        assert ev[0]["label"] == "Model One" and ev[0]["groups"] == ["x"]
        assert ev[1]["label"] is None and ev[1]["groups"] == [] and ev[1]["simulated"] is False


def test_meta_round_trip():
    with PointsDB() as d:
        assert d.get_meta("k") is None
        d.set_meta("k", "v1")
        d.set_meta("k", "v2")
        assert d.get_meta("k") == "v2"


def test_sums_do_not_depend_on_the_order_the_points_are_stored_in(tmp_path):
    """An incremental ingest stores points in another order than a fresh one (store/ingest.py),
    and a double's sum depends on the order of its terms: guess and tokens are summed as exact
    decimals, so every order gives the same bytes, and the sum is the exact one (a plain
    reading with Python's decimals, to the double's last bits)."""
    from decimal import Decimal

    rows = [point(model="m", params={"i": i}, total=7, correct=3, guess=1 / (1 + i % 9), tokens=i / 7 + 0.1)
            for i in range(3000)]
    db = ingest_rows(tmp_path, rows)
    try:
        results = []
        for order in ("params", "params DESC", "hash(params)", "source_row % 7, params"):
            db.con.execute(f"CREATE OR REPLACE TABLE points AS SELECT * FROM points ORDER BY {order}")
            agg = db.aggregate(group_by=("model",), mode="C_P")
            results.append((agg["g"].tobytes(), agg["tok"].tobytes()))
        assert len(set(results)) == 1
        g, tok = agg["g"][0], agg["tok"][0]
    finally:
        db.close()
    twelve = Decimal("1e-12")
    exact_g = float(sum(Decimal(r["guess"]).quantize(twelve) for r in rows))
    exact_tok = float(sum(Decimal(float(str(r["tokens"]))).quantize(twelve) for r in rows))
    assert math.isclose(g, exact_g, rel_tol=4e-16) and math.isclose(tok, exact_tok, rel_tol=4e-16)
    # The plain double sums of some of those orders differ: the test can fail. (Added one by
    # one: Python 3.12's sum() compensates its rounding, and would hide the difference.)
    plain = {reduce(add, sorted(r["guess"] for r in rows), 0.0), reduce(add, (r["guess"] for r in rows), 0.0),
             reduce(add, sorted((r["guess"] for r in rows), reverse=True), 0.0)}
    assert len(plain) > 1


def test_duckdb_memory_is_bounded_and_running_out_is_one_line(monkeypatch):
    """The PointsDB's buffer pool is a tenth of the machine within 512 MB and 1 GB (DuckDB's
    own default let a large build reach 18.7 GB), and a query that still runs out of memory
    ends the command with one line saying what to do, not a traceback."""
    import duckdb
    from reasonboard import cli
    from reasonboard.store import pointsdb

    for machine, pool in ((16 << 30, 1 << 10), (8 << 30, int((8 << 30) * 0.1) >> 20), (2 << 30, 512)):
        monkeypatch.setattr(pointsdb.os, "sysconf", lambda name, pages=machine // 4096: {
            "SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": pages}[name])
        assert pointsdb.memory_limit() == f"{pool}MB"
    with PointsDB() as fresh:
        limit = fresh.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert limit.endswith(("GiB", "MiB", "GB", "MB"))
    line = cli.system_error(duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block"))
    assert line.startswith("Out of Memory Error") and "more memory" in line and "\n" not in line
