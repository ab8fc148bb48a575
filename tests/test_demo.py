"""Tests for the demo simulator (`builder/demo.py`) and the committed default demo data.

Statistical checks compare the simulator with its stated model through computations written
out here: a plain Monte Carlo of the trial model, plain Wilson intervals, and a plain
bootstrap ReasonScore (STATISTICS.md sections 1, 2 and 4).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import duckdb
import numpy as np
import pytest
from click.testing import CliRunner
from helpers_points import duck_rows, parquet_rows
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard import demo, demoworld
from reasonboard.sources.evals import EVAL_KEYS, read_evals
from reasonboard.store.ingest import ingest_evals, ingest_points
from reasonboard.store.pointsdb import PointsDB
from reasonboard.store.trialfiles import discover_trial_files, trials_file_name

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO / "data"
Z95 = 1.959963984540054
Z975 = 2.241402727604947


@pytest.fixture(scope="module")
def default() -> demo.DemoData:
    return demo.simulate(16, 0)


def wilson(s, t, z):
    """STATISTICS.md section 1, written plainly (arrays welcome)."""
    s, t = np.asarray(s, dtype=float), np.asarray(t, dtype=float)
    safe_t = np.where(t > 0, t, 1.0)
    p = np.clip(s, 0, safe_t) / safe_t
    d = 1 + z * z / safe_t
    center = (p + z * z / (2 * safe_t)) / d
    margin = z * np.sqrt(p * (1 - p) / safe_t + z * z / (4 * safe_t * safe_t)) / d
    center, margin = np.where(t > 0, center, 0.5), np.where(t > 0, margin, 0.5)
    return center - margin, center + margin


# -- random streams ---------------------------------------------------------------------


def test_streams_are_reproducible_and_independent():
    a = demoworld.stream(7, "model", 3).random(5)
    assert np.array_equal(a, demoworld.stream(7, "model", 3).random(5))
    assert not np.array_equal(a, demoworld.stream(7, "model", 4).random(5))
    assert not np.array_equal(a, demoworld.stream(8, "model", 3).random(5))
    assert np.isfinite(demoworld.stream(-5, "x").random())  # negative seeds are accepted


def test_box_muller_normals_are_standard():
    z = demoworld.normals(demoworld.stream(1, "normals"), 200_001)
    assert len(z) == 200_001
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    for x in (-1.5, 0.0, 1.0, 2.0):  # empirical CDF against the normal CDF
        assert abs((z < x).mean() - 0.5 * math.erfc(-x / math.sqrt(2))) < 0.004


# -- task catalogue ---------------------------------------------------------------------


def test_twelve_tasks_with_two_coordinate_grids():
    assert len(demoworld.TASKS) == 12 and len(set(demoworld.TASK_NAMES)) == 12
    for spec in demoworld.TASKS:
        grid = demoworld.GRIDS[spec.name]
        assert len(spec.axes) == 2 and all(3 <= len(v) <= 5 for _, v in spec.axes)
        assert 10 <= len(grid.params) <= 25
        assert len(grid.params) == math.prod(len(v) for _, v in spec.axes)
        assert len(set(grid.params)) == len(grid.params)
        for text in grid.params:
            coords = json.loads(text)
            assert text == json.dumps(coords, sort_keys=True, separators=(",", ":"))
            assert set(coords) == {name for name, _ in spec.axes}
        assert grid.difficulty.min() == 0 and grid.difficulty.max() == 1


def test_tiers_follow_overlapping_difficulty_bands():
    two_tiers = 0
    for grid in demoworld.GRIDS.values():
        for d, tiers in zip(grid.difficulty, grid.tiers):
            expected = [t for t, lo, hi in (("easy", 0, 0.4), ("medium", 0.3, 0.7), ("hard", 0.6, 1))
                        if lo - 1e-9 <= d <= hi + 1e-9]
            assert list(tiers) == expected and tiers
            two_tiers += len(tiers) == 2
        assert {t for ts in grid.tiers for t in ts} == {"easy", "medium", "hard"}
    assert two_tiers > 0


def test_option_counts():
    shuffle = demoworld.GRIDS["shuffle"]
    objects = [json.loads(p)["objects"] for p in shuffle.params]
    assert shuffle.options_low.tolist() == objects == shuffle.options_high.tolist()
    assert set(demoworld.GRIDS["boolean"].options_low.tolist()) == {2}
    assert demoworld.GRIDS["arithmetic"].options_high.max() == 0  # write-in


# -- roster -----------------------------------------------------------------------------


def test_roster_is_prefix_stable():
    small = demoworld.build_roster(16, 3)
    large = [r for r in demoworld.build_roster(23, 3) if r.index < 16]
    assert [r.evals_entry() for r in small] == [r.evals_entry() for r in large]
    assert [(r.ability, r.skills) for r in small] == [(r.ability, r.skills) for r in large]


def test_names_stay_unique_for_large_rosters():
    runs = demoworld.build_roster(300, 11)
    assert len({(r.model, r.template, r.sampler) for r in runs}) == len(runs)
    models = {r.model for r in runs}
    assert len(models) == 300 and len({demo.model_slug(m) for m in models}) == 300
    assert all(demo.model_slug(m) == m for m in models)


def test_default_roster_exercises_the_site(default):
    runs = [e.evaluation for e in default.evaluations]
    incomplete = [r for r in runs if len(r.tasks) < 12]
    assert len(incomplete) == 1 and len(incomplete[0].tasks) == 11
    per_model = Counter(r.model for r in runs)
    doubles = [m for m, c in per_model.items() if c == 2]
    assert len(doubles) >= 2
    for m in doubles:  # two samplers, same template
        pair = [r for r in runs if r.model == m]
        assert pair[0].template == pair[1].template and pair[0].sampler != pair[1].sampler
    relationships = Counter(r.relationship for r in runs)
    assert relationships["third_party"] > relationships["first_party"] >= 2
    assert 1 <= sum("max_tokens" not in r.generation_args for r in runs) <= 2
    assert any(r.verbosity > 3 for r in runs) and any(r.verbosity < 2 for r in runs)


def test_evals_entries(default):
    for entry in default.evals:
        assert set(entry) <= EVAL_KEYS
        assert entry["simulated"] is True
        assert entry["relationship"] in ("first_party", "third_party", "collaborative")
        assert entry["hf_id"].startswith("demo-") and entry["organization"] and entry["label"]
        assert entry["generation_args"].get("max_tokens", demoworld.SAMPLERS[entry["sampler"]]["max_tokens"]) \
            == demoworld.SAMPLERS[entry["sampler"]]["max_tokens"]


# -- simulated counters -------------------------------------------------------------------


def assert_valid(points: demo.SimulatedPoints) -> None:
    n, nt, ne, g, tok = points.total, points.truncated, points.correct, points.guess, points.tokens
    nu = n - nt
    assert set(n.tolist()) <= {64, 128}
    assert (nt >= 0).all() and (nt <= n).all()
    assert (ne >= 0).all() and (ne <= nu).all()
    write_in = points.options_low == 0
    assert (g[write_in] == 0).all()
    mc = ~write_in
    # each completed multiple-choice trial adds 1/k with k in [low, high]
    assert (g[mc] <= nu[mc] / points.options_low[mc] + 1e-9).all()
    assert (g[mc] >= nu[mc] / points.options_high[mc] - 1e-9).all()
    # a truncated trial costs the whole budget, a completed one between 1 and the budget
    assert (tok >= nt * points.limit + nu).all() and (tok <= n * points.limit).all()


def test_default_counters_are_valid(default):
    assert default.points == sum(len(e) for e in default.evaluations)
    for points in default.evaluations:
        assert_valid(points)
        assert len(points) == sum(len(demoworld.GRIDS[t].params) for t in points.evaluation.tasks)


@settings(max_examples=15, deadline=None)
@given(models=st.integers(1, 4), seed=st.integers(-(2**40), 2**40))
def test_counters_are_valid_for_any_seed(models, seed):
    for points in demo.simulate(models, seed).evaluations:
        assert_valid(points)


def test_truth_agrees_with_a_plain_monte_carlo(default):
    """The quadrature rates against the trial model simulated here from its description."""
    points = next(e for e in default.evaluations if e.evaluation.max_tokens == 16384)
    exact = demo.truth(points)
    rng = np.random.default_rng(12345)
    trials = 40_000
    checked = 0
    for i in np.flatnonzero((exact.truncated > 0.02) | (points.options_low > 0))[:12]:
        u, e = rng.standard_normal(trials), rng.standard_normal(trials)
        tok = np.exp(points.log_tokens[i] + points.sigma * (0.5 * u + math.sqrt(0.75) * e))
        completed = tok <= points.limit
        knows = rng.random(trials) < 1 / (1 + np.exp(-(points.logit[i] - 0.8 * u)))
        k = rng.integers(points.options_low[i], points.options_high[i] + 1, trials) if points.options_low[i] else None
        p_t = 1 - completed.mean()
        assert abs(exact.truncated[i] - p_t) < 5 * math.sqrt(p_t * (1 - p_t) / trials) + 1e-3
        q = knows[completed].mean()
        assert abs(exact.knows_completed[i] - q) < 5 * math.sqrt(q * (1 - q) / completed.sum()) + 1e-3
        if k is not None:
            assert abs(exact.guess[i] - (1 / k).mean()) < 0.005
        checked += 1
    assert checked == 12


def test_simulated_counts_match_their_truth(default):
    """Binomial residuals of every point against the exact rates: the simulator draws what
    it says it draws (a chi-square per degree of freedom near 1), and plain 95 % Wilson
    intervals cover the true completed accuracy about 95 % of the time."""
    z_trunc, z_correct, covered, count = [], [], 0, 0
    for points in default.evaluations:
        exact = demo.truth(points)
        n, nt, ne = points.total, points.truncated, points.correct
        nu = n - nt
        p = exact.truncated
        ok = (p > 1e-3) & (p < 1 - 1e-3)
        z_trunc.append((nt[ok] - n[ok] * p[ok]) / np.sqrt(n[ok] * p[ok] * (1 - p[ok])))
        q = exact.correct_completed
        ok = (nu > 0) & (q > 1e-3) & (q < 1 - 1e-3)
        z_correct.append((ne[ok] - nu[ok] * q[ok]) / np.sqrt(nu[ok] * q[ok] * (1 - q[ok])))
        low, high = wilson(ne, nu, Z95)
        inside = (low <= q) & (q <= high)
        covered += int(inside[nu > 0].sum())
        count += int((nu > 0).sum())
    for z in (np.concatenate(z_trunc), np.concatenate(z_correct)):
        assert len(z) > 300
        assert abs(z.mean()) < 0.1
        assert 0.85 < (z * z).mean() < 1.15
    assert 0.93 < covered / count < 0.97


def test_truncation_censors_the_hard_trials(default):
    """Truncated trials are the hard ones, so accuracy among completed trials exceeds the
    accuracy a run with no limit would show: E_I reads above C_P's target."""
    points = max(default.evaluations, key=lambda e: e.truncated.sum() / e.total.sum())
    assert points.truncated.sum() / points.total.sum() > 0.05
    exact = demo.truth(points)
    unlimited = demo.truth(demo.SimulatedPoints(**{**points.__dict__, "limit": 10**12}))
    hit = exact.truncated > 0.05
    assert (exact.knows_completed[hit] > unlimited.knows_completed[hit]).all()


# -- files -------------------------------------------------------------------------------


def read_dir(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_write_demo_is_byte_identical_and_loads(tmp_path):
    first = demo.write_demo(tmp_path / "a", models=5, seed=9)
    demo.write_demo(tmp_path / "b", models=5, seed=9)
    assert read_dir(tmp_path / "a") == read_dir(tmp_path / "b")
    demo.write_demo(tmp_path / "c", models=5, seed=10)
    assert read_dir(tmp_path / "a") != read_dir(tmp_path / "c")
    assert first.models == 5 and len(first.files) == first.evaluations + 1  # a trials file each and evals.json

    root = tmp_path / "a"
    assert not (root / "points").exists()
    with PointsDB() as db:
        report = ingest_points(db, discover_trial_files(root), root)
        ingest_evals(db, read_evals(root / "evals.json"))
        assert report.points == first.points and report.duplicates == 0 and not report.warnings
        evaluations = db.evaluations()
        assert len(evaluations) == first.evaluations and all(e["simulated"] for e in evaluations)
        sums = db.con.execute("SELECT sum(total), sum(correct), sum(truncated), sum(tokens) FROM points").fetchone()
    data = demo.simulate(5, 9)
    expected = [sum(int(getattr(e, c).sum()) for e in data.evaluations) for c in ("total", "correct", "truncated", "tokens")]
    assert [int(x) for x in sums] == expected


def plain_trials(path: Path) -> list[dict]:
    """A trials file's rows, read plainly (DuckDB only as the Parquet reader)."""
    return parquet_rows(path)


def test_trials_files_sum_to_the_simulated_points(tmp_path):
    """Each evaluation's trials file, summed by hand, gives the simulator's points (guesses to
    the CSV's six decimals), one trial per sample except for the evaluations with epochs."""
    demo.write_demo(tmp_path, models=18, seed=0)
    data = demo.simulate(18, 0)
    with_epochs = 0
    for points in data.evaluations:
        run = points.evaluation
        rows = plain_trials(tmp_path / "trials" / trials_file_name(run.model, run.template, run.sampler))
        keys = [(r["base_task"], r["params"], r["sample_id"], r["epoch"]) for r in rows]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        assert {(r["model"], r["template"], r["sampler"]) for r in rows} == {(run.model, run.template, run.sampler)}
        sums: dict = {}
        for r in rows:
            assert r["correct"] == (r["credit"] >= 1 and not r["truncated"])
            s = sums.setdefault((r["base_task"], r["params"]), [0, 0, 0, 0.0, 0, set(), set()])
            s[0] += 1
            s[1] += r["correct"]
            s[2] += r["truncated"]
            s[3] += 1 / r["options"] if r["options"] and not r["truncated"] else 0.0
            s[4] += r["tokens"]
            s[5].add(r["sample_id"])
            s[6].add(r["tiers"])
        for i, key in enumerate(zip(points.task, points.params)):
            total, correct, truncated, guess, tokens, samples, tiers = sums[key]
            assert (total, correct, truncated, tokens) == (points.total[i], points.correct[i], points.truncated[i],
                                                           points.tokens[i])
            assert demo.format_guess(guess) == demo.format_guess(points.guess[i])
            assert tiers == {";".join(points.tiers[i])}
            assert total == len(samples) * run.epochs
        with_epochs += run.epochs > 1
    assert with_epochs == 1  # model 17 of 18


def test_rerun_with_fewer_models_removes_only_stale_demo_files(tmp_path):
    demo.write_demo(tmp_path, models=6, seed=2)
    mine = tmp_path / "trials" / "real-results.parquet"
    mine.write_bytes(b"not the demo's")
    old = tmp_path / "points" / f"{demo.model_slug(demoworld.build_roster(6, 2)[0].model)}.csv"
    old.parent.mkdir()
    old.write_text("written by an earlier demo")
    demo.write_demo(tmp_path, models=3, seed=2, force=True)
    written = {p.name for p in (tmp_path / "trials").glob("*.parquet")}
    assert written == {trials_file_name(r.model, r.template, r.sampler) for r in demoworld.build_roster(3, 2)} | {
        "real-results.parquet"}
    assert not old.exists()


def test_guess_formatting():
    assert demo.format_guess(0.0) == "0"
    assert demo.format_guess(12.5) == "12.5"
    assert demo.format_guess(31 / 3) == "10.333333"
    assert demo.format_guess(2.0000001) == "2"


def test_cli_demo_command(tmp_path):
    from reasonboard.cli import main

    result = CliRunner().invoke(main, ["demo", "--models", "3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "simulated models" in result.output
    assert (tmp_path / "evals.json").is_file()


# -- the committed default data -----------------------------------------------------------


def test_committed_default_data_is_the_simulator_output(tmp_path):
    """`data/trials` and `data/evals.json` are exactly `reasonboard demo --models 16 --out data`:
    byte for byte when the installed DuckDB is the version that wrote the committed files
    (a Parquet footer names its writer), row for row in file order with any other."""
    demo.write_demo(tmp_path, models=demo.DEFAULT_MODELS, seed=demo.DEFAULT_SEED)
    committed = {p.name: p.read_bytes() for p in sorted((DEFAULT_DATA / "trials").glob("*.parquet"))}
    regenerated = {p.name: p.read_bytes() for p in sorted((tmp_path / "trials").glob("*.parquet"))}
    assert committed.keys() == regenerated.keys()
    fix = "regenerate with: reasonboard demo --models 16 --out data --force"
    if writer(DEFAULT_DATA / "trials") == writer(tmp_path / "trials"):
        assert committed == regenerated, fix
    for name in committed:
        assert file_rows(DEFAULT_DATA / "trials" / name) == file_rows(tmp_path / "trials" / name), fix
    assert (DEFAULT_DATA / "evals.json").read_bytes() == (tmp_path / "evals.json").read_bytes()
    assert sum(map(len, committed.values())) < 2_000_000


def writer(folder: Path) -> set[str]:
    """The `created_by` of every Parquet file in `folder`."""
    query = "SELECT DISTINCT created_by FROM parquet_file_metadata(?)"
    # A connection of its own, closed: duckdb's module-level one would keep its threads for
    # the rest of the test session, beside every later fork of the render pool.
    with duckdb.connect() as con:
        return {r[0] for r in con.execute(query, [str(folder / "*.parquet")]).fetchall()}


def file_rows(path: Path) -> tuple[list[tuple], list[tuple]]:
    """A Parquet file's schema and its rows in file order."""
    return (duck_rows("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)])[1],
            duck_rows("SELECT * FROM read_parquet(?)", [str(path)])[1])


def test_default_leaderboard_has_leaders_ties_and_a_weak_tail():
    """ReasonScores of the committed data computed plainly (C_P per task from summed
    counters, bootstrap geometric mean): every band from near-perfect to catastrophic, both
    tied and distinct neighbours, one incomplete evaluation."""
    sums: dict[tuple, dict[str, np.ndarray]] = {}
    for path in sorted((DEFAULT_DATA / "trials").glob("*.parquet")):
        for r in plain_trials(path):
            acc = sums.setdefault((r["model"], r["template"], r["sampler"]), {}).setdefault(r["base_task"], np.zeros(5))
            completed = not r["truncated"]
            acc += [1, r["correct"], r["truncated"], 1 / r["options"] if r["options"] and completed else 0, r["tokens"]]
    tasks = sorted({t for per_task in sums.values() for t in per_task})
    assert len(tasks) == 12
    rng = np.random.default_rng(42)
    scores = {}
    for key, per_task in sums.items():
        n, ne, nt, g, _ = np.array([per_task[t] for t in sorted(per_task)]).T
        a_low, a_high = wilson(ne - g, n - nt - g, Z975)
        u_low, u_high = wilson(n - nt, n, Z975)
        low, high = np.maximum(a_low * u_low, 0.01), np.maximum(a_high * u_high, 0.01)
        x = low + rng.random((5000, len(low))) * (high - low)
        gm = np.sort(np.exp(np.log(x).mean(axis=1)))
        scores[key] = (1000 * gm[125], 1000 * gm[4875], len(per_task) == 12)
    assert sum(not complete for *_, complete in scores.values()) == 1
    ranked = sorted(((lo + hi) / 2, lo, hi) for lo, hi, complete in scores.values() if complete)[::-1]
    centers = [c for c, _, _ in ranked]
    bands = {next(i for i, edge in enumerate((900, 700, 500, 300, 100, 0)) if c >= edge) for c in centers}
    assert bands == set(range(6)), centers
    adjacent_tied = [ranked[i + 1][2] >= ranked[i][1] for i in range(len(ranked) - 1)]
    assert any(adjacent_tied) and not all(adjacent_tied)
    assert all(hi - lo < 40 for _, lo, hi in ranked)  # margins below +-20


# -- a data directory that is not empty is refused ---------------------


def test_demo_refuses_a_directory_that_holds_data(tmp_path):
    from reasonboard.cli import main

    data = tmp_path / "data"
    (data / "points").mkdir(parents=True)
    evals = b'[{"model": "aurora-70b", "template": "zerocot", "sampler": "greedy-8k"}]\n'
    (data / "evals.json").write_bytes(evals)
    (data / "points" / "aurora-70b.csv").write_text("model,template\n", encoding="utf-8")
    before = sorted(p.relative_to(data) for p in data.rglob("*"))

    result = CliRunner().invoke(main, ["demo", "--models", "3", "--out", str(data)])
    assert result.exit_code == 2
    assert result.output == (f"error: {data}: the directory is not empty (evals.json, points); the demo would replace its "
                             "evals.json and put simulated points beside its own. Choose a new or empty directory, "
                             "or pass --force\n")
    assert (data / "evals.json").read_bytes() == evals
    assert sorted(p.relative_to(data) for p in data.rglob("*")) == before


def test_demo_force_writes_into_a_directory_that_holds_data(tmp_path):
    from reasonboard.cli import main

    (tmp_path / "notes.txt").write_text("mine\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["demo", "--models", "3", "--out", str(tmp_path), "--force"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    entries = json.loads((tmp_path / "evals.json").read_text(encoding="utf-8"))
    assert {e["model"] for e in entries} == {r.model for r in demoworld.build_roster(3, 0)}


def test_demo_into_a_new_or_empty_directory_needs_no_force(tmp_path):
    from reasonboard.cli import main

    for out in (tmp_path / "new" / "data", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        result = CliRunner().invoke(main, ["demo", "--models", "3", "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert (out / "evals.json").is_file()
