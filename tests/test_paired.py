"""Paired comparisons (SAMPLES.md section 5) against independent plain-Python computations:
exact McNemar from binomial sums in integers, the bootstrap as a loop over replicates and
items, Holm on a worked example, the design effect from its formula."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from reasonboard.stats import paired, resample
from reasonboard.stats.paired import Side, Stratum

Z975 = 2.241402727604947


# -- plain references ----------------------------------------------------------------------

def plain_mcnemar(b: int, c: int) -> float:
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(min(b, c) + 1))
    return float(min(Fraction(1), 2 * tail))


def plain_wilson_center(s: float, t: float) -> float:
    if t <= 0:
        return 0.5
    s = min(max(s, 0.0), t)
    p = s / t
    z2 = Z975 * Z975
    return (p + z2 / (2 * t)) / (1 + z2 / t)


def plain_cp(n: float, nt: float, ne: float, g: float) -> float:
    nu = n - nt
    return plain_wilson_center(ne - g, nu - g) * plain_wilson_center(nu, n)


def plain_effective(items: list[tuple[int, int, int, float]]) -> tuple[float, float, float, float]:
    """SAMPLES.md section 2 for one point: items are (trials, correct, truncated, guess)."""
    big_c = len(items)
    n = sum(m for m, _, _, _ in items)
    nt = sum(t for _, _, t, _ in items)
    ne = sum(e for _, e, _, _ in items)
    g = sum(x for _, _, _, x in items)
    mbar = n / big_c
    if big_c < 2:
        deff = mbar
    else:
        deffs = []
        for col in (1, 2):
            y = [it[col] for it in items]
            p = sum(y) / n
            v_srs = p * (1 - p) / n
            if v_srs > 0:
                v_cl = big_c / (big_c - 1) * sum((yi - it[0] * p) ** 2 for yi, it in zip(y, items)) / n**2
                deffs.append(min(max(v_cl / v_srs, 1.0), mbar))
        deff = max(deffs) if deffs else mbar
    return n / deff, nt / deff, ne / deff, g / deff


def side(items: list[tuple[int, int, int, float]]) -> Side:
    cols = list(zip(*items))
    return Side(np.array(cols[0]), np.array(cols[1]), np.array(cols[2]), np.array(cols[3], dtype=float))


def plain_task(seed: int, task: str, strata: list[tuple[str, list[str], list, list]], draws: int):
    """Replicate C_P centers and mean-x sums of both sides, one replicate and one draw at a time."""
    rngs = [resample.generator(seed, "paired", task, params, resample.items_digest(ids)) for params, ids, _, _ in strata]
    # Each stratum's stream gives its whole matrix row by row: draw all rows of one stratum first.
    picks = []
    for (params, ids, _, _), rng in zip(strata, rngs):
        size = len(ids)
        picks.append([[min(int(rng.random() * size), size - 1) for _ in range(size)] for _ in range(draws)])

    def centers(which: int, rows: list[list[int]] | None):
        eff = [0.0, 0.0, 0.0, 0.0]
        xsum = 0.0
        for k, stratum in enumerate(strata):
            items = stratum[2 + which]
            chosen = list(range(len(items))) if rows is None else rows[k]
            drawn = [items[i] for i in chosen]
            eff = [a + b for a, b in zip(eff, plain_effective(drawn))]
            xsum += sum(it[1] / it[0] for it in drawn)
        return plain_cp(*eff), xsum

    obs = (centers(0, None)[0], centers(1, None)[0])
    reps = []
    for r in range(draws):
        rows = [p[r] for p in picks]
        (ca, xa), (cb, xb) = centers(0, rows), centers(1, rows)
        reps.append((ca, cb, xa - xb))
    return obs, reps


def make_strata(spec):
    return [Stratum(params, tuple(ids), side(a), side(b)) for params, ids, a, b in spec]


def random_spec(rng: random.Random, strata: int, epochs: int, size: int):
    spec = []
    for s in range(strata):
        ids = [f"q{s}-{i:03d}" for i in range(size + s)]
        sides = []
        for skill in (0.7, 0.5):
            items = []
            for _ in ids:
                m = epochs if epochs == 1 else rng.randint(1, epochs)
                t = sum(rng.random() < 0.1 for _ in range(m))
                e = sum(rng.random() < skill for _ in range(m - t))
                opts = rng.choice([0, 2, 4])
                items.append((m, e, t, (m - t) / opts if opts else 0.0))
            sides.append(items)
        spec.append((f'{{"level": {s}}}', ids, sides[0], sides[1]))
    return spec


# -- McNemar ---------------------------------------------------------------------------------

@pytest.mark.parametrize("b, c", [(0, 0), (0, 5), (5, 0), (2, 10), (10, 0), (7, 7), (12, 30), (400, 480), (1500, 1650)])
def test_mcnemar_matches_binomial_sums(b, c):
    assert paired.mcnemar_p(b, c) == pytest.approx(plain_mcnemar(b, c), rel=1e-12, abs=1e-300)


def test_mcnemar_hand_tables():
    # 0 vs 5 discordant: 2 * (1/32); 2 vs 10: 2 * (1 + 12 + 66) / 4096; equal counts: 1.
    assert paired.mcnemar_p(0, 5) == 2 / 32
    assert paired.mcnemar_p(10, 2) == pytest.approx(158 / 4096, rel=1e-15)
    assert paired.mcnemar_p(7, 7) == 1.0
    assert paired.mcnemar_p(0, 0) == 1.0


def test_mcnemar_against_scipy_when_installed():
    stats = pytest.importorskip("scipy.stats")
    for b, c in [(3, 11), (20, 35), (0, 9), (100, 80)]:
        assert paired.mcnemar_p(b, c) == pytest.approx(stats.binomtest(min(b, c), b + c, 0.5).pvalue, rel=1e-9)


def test_bit_packed_discordant_counts_equal_a_plain_count():
    rng = np.random.default_rng(3)
    a, b, shared = (rng.random((4, 77)) < q for q in (0.6, 0.5, 0.8))
    got_b, got_c = paired.discordant(paired.pack(a), paired.pack(b), paired.pack(shared))
    for r in range(4):
        plain_b = sum(1 for i in range(77) if shared[r, i] and a[r, i] and not b[r, i])
        plain_c = sum(1 for i in range(77) if shared[r, i] and b[r, i] and not a[r, i])
        assert (int(got_b[r]), int(got_c[r])) == (plain_b, plain_c)


# -- Holm -----------------------------------------------------------------------------------

def test_holm_worked_example():
    # Sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, then 0.03 > 0.05/2 stops: 0.04 is not tested.
    assert paired.holm([0.01, 0.04, 0.03, 0.005]) == [True, False, False, True]
    # Step-down stops at the first failure even when a later p would pass its own threshold.
    assert paired.holm([0.02, 0.026, 0.049]) == [False, False, False]
    assert paired.holm([0.01, 0.02, 0.04]) == [True, True, True]
    assert paired.holm([]) == []
    assert paired.holm([0.05]) == [True]


# -- the bootstrap -----------------------------------------------------------------------------

@pytest.mark.parametrize("epochs", [1, 4])
def test_task_bootstrap_equals_a_plain_loop(epochs):
    spec = random_spec(random.Random(epochs), strata=3, epochs=epochs, size=9)
    draws = 200
    got = paired.paired_task("dates", make_strata(spec), draws=draws, seed=42)
    (obs_a, obs_b), reps = plain_task(42, "dates", spec, draws)
    assert got.effect == pytest.approx(obs_a - obs_b, abs=1e-12)
    diffs = sorted(ca - cb for ca, cb, _ in reps)
    assert got.low == pytest.approx(diffs[math.floor(0.025 * draws)], abs=1e-12)
    assert got.high == pytest.approx(diffs[math.floor(0.975 * draws)], abs=1e-12)
    assert got.shared == sum(len(ids) for _, ids, _, _ in spec)
    if epochs == 1:
        a = [it[1] for _, _, items, _ in spec for it in items]
        b = [it[1] for _, _, _, items in spec for it in items]
        assert got.method == paired.MCNEMAR
        assert got.p == pytest.approx(plain_mcnemar(sum(x and not y for x, y in zip(a, b)),
                                                    sum(y and not x for x, y in zip(a, b))), rel=1e-12)
    else:
        xd = [d for _, _, d in reps]
        le, ge = sum(d <= 1e-12 for d in xd) / draws, sum(d >= -1e-12 for d in xd) / draws
        assert got.method == paired.BOOTSTRAP
        assert got.p == pytest.approx(min(1.0, 2 * min(le, ge)))


def test_bootstrap_is_reproducible_from_its_seed_and_antisymmetric():
    spec = random_spec(random.Random(9), strata=2, epochs=3, size=30)
    one = paired.paired_task("t", make_strata(spec), draws=500, seed=7)
    assert one == paired.paired_task("t", make_strata(spec), draws=500, seed=7)
    assert one != paired.paired_task("t", make_strata(spec), draws=500, seed=8)
    swapped = [(params, ids, b, a) for params, ids, a, b in spec]
    other = paired.paired_task("t", make_strata(swapped), draws=500, seed=7)
    assert other.effect == pytest.approx(-one.effect, abs=1e-15)
    assert (other.low, other.high) == pytest.approx((-one.high, -one.low), abs=1e-15)
    assert other.p == one.p


def test_draws_do_not_depend_on_the_chunk_size(monkeypatch):
    rng_a = resample.generator(1, "x")
    whole = np.concatenate(resample.draw_chunks(50, 300, rng_a))
    monkeypatch.setattr(resample, "CHUNK_VALUES", 7 * 50)
    parts = resample.draw_chunks(50, 300, resample.generator(1, "x"))
    assert len(parts) > 1
    assert np.array_equal(whole, np.concatenate(parts))
    assert np.all(whole.sum(axis=1) == 50)


def test_effective_counters_follow_the_design_effect_formula():
    rng = random.Random(5)
    for _ in range(20):
        items = []
        for _ in range(rng.randint(1, 12)):
            m = rng.randint(1, 5)
            t = rng.randint(0, m) if rng.random() < 0.3 else 0
            e = rng.randint(0, m - t)
            items.append((m, e, t, (m - t) / 4))
        f = side(items).features()
        got = resample.effective_counters(np.asarray(resample.features(f[:, 0], f[:, 1], f[:, 2], f[:, 3], True)).sum(axis=0),
                                          len(items))
        assert got == pytest.approx(plain_effective(items), rel=1e-12)


def test_regrade_of_the_same_fifty_items_is_significant():
    ids = tuple(f"s{i:02d}" for i in range(50))
    head = [(1, 1 if i < 40 else 0, 0, 0.0) for i in range(50)]
    base = [(1, 1 if i < 30 else 0, 0, 0.0) for i in range(50)]
    test = paired.paired_task("t", [Stratum("{}", ids, side(head), side(base))], draws=2000, seed=42)
    assert test.method == paired.MCNEMAR
    assert test.p == pytest.approx(2 / 1024)
    assert test.effect == pytest.approx(plain_cp(50, 0, 40, 0) - plain_cp(50, 0, 30, 0), abs=1e-12)
    assert 0 < test.low <= test.effect <= test.high


def test_board_bootstrap_equals_a_plain_loop():
    rng = random.Random(11)
    tasks = {name: random_spec(rng, strata=2, epochs=2, size=8) for name in ("arith", "dates")}
    draws = 100
    got = paired.paired_board([(name, make_strata(spec)) for name, spec in tasks.items()], draws=draws, seed=42)
    plain = {name: plain_task(42, name, spec, draws) for name, spec in tasks.items()}

    def gm(values):
        return 1000 * math.exp(sum(math.log(max(v, 0.01)) for v in values) / len(values))

    effect = gm([plain[n][0][0] for n in tasks]) - gm([plain[n][0][1] for n in tasks])
    diffs = sorted(gm([plain[n][1][r][0] for n in tasks]) - gm([plain[n][1][r][1] for n in tasks]) for r in range(draws))
    assert got.effect == pytest.approx(effect, abs=1e-9)
    assert (got.low, got.high) == pytest.approx((diffs[2], diffs[97]), abs=1e-9)
    le, ge = sum(d <= 0 for d in diffs) / draws, sum(d >= 0 for d in diffs) / draws
    assert got.p == pytest.approx(min(1.0, 2 * min(le, ge)))
    assert got.method == paired.BOOTSTRAP
