"""ReasonScore v2, the bootstrap geometric mean (STATISTICS.md section 4).

The reference is a plain loop with Python's own Mersenne Twister (`random.Random`), a
different generator from the code's, so agreement means agreement in distribution
(tolerance 0.5 points, seed 001 "Bootstrap stability"), never in bytes.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_points import plain_bootstrap, ref_estimate, ref_geomean
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.stats.reasonscore import bootstrap_uniforms, geometric_mean, reasonscore_v2


def seedlike_models():
    """C_P bounds of four models on 12 tasks with 2000-4000 trials per task: ReasonScores from
    about 240 to 910 with margins of 5 to 9 points, the regime of seed 001's stability study
    (12 tasks, mid-tier margin 8.0)."""
    rng = np.random.default_rng(3)
    low, high = [], []
    for accuracy in (0.95, 0.75, 0.55, 0.3):
        lo, hi = [], []
        for j in range(12):
            n = int(rng.integers(2000, 4000))
            n_t = int(n * rng.uniform(0, 0.05))
            p = float(np.clip(accuracy + rng.normal(0, 0.12), 0.02, 0.995))
            g = (n - n_t) * 0.1 if j % 3 == 0 else 0.0  # every third task multiple choice
            n_e = max(int(round((n - n_t) * p)), int(g))
            _, l_, h_ = ref_estimate("C_P", n, n_t, n_e, g)
            lo.append(l_)
            hi.append(h_)
        low.append(lo)
        high.append(hi)
    return np.array(low), np.array(high)


LOW, HIGH = seedlike_models()
ALL = np.ones_like(LOW, dtype=bool)


def test_bootstrap_agrees_with_an_independent_implementation():
    scores = reasonscore_v2(LOW, HIGH, ALL)  # B = 5000, seed 42 by default
    for k in range(len(LOW)):
        center, margin = plain_bootstrap(LOW[k], HIGH[k])
        assert scores.center[k] == pytest.approx(center, abs=0.5)
        assert scores.margin[k] == pytest.approx(margin, abs=0.5)
        # Bounds then agree within 0.5 + 0.5 points.
        assert scores.ci_low[k] == pytest.approx(center - margin, abs=1.0)
        assert scores.ci_high[k] == pytest.approx(center + margin, abs=1.0)
    assert list(np.round(scores.center)) == [909, 689, 504, 243]  # the regime the fixture claims
    assert scores.margin.min() > 5 and scores.margin.max() < 10


def test_margins_vary_less_than_half_a_point_across_ten_seeds():
    margins = np.array([reasonscore_v2(LOW, HIGH, ALL, draws=5000, seed=s).margin for s in range(10)])
    spread = margins.max(axis=0) - margins.min(axis=0)
    assert (spread < 0.5).all(), spread
    centers = np.array([reasonscore_v2(LOW, HIGH, ALL, draws=5000, seed=s).center for s in range(10)])
    assert (centers.max(axis=0) - centers.min(axis=0) < 0.5).all()


def test_center_and_margin_are_defined_from_the_interval():
    s = reasonscore_v2(LOW, HIGH, ALL, draws=1000)
    assert np.allclose(s.center, (s.ci_low + s.ci_high) / 2) and np.allclose(s.margin, (s.ci_high - s.ci_low) / 2)


def test_order_statistics_are_taken_at_floor_0025b_and_floor_0975b():
    # One task: the geometric mean of a draw is the draw itself, so the interval must be
    # the draws' order statistics 125 and 4875 (B = 5000) of the module's own uniforms.
    low, high = 0.2, 0.6
    u = bootstrap_uniforms(1, 5000, 42)
    assert u.shape == (5000, 1) and (u >= 0).all() and (u < 1).all()
    x = np.sort(low + u[:, 0] * (high - low))
    s = reasonscore_v2(np.array([[low]]), np.array([[high]]), np.array([[True]]), draws=5000, seed=42)
    assert s.ci_low[0] == pytest.approx(1000 * x[125], abs=1e-9)
    assert s.ci_high[0] == pytest.approx(1000 * x[4875], abs=1e-9)
    # Uniform on [200, 600]: the 2.5 % and 97.5 % quantiles are 210 and 590.
    assert s.ci_low[0] == pytest.approx(210, abs=5) and s.ci_high[0] == pytest.approx(590, abs=5)


def test_same_seed_same_result_and_models_do_not_affect_each_other():
    a = reasonscore_v2(LOW, HIGH, ALL, draws=2000, seed=9)
    b = reasonscore_v2(LOW, HIGH, ALL, draws=2000, seed=9)
    assert np.array_equal(a.ci_low, b.ci_low) and np.array_equal(a.ci_high, b.ci_high)
    alone = reasonscore_v2(LOW[2:3], HIGH[2:3], ALL[2:3], draws=2000, seed=9)
    assert alone.ci_low[0] == a.ci_low[2] and alone.ci_high[0] == a.ci_high[2]


def test_incomplete_models_are_scored_over_the_tasks_they_have():
    present = ALL.copy()
    present[1, [0, 5, 11]] = False
    low, high = LOW.copy(), HIGH.copy()
    low[1, [0, 5, 11]] = np.nan       # whatever sits in an absent cell must not matter
    high[1, [0, 5, 11]] = -3.0
    s = reasonscore_v2(low, high, present)
    keep = present[1]
    center, margin = plain_bootstrap(LOW[1][keep], HIGH[1][keep])
    assert s.center[1] == pytest.approx(center, abs=0.5) and s.margin[1] == pytest.approx(margin, abs=0.5)
    # The complete models are untouched by another model's gaps.
    full = reasonscore_v2(LOW, HIGH, ALL)
    assert np.array_equal(np.delete(s.ci_low, 1), np.delete(full.ci_low, 1))
    # A model without any task has no score.
    none = reasonscore_v2(LOW[:1], HIGH[:1], np.zeros_like(ALL[:1]))
    assert np.isnan(none.ci_low[0]) and np.isnan(none.ci_high[0])


def test_floor_makes_the_range_10_to_1000():
    low = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 0.005, 0.0]])
    high = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.009, 0.0]])
    s = reasonscore_v2(low, high, np.ones((3, 3), dtype=bool), draws=500)
    assert s.ci_low[0] == pytest.approx(10.0, abs=1e-9) and s.ci_high[0] == pytest.approx(10.0, abs=1e-9)
    assert s.ci_low[1] == pytest.approx(1000.0, abs=1e-9) and s.ci_high[1] == pytest.approx(1000.0, abs=1e-9)
    # Floored bounds: the second task sits at 0.01 exactly, the third too.
    assert s.ci_low[2] >= 10.0 - 1e-9
    assert s.ci_high[2] <= 1000 * (1.0 * 0.01 * 0.01) ** (1 / 3) + 1e-9


@settings(max_examples=40, deadline=None)
@given(data=st.data(), models=st.integers(1, 4), tasks=st.integers(1, 6))
def test_scores_stay_in_range_and_ordered(data, models, tasks):
    unit = st.floats(0, 1)
    a = np.array(data.draw(st.lists(unit, min_size=models * tasks, max_size=models * tasks))).reshape(models, tasks)
    b = np.array(data.draw(st.lists(unit, min_size=models * tasks, max_size=models * tasks))).reshape(models, tasks)
    low, high = np.minimum(a, b), np.maximum(a, b)
    s = reasonscore_v2(low, high, np.ones_like(low, dtype=bool), draws=200, seed=1)
    assert (s.ci_low >= 10 - 1e-9).all() and (s.ci_high <= 1000 + 1e-9).all()
    assert (s.ci_low <= s.ci_high).all()
    # The interval lies between the all-low and the all-high geometric means (min/max bounds).
    floor_low, floor_high = np.maximum(low, 0.01), np.maximum(high, 0.01)
    for k in range(models):
        assert s.ci_low[k] >= 1000 * ref_geomean(floor_low[k]) - 1e-9
        assert s.ci_high[k] <= 1000 * ref_geomean(floor_high[k]) + 1e-9


def test_geometric_mean_helper():
    values = np.array([[0.95] * 11 + [0.05], [0.5, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])
    assert geometric_mean(values) == pytest.approx([ref_geomean(values[0]), 1.0], abs=1e-12)
    present = np.array([[True] * 6 + [False] * 6, [False] * 12])
    got = geometric_mean(values, present)
    assert got[0] == pytest.approx(0.95, abs=1e-12) and np.isnan(got[1])


@pytest.mark.parametrize("tasks", [1, 3, 7, 8, 9, 12, 16, 17, 31, 128, 129, 300])
def test_task_sums_are_numpys_sums_to_the_last_bit(tasks):
    """The bootstrap adds each draw's task logs slab by slab in numpy's pairwise order:
    the same bits as `np.sum` over the task axis, for every task count's branch."""
    from reasonboard.stats.reasonscore import _sum_tasks

    x = np.log(np.random.default_rng(tasks).random((2, 40, tasks)) + 0.01)
    assert np.array_equal(_sum_tasks(np.ascontiguousarray(np.moveaxis(x, -1, 0))), x.sum(axis=-1))


def test_bootstrap_bounds_equal_the_plain_array_reading():
    """The task-major bootstrap gives the bounds of the direct (models, draws, tasks) reading
    of section 4 (the same uniforms, np.log(...).sum(axis=2), partition), bit for bit."""
    rng = np.random.default_rng(7)
    low = rng.random((150, 12)) * 0.6
    high = low + rng.random((150, 12)) * 0.3
    present = rng.random((150, 12)) > 0.1
    present[3] = False
    got = reasonscore_v2(low, high, present, draws=1000, seed=5)
    u = bootstrap_uniforms(12, 1000, 5)
    lo = np.where(present, np.maximum(low, 0.01), 1.0)
    width = np.where(present, np.maximum(high, 0.01) - np.maximum(low, 0.01), 0.0)
    log_mean = np.log(lo[:, None, :] + u[None, :, :] * width[:, None, :]).sum(axis=2)
    log_mean /= np.maximum(present.sum(axis=1), 1)[:, None]
    ordered = np.sort(log_mean, axis=1)
    expected_low, expected_high = 1000.0 * np.exp(ordered[:, 25]), 1000.0 * np.exp(ordered[:, 975])
    expected_low[3] = expected_high[3] = np.nan
    assert np.array_equal(got.ci_low, expected_low, equal_nan=True)
    assert np.array_equal(got.ci_high, expected_high, equal_nan=True)
