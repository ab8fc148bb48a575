"""Pairwise win rates and Bradley–Terry strengths (STATISTICS.md section 8).

P(X_A > X_B) is checked against an independent integration of the two Beta densities
(written with math.lgamma on a fine grid in x), within the spec's 0.01; Bradley–Terry
against a plain MM loop and the maximum-likelihood stationarity condition.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers_points import Z95, ref_estimate
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.stats.pairwise import (
    beta_parameters,
    bradley_terry,
    neighbour_win_rates,
    pairwise,
    task_win_probability,
    win_rates,
)

GRID = 20_000


def ref_beta_masses(a: float, b: float) -> np.ndarray:
    """Mass of Beta(a, b) in each of GRID cells of u in (0, 1), x = (1 - cos(pi u)) / 2.

    The substitution makes dx vanish at the ends, which tames the density's poles at 0
    and 1 when a shape is below 1; the normalising constant comes from lgamma, not from
    the grid, so the masses summing to 1 checks the integration itself.
    """
    u = (np.arange(GRID) + 0.5) / GRID
    x = (1 - np.cos(np.pi * u)) / 2
    dx = np.pi / 2 * np.sin(np.pi * u) / GRID
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    with np.errstate(divide="ignore"):
        log_pdf = (a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - log_beta
    return np.exp(log_pdf) * dx


def ref_p_greater(aa: float, ba: float, ab: float, bb: float) -> float:
    """P(X_A > X_B) = ∫ f_A(x) F_B(x) dx on the common grid."""
    fa, fb = ref_beta_masses(aa, ba), ref_beta_masses(ab, bb)
    assert abs(fa.sum() - 1) < 3e-3 and abs(fb.sum() - 1) < 3e-3  # the grid resolves both
    fb_below = np.cumsum(fb) - fb / 2
    return float((fa * fb_below).sum() / (fa.sum() * fb.sum()))


def ref_beta_parameters(c: float, low: float, high: float) -> tuple[float, float]:
    """Section 8 when the moments admit a Beta with k >= 2 (the tests below stay there)."""
    sigma = (high - low) / 2 / Z95
    k = c * (1 - c) / sigma**2 - 1
    return c * k, (1 - c) * k


# -- Beta by moments --------------------------------------------------------------------------


def test_beta_parameters_match_the_moments():
    rows = [ref_estimate("C_P", n, nt, ne, g) for n, nt, ne, g in
            [(100, 5, 60, 10.0), (400, 0, 390, 0.0), (50, 20, 3, 0.0), (1000, 100, 450, 225.0), (12, 1, 6, 2.0)]]
    c, lo, hi = (np.array(v) for v in zip(*rows))
    alpha, beta = beta_parameters(c, lo, hi)
    for k in range(len(c)):
        a, b = ref_beta_parameters(c[k], lo[k], hi[k])
        assert (alpha[k], beta[k]) == pytest.approx((a, b), rel=1e-12)
        mean = alpha[k] / (alpha[k] + beta[k])
        var = alpha[k] * beta[k] / ((alpha[k] + beta[k]) ** 2 * (alpha[k] + beta[k] + 1))
        assert mean == pytest.approx(c[k], rel=1e-12)
        assert math.sqrt(var) == pytest.approx((hi[k] - lo[k]) / 2 / Z95, rel=1e-9)


def test_beta_parameters_cap_sigma_when_no_beta_fits():
    # Too wide for the center (k <= 0), zero width, and centers on 0 and 1.
    # c = 0.05 in [0, 0.9]: sigma^2 = 0.0527 > c(1-c) = 0.0475, so k = -0.1.
    c = np.array([0.05, 0.3, 0.0, 1.0, 0.5])
    lo = np.array([0.0, 0.3, 0.0, 0.9, 0.2])
    hi = np.array([0.9, 0.3, 0.1, 1.0, 0.8])
    alpha, beta = beta_parameters(c, lo, hi)
    assert (alpha > 0).all() and (beta > 0).all()
    assert (alpha + beta >= 2 - 1e-9).all()
    assert alpha[0] + beta[0] == pytest.approx(2.0)  # the cap sits exactly at k = 2
    assert (alpha / (alpha + beta)) == pytest.approx(np.clip(c, 1e-6, 1 - 1e-6), abs=1e-12)


# -- P(X_A > X_B) on a task -----------------------------------------------------------------


@pytest.mark.parametrize("aa, ba, ab, bb", [
    (2, 2, 2, 2), (10, 3, 3, 10), (50, 50, 55, 45), (0.5, 0.5, 1, 1), (0.6, 3, 2, 9),
    (300, 20, 280, 40), (2000, 100, 1900, 110), (1, 1, 1, 1), (0.3, 0.8, 0.7, 0.35),
])
def test_task_win_probability_matches_integration(aa, ba, ab, bb):
    got = task_win_probability(np.array([aa]), np.array([ba]), np.array([ab]), np.array([bb]))[0]
    assert got == pytest.approx(ref_p_greater(aa, ba, ab, bb), abs=0.01)


def test_task_win_probability_closed_forms():
    # Same distribution: 1/2. Uniform vs uniform: 1/2. Beta(2,1) (density 2x) vs uniform: 2/3.
    got = task_win_probability(np.array([7.0, 1.0, 2.0]), np.array([3.0, 1.0, 1.0]),
                               np.array([7.0, 1.0, 1.0]), np.array([3.0, 1.0, 1.0]))
    assert got == pytest.approx([0.5, 0.5, 2 / 3], abs=1e-3)


shape = st.floats(0.5, 400, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(shape, shape, shape, shape), min_size=1, max_size=5))
def test_task_win_probability_matches_integration_random(params):
    aa, ba, ab, bb = (np.array(v) for v in zip(*params))
    got = task_win_probability(aa, ba, ab, bb)
    for k in range(len(params)):
        assert got[k] == pytest.approx(ref_p_greater(*params[k]), abs=0.01)
    swapped = task_win_probability(ab, bb, aa, ba)
    assert got + swapped == pytest.approx(np.ones(len(params)), abs=1e-9)


# -- win-rate matrix ---------------------------------------------------------------------------


def task_bounds():
    """C_P (estimate, low, high) of four models on three tasks; model 3 lacks task 1."""
    counters = [
        [(200, 10, 150, 20.0), (80, 0, 70, 0.0), (300, 30, 100, 50.0)],
        [(200, 2, 140, 20.0), (80, 8, 40, 0.0), (300, 3, 250, 50.0)],
        [(50, 0, 10, 0.0), (40, 20, 10, 0.0), (30, 0, 29, 7.5)],
        [(200, 5, 180, 20.0), None, (300, 0, 200, 50.0)],
    ]
    est, low, high, present = (np.zeros((4, 3)) for _ in range(4))
    for i, row in enumerate(counters):
        for j, c in enumerate(row):
            if c is None:
                est[i, j], low[i, j], high[i, j] = np.nan, np.nan, np.nan
                continue
            est[i, j], low[i, j], high[i, j] = ref_estimate("C_P", *c)
            present[i, j] = 1
    return est, low, high, present.astype(bool)


def test_win_rates_average_independent_task_probabilities():
    est, low, high, present = task_bounds()
    rate, shared = win_rates(est, low, high, present)
    m = len(est)
    for a in range(m):
        assert np.isnan(rate[a, a]) and shared[a, a] == 0
        for b in range(m):
            if a == b:
                continue
            tasks = [j for j in range(3) if present[a, j] and present[b, j]]
            assert shared[a, b] == len(tasks)
            probs = [ref_p_greater(*ref_beta_parameters(est[a, j], low[a, j], high[a, j]),
                                   *ref_beta_parameters(est[b, j], low[b, j], high[b, j])) for j in tasks]
            assert rate[a, b] == pytest.approx(sum(probs) / len(probs), abs=0.01), (a, b)
            assert rate[a, b] + rate[b, a] == pytest.approx(1.0, abs=1e-12)
    assert shared[3].tolist() == [2, 2, 2, 0]


def test_pairwise_document_parts_and_neighbours():
    est, low, high, present = task_bounds()
    pw = pairwise(est, low, high, present)
    assert pw.expected_wins == pytest.approx(np.nansum(pw.win_rate, axis=1))
    assert pw.expected_wins.sum() == pytest.approx(len(est) * (len(est) - 1) / 2)
    assert math.exp(np.log(pw.strength).mean()) == pytest.approx(1.0, abs=1e-12)
    pairs, rates, shared = neighbour_win_rates(est, low, high, present, reach=2)
    got = {(int(a), int(b)): (r, s) for (a, b), r, s in zip(pairs, rates, shared)}
    expected_pairs = {(a, b) for a in range(4) for b in range(4) if a != b and abs(a - b) <= 2}
    assert set(got) == expected_pairs
    for (a, b), (r, s) in got.items():
        assert r == pytest.approx(pw.win_rate[a, b], abs=1e-9) and s == pw.tasks_shared[a, b]


def test_no_shared_task_gives_no_rate():
    est = np.array([[0.5, np.nan], [np.nan, 0.5]])
    rate, shared = win_rates(est, est - 0.1, est + 0.1, ~np.isnan(est))
    assert np.isnan(rate).all() and (shared == 0).all()


# -- Bradley–Terry ----------------------------------------------------------------------------


def plain_mm(w: np.ndarray, iterations: int = 200_000, tol: float = 1e-13) -> np.ndarray:
    """Hunter's (2004) MM update from equal strengths, loop over models, geometric mean 1."""
    m = len(w)
    pi = [1.0] * m
    for _ in range(iterations):
        new = []
        for a in range(m):
            wins = sum(w[a][b] for b in range(m) if b != a)
            denom = sum((w[a][b] + w[b][a]) / (pi[a] + pi[b]) for b in range(m) if b != a)
            new.append(wins / denom)
        g = math.exp(sum(math.log(v) for v in new) / m)
        new = [v / g for v in new]
        change = max(abs(x - y) / y for x, y in zip(new, pi))
        pi = new
        if change < tol:
            break
    return np.array(pi)


def stationarity_residual(w: np.ndarray, pi: np.ndarray) -> float:
    """max_A |W_A - Σ_B n_AB π_A / (π_A + π_B)|: zero at the likelihood maximum."""
    m = len(w)
    worst = 0.0
    for a in range(m):
        wins = sum(w[a][b] for b in range(m) if b != a)
        expected = sum((w[a][b] + w[b][a]) * pi[a] / (pi[a] + pi[b]) for b in range(m) if b != a)
        worst = max(worst, abs(wins - expected))
    return worst


def win_matrix(upper: list[float], m: int) -> np.ndarray:
    w = np.full((m, m), np.nan)
    k = 0
    for a in range(m):
        for b in range(a + 1, m):
            w[a, b], w[b, a] = upper[k], 1 - upper[k]
            k += 1
    return w


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 7).flatmap(
    lambda m: st.lists(st.floats(0.03, 0.97), min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2)
    .map(lambda upper: win_matrix(upper, m))))
def test_bradley_terry_matches_plain_mm_and_is_stationary(w):
    pi, iterations = bradley_terry(w)
    assert iterations >= 1
    assert math.exp(np.log(pi).mean()) == pytest.approx(1.0, abs=1e-12)
    w0 = np.nan_to_num(w)
    assert stationarity_residual(w0, pi) < 1e-7
    assert pi == pytest.approx(plain_mm(w0), rel=1e-6)
    # A full round robin with one comparison per pair: strengths order like total wins.
    wins = np.nansum(w, axis=1)
    order = np.argsort(-wins, kind="stable")
    assert all(pi[order[k]] >= pi[order[k + 1]] - 1e-9 for k in range(len(pi) - 1)
               if wins[order[k]] > wins[order[k + 1]] + 1e-9)


def test_bradley_terry_with_missing_comparisons_and_spread_strengths():
    # A chain a > b > c > d with some pairs never compared, strengths far apart.
    w = np.full((4, 4), np.nan)
    for a, b, p in [(0, 1, 0.95), (1, 2, 0.9), (2, 3, 0.97), (0, 2, 0.99)]:
        w[a, b], w[b, a] = p, 1 - p
    pi, _ = bradley_terry(w)
    w0 = np.nan_to_num(w)
    assert stationarity_residual(w0, pi) < 1e-7
    assert pi == pytest.approx(plain_mm(w0), rel=1e-6)
    assert list(np.argsort(-pi)) == [0, 1, 2, 3]


def test_bradley_terry_hand_worked():
    # Two models, A beats B with probability 0.8: π_A / π_B = 0.8 / 0.2 = 4, geometric mean 1.
    pi, _ = bradley_terry(np.array([[np.nan, 0.8], [0.2, np.nan]]))
    assert pi == pytest.approx([2.0, 0.5], rel=1e-9)


def test_grids_in_blocks_equal_the_whole_array_expression(monkeypatch):
    """`_grids` works through blocks of rows in place; every row must hold the bits of the
    plain whole-array reading (midpoints, log density, normalised masses, CDF)."""
    from reasonboard.stats import pairwise as pw

    rng = np.random.default_rng(4)
    alpha = np.concatenate([rng.random(40) * 50 + 0.2, [0.3, 0.05]])
    beta = np.concatenate([rng.random(40) * 50 + 0.2, [2.0, 0.4]])
    monkeypatch.setattr(pw, "GRID_BLOCK", 3 * 64 + 5)  # three rows a block, the last one short
    got = pw._grids(alpha, beta, 64)
    mean, sd = pw._logit_moments(alpha, beta)
    lo = mean - pw.SPAN * sd
    width = 2.0 * pw.SPAN * sd / 64
    mid = lo[:, None] + (np.arange(64) + 0.5)[None, :] * width[:, None]
    log_pdf = alpha[:, None] * mid - (alpha + beta)[:, None] * np.logaddexp(0.0, mid)
    log_pdf -= log_pdf.max(axis=1, keepdims=True)
    weights = np.exp(log_pdf)
    weights /= weights.sum(axis=1, keepdims=True)
    edges = np.concatenate([np.zeros((len(alpha), 1)), np.cumsum(weights, axis=1)], axis=1)
    for name, expected in (("lo", lo), ("width", width), ("mid", mid), ("weights", weights), ("edges", edges)):
        assert np.array_equal(getattr(got, name), expected), name


def test_beats_in_place_equals_the_plain_expression(monkeypatch):
    """`_beats` reuses its temporaries and gathers by flat index; every probability must be
    the bits of the plain reading (interpolated CDF of the wider at the narrower's midpoints)."""
    from reasonboard.stats import pairwise as pw

    rng = np.random.default_rng(9)
    alpha = np.concatenate([rng.random(60) * 80 + 0.2, [0.3, 0.05, 400.0]])
    beta = np.concatenate([rng.random(60) * 80 + 0.2, [2.0, 0.4, 1.0]])
    g = pw._grids(alpha, beta, 32)
    a, b = rng.integers(0, len(alpha), 500), rng.integers(0, len(alpha), 500)
    monkeypatch.setattr(pw, "CHUNK", 128)  # several chunks, the last one short
    got = pw._beats(g, a, b)
    a_narrow = g.sd[a] <= g.sd[b]
    n, w = np.where(a_narrow, a, b), np.where(a_narrow, b, a)
    pos = (g.mid[n] - g.lo[w][:, None]) / g.width[w][:, None]
    cell = np.clip(np.floor(pos).astype(np.int64), 0, 31)
    frac = np.clip(pos - cell, 0.0, 1.0)
    cdf = g.edges[w[:, None], cell] + frac * g.weights[w[:, None], cell]
    cdf = np.where(pos < 0, 0.0, np.where(pos >= 32, 1.0, cdf))
    n_beats_w = np.einsum("ij,ij->i", g.weights[n], cdf)
    assert np.array_equal(got, np.where(a_narrow, n_beats_w, 1.0 - n_beats_w))
