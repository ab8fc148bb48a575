"""Samples, epochs and the effective number of trials (SAMPLES.md section 2), against a plain
computation written here: the trials read as rows, `V_cluster`, `V_srs` and the clamp by hand.

Real logs with epochs (Inspect's `log_streaming`: 2 samples x 2 epochs; the agentic
`small.eval`: 1 sample x 6 epochs) and the demo's simulated epochs must give the interval
of their samples' evidence; data with one trial per sample must give what it gave before
(the default demo's ReasonScores byte for byte).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers_points import duck_rows, load_data, parquet_rows, ref_estimate, ref_wilson, write_csv, write_demo_points
from reasonboard import demo
from reasonboard.config import SiteConfig
from reasonboard.ingest import IngestOptions, run_ingest
from reasonboard.stats.bands import load_bands
from reasonboard.stats.leaderboard import compute_leaderboard
from reasonboard.store.pointsdb import PointsDB

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "per-instance" / "inspect"
STREAMING = DATA / "inspect_ai" / "tests" / "log" / "test_eval_log" / "log_streaming.eval"
AGENTIC = DATA / "inspect-action" / "tests" / "core" / "importer" / "data_fixtures" / "eval_logs" / "small.eval"
BANDS = load_bands(ROOT / "content" / "bands.toml")
Z95 = 1.959963984540054


# -- the plain computation ----------------------------------------------------------------


def plain_deff(samples: list[list[tuple[bool, bool]]]) -> float:
    """SAMPLES.md section 2 for one point: `samples` lists each sample's trials as
    (correct, truncated)."""
    c = len(samples)
    m = [len(s) for s in samples]
    n = sum(m)
    mean = n / c
    found = []
    for k in (0, 1):
        y = [sum(t[k] for t in s) for s in samples]
        p = sum(y) / n
        v_srs = p * (1 - p) / n
        if v_srs <= 0:
            continue  # an indicator that never varies says nothing about the epochs
        if c == 1:
            found.append(mean)
            continue
        v_cluster = c / (c - 1) * sum((yi - mi * p) ** 2 for yi, mi in zip(y, m)) / n ** 2
        found.append(min(max(v_cluster / v_srs, 1.0), mean))
    return max(found) if found else mean


def plain_points(path: Path) -> dict[tuple, dict]:
    """Per point of a trials file: raw counters, samples and the design effect, by hand."""
    points: dict[tuple, dict] = {}
    for r in parquet_rows(path):
        p = points.setdefault((r["model"], r["template"], r["sampler"], r["base_task"], r["params"]),
                              {"n": 0, "n_t": 0, "n_e": 0, "g": 0.0, "samples": {}})
        p["n"] += 1
        p["n_t"] += r["truncated"]
        p["n_e"] += r["correct"]
        p["g"] += 1 / r["options"] if r["options"] and not r["truncated"] else 0.0
        p["samples"].setdefault(r["sample_id"], []).append((r["correct"], r["truncated"]))
    for p in points.values():
        p["deff"] = plain_deff(list(p["samples"].values()))
    return points


def stored(db: PointsDB) -> dict[tuple, tuple[int, float]]:
    rows = db.con.execute("SELECT model, template, sampler, base_task, params, samples, deff FROM points").fetchall()
    return {tuple(r[:5]): (r[5], r[6]) for r in rows}


# -- the rules on crafted trials -------------------------------------------------------------


def write_trials(data: Path, points: dict[str, list[list[tuple[bool, bool]]]]) -> None:
    """A trials file with one point per entry: its samples, each a list of (correct, truncated)."""
    rows = []
    for params, samples in points.items():
        for i, trials in enumerate(samples):
            for epoch, (correct, truncated) in enumerate(trials, start=1):
                rows.append(f"('{params}', '{i}', {epoch}, {float(correct)}, {correct}, {truncated})")
    (data / "trials").mkdir(parents=True, exist_ok=True)
    duck_rows(
        "COPY (SELECT 'm' AS model, 't' AS template, 's' AS sampler, 'task' AS base_task, params, sample_id, "
        "epoch::INTEGER AS epoch, credit::DOUBLE AS credit, correct, truncated, NULL::INTEGER AS options, "
        "NULL::BIGINT AS tokens, NULL::BIGINT AS input_tokens, NULL::BIGINT AS compressed "
        f"FROM (VALUES {', '.join(rows)}) v(params, sample_id, epoch, credit, correct, truncated)) "
        f"TO '{data / 'trials' / 'm.parquet'}' (FORMAT parquet)")


C, I, T = (True, False), (False, False), (False, True)
CASES = {
    '{"case":"one trial per sample"}': [[C], [I], [C], [T], [C]],
    '{"case":"one sample"}': [[C, I, C, C, I, C]],                       # C = 1: deff = m
    '{"case":"all correct"}': [[C, C], [C, C], [C, C]],                   # V_srs = 0 for both: deff = m
    '{"case":"epochs agree"}': [[C] * 5] * 6 + [[I] * 5] * 4,             # 10 samples x 5, identical answers
    '{"case":"epochs disagree"}': [[C, I], [I, C], [C, I], [I, C]],       # V_cluster = 0: clamped to 1
    '{"case":"uneven"}': [[C, C, I], [I], [C, T], [I, I, I, C], [T]],     # m_i vary, truncation varies
}


def test_design_effect_and_samples_by_hand(tmp_path):
    write_trials(tmp_path, CASES)
    expected = plain_points(tmp_path / "trials" / "m.parquet")
    with load_data(tmp_path) as db:
        got = stored(db)
    assert got.keys() == expected.keys()
    for key, p in expected.items():
        samples, deff = got[key]
        assert samples == len(p["samples"])
        assert deff == pytest.approx(p["deff"], rel=1e-12), key
    by_case = {k[4]: v for k, v in got.items()}
    assert by_case['{"case":"one trial per sample"}'][1] == 1.0
    assert by_case['{"case":"one sample"}'][1] == 6.0
    assert by_case['{"case":"all correct"}'][1] == 2.0
    assert by_case['{"case":"epochs agree"}'][1] == 5.0
    assert by_case['{"case":"epochs disagree"}'][1] == 1.0


def test_ten_samples_five_identical_epochs_count_as_ten(tmp_path):
    """The issue's example: E_I is Wilson for 6 of 10, not for 30 of 50."""
    write_trials(tmp_path, {"{}": CASES['{"case":"epochs agree"}']})
    with load_data(tmp_path) as db:
        agg = db.aggregate(mode="E_I")
        assert (agg["n"][0], agg["n_e"][0], agg["trials"][0], agg["samples"][0]) == (10.0, 6.0, 50.0, 10.0)
        assert (agg["low"][0], agg["high"][0]) == pytest.approx(ref_wilson(6, 10, Z95)[1:], abs=1e-12)
    assert ref_wilson(6, 10, Z95)[1:] == pytest.approx((0.313, 0.832), abs=1e-3)


def test_a_points_file_with_samples(tmp_path):
    write_csv(tmp_path / "points" / "a.csv", [
        {"model": "m", "template": "t", "sampler": "s", "base_task": "x", "params": {}, "total": 50, "correct": 30,
         "truncated": 0, "guess": 0, "tokens": 0, "samples": 10},
        {"model": "m", "template": "t", "sampler": "s", "base_task": "y", "params": {}, "total": 40, "correct": 20,
         "truncated": 0, "guess": 0, "tokens": 0, "samples": ""},
    ], columns=("model", "template", "sampler", "base_task", "params", "total", "correct", "truncated", "guess",
                "tokens", "samples"))
    with load_data(tmp_path) as db:
        assert stored(db) == {("m", "t", "s", "x", "{}"): (10, 5.0), ("m", "t", "s", "y", "{}"): (40, 1.0)}


@pytest.mark.parametrize("value, problem", [("0", "samples must be between 1 and total"),
                                            ("51", "samples must be between 1 and total"),
                                            ("2.5", "'samples' must be a whole number")])
def test_a_bad_samples_column(tmp_path, value, problem):
    from reasonboard.errors import InputError

    write_csv(tmp_path / "points" / "a.csv", [
        {"model": "m", "template": "t", "sampler": "s", "base_task": "x", "params": {}, "total": 50, "correct": 30,
         "truncated": 0, "guess": 0, "tokens": 0, "samples": value}],
        columns=("model", "template", "sampler", "base_task", "params", "total", "correct", "truncated", "guess",
                 "tokens", "samples"))
    with pytest.raises(InputError, match=problem):
        load_data(tmp_path).close()


# -- real logs with epochs -------------------------------------------------------------------


@pytest.mark.parametrize("log, samples, epochs", [(STREAMING, 2, 2), (AGENTIC, 1, 6)])
def test_real_logs_with_epochs_give_the_interval_of_their_samples(tmp_path, log, samples, epochs):
    run_ingest(IngestOptions(paths=(log,), data_dir=tmp_path))
    [path] = (tmp_path / "trials").glob("*.parquet")
    expected = plain_points(path)
    assert [len(p["samples"]) for p in expected.values()] == [samples]
    assert [p["n"] for p in expected.values()] == [samples * epochs]
    [(key, p)] = expected.items()
    with load_data(tmp_path) as db:
        agg = db.aggregate(group_by=("model", "template", "sampler", "base_task"), mode=["C_P", "E_I"])
    d = p["deff"]
    assert d > 1
    n, n_t, n_e, g = p["n"] / d, p["n_t"] / d, p["n_e"] / d, p["g"] / d
    for mode in ("C_P", "E_I"):
        want = ref_estimate(mode, n, n_t, n_e, g)
        got = (agg[f"{mode}_est"][0], agg[f"{mode}_low"][0], agg[f"{mode}_high"][0])
        assert got == pytest.approx(want, abs=1e-9)
    assert agg["trials"][0] == samples * epochs and agg["samples"][0] == samples


# -- the demo's simulated epochs ---------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_with_epochs(tmp_path_factory):
    data = tmp_path_factory.mktemp("epochs") / "data"
    demo.write_demo(data, models=18, seed=0)
    return data


def test_simulated_epochs_give_the_interval_of_their_samples(demo_with_epochs):
    data = demo_with_epochs
    [run] = [r for r in demo.build_roster(18, 0) if r.epochs > 1]
    from reasonboard.store.trialfiles import trials_file_name

    points = plain_points(data / "trials" / trials_file_name(run.model, run.template, run.sampler))
    by_task: dict[str, list[float]] = {}
    for key, p in points.items():
        assert len(p["samples"]) * run.epochs == p["n"]
        acc = by_task.setdefault(key[3], [0.0, 0.0, 0.0, 0.0, 0, 0])
        d = p["deff"]
        for i, name in enumerate(("n", "n_t", "n_e", "g")):
            acc[i] += p[name] / d
        acc[4] += p["n"]
        acc[5] += len(p["samples"])
    assert any(p["deff"] > 1.05 for p in points.values())  # hard items stay hard across epochs
    with load_data(data) as db:
        agg = db.aggregate(filters={"model": run.model, "sampler": run.sampler}, mode="C_P")
    for row in agg.rows():
        n, n_t, n_e, g, trials, samples = by_task[row["base_task"]]
        assert (row["trials"], row["samples"]) == (trials, samples)
        assert row["n"] == pytest.approx(n, abs=1e-6)
        want = ref_estimate("C_P", n, n_t, n_e, g)
        assert (row["est"], row["low"], row["high"]) == pytest.approx(want, abs=1e-6)
    widest = max(agg.rows(), key=lambda r: r["trials"] / r["n"])
    assert widest["trials"] / widest["n"] > 1.05


# -- one trial per sample: every number as before ------------------------------------------------


def board(db: PointsDB) -> dict[str, tuple]:
    result = compute_leaderboard(db, SiteConfig(), BANDS)
    return {m.id: (m.score, m.rank, m.avg_tokens, m.truncation_rate,
                   {t: (r.total, r.truncated, r.correct, r.estimate, r.low, r.high) for t, r in m.tasks.items()})
            for m in result.leaderboard.models}


def test_the_default_demo_gives_the_same_numbers_through_its_trials(tmp_path):
    """The committed default data (trials files) and the same simulation as points files
    give the same ReasonScores, ranks and task results byte for byte: one trial per sample
    is a design effect of 1."""
    write_demo_points(tmp_path, demo.DEFAULT_MODELS, demo.DEFAULT_SEED)
    with load_data(ROOT / "data") as db:
        from_trials = board(db)
        assert db.con.execute("SELECT count(*) FROM points WHERE deff <> 1 OR samples <> total").fetchone() == (0,)
    with load_data(tmp_path) as db:
        from_points = board(db)
    assert from_trials.keys() == from_points.keys() and len(from_trials) == 20
    for key in from_trials:
        assert from_trials[key] == from_points[key], key
    assert all(math.isfinite(v[0].center) for v in from_trials.values())
