"""The Wilson interval and the six estimator macros (STATISTICS.md sections 1 and 2).

Every macro result is compared with `ref_wilson` / `ref_estimate` (plain Python, written
from the spec in `helpers_points.py`), with published Wilson intervals and with values
worked by hand, and the spec's boundary checks are tested in their precise form.
"""

from __future__ import annotations

import math

import pytest
from helpers_points import Z95, Z975, ref_estimate, ref_wilson
from hypothesis import given, settings
from hypothesis import strategies as st
from reasonboard.store.pointsdb import MODES, PointsDB

ALL_MODES = (*MODES, "V1")


@pytest.fixture(scope="module")
def db():
    with PointsDB() as d:
        yield d


def sql_wilson(db, s, t, z):
    return db.con.execute(
        "SELECT wilson_center($1, $2, $3), wilson_low($1, $2, $3), wilson_high($1, $2, $3),"
        " wilson_margin($1, $2, $3)", [float(s), float(t), float(z)]).fetchone()


MACROS = {"E_I": "est_e_i", "E_P": "est_e_p", "E_O": "est_e_o", "C_I": "est_c_i",
          "C_P": "est_c_p", "C_O": "est_c_o", "V1": "est_v1"}


def sql_estimates(db, rows):
    """{mode: [(est, low, high) per row]} for counter rows (n, n_t, n_e, g), in one query.

    Planning the estimator macros costs tens of milliseconds per statement, so rows are
    evaluated in batches; each mode is asked for through its own macro *and* through the
    `estimate(mode, ...)` dispatcher, which must agree.
    """
    cols = [[float(r[k]) for r in rows] for k in range(4)]
    select = ", ".join(f"{macro}(n, nt, ne, g) AS {mode}" for mode, macro in MACROS.items())
    cur = db.con.execute(
        f"SELECT {select} FROM (SELECT unnest(?::DOUBLE[]) AS n, unnest(?::DOUBLE[]) AS nt,"
        " unnest(?::DOUBLE[]) AS ne, unnest(?::DOUBLE[]) AS g, generate_subscripts(?::DOUBLE[], 1) AS i)"
        " ORDER BY i", [*cols, cols[0]])
    out = {mode: [] for mode in MACROS}
    for row in cur.fetchall():
        for mode, value in zip(MACROS, row):
            out[mode].append((value["est"], value["low"], value["high"]))
    return out


def sql_estimate(db, mode, n, n_t, n_e, g):
    return sql_estimates(db, [(n, n_t, n_e, g)])[mode][0]


def test_z_constants_are_the_two_sided_quantiles(db):
    # Independent check of the constants: Phi(z95) = 0.975 and Phi(z975) = 0.9875.
    phi = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
    assert phi(Z95) == pytest.approx(0.975, abs=1e-12)
    assert phi(Z975) == pytest.approx(0.9875, abs=1e-12)
    # The macros hold the constants as DECIMAL literals; their value must be exact.
    assert tuple(float(v) for v in db.con.execute("SELECT z95(), z975()").fetchone()) == (Z95, Z975)


def test_dispatcher_matches_each_macro(db):
    rows = [(10, 2, 6, 1.0), (1, 0, 1, 0.5), (40, 10, 3, 15.0)]
    direct = sql_estimates(db, rows)
    cases = [(mode, *r) for mode in MACROS for r in rows]
    got = db.con.execute(
        "SELECT estimate(m, n, nt, ne, g) FROM (SELECT unnest(?::VARCHAR[]) AS m,"
        " unnest(?::DOUBLE[]) AS n, unnest(?::DOUBLE[]) AS nt, unnest(?::DOUBLE[]) AS ne,"
        " unnest(?::DOUBLE[]) AS g, generate_subscripts(?::VARCHAR[], 1) AS i) ORDER BY i",
        [*[[c[k] for c in cases] for k in range(5)], [c[0] for c in cases]]).fetchall()
    for (mode, *r), (value,) in zip(cases, got):
        assert (value["est"], value["low"], value["high"]) == direct[mode][rows.index(tuple(r))]
    assert db.con.execute("SELECT estimate('X_Y', 1, 0, 0, 0)").fetchone()[0] is None


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
# method 3 (Wilson score interval), 95 %: published to four decimals.
@pytest.mark.parametrize("s, t, low, high", [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_published_intervals(db, s, t, low, high):
    _, lo, hi, _ = sql_wilson(db, s, t, Z95)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_hand_worked(db):
    # s=5, t=10, z=2: p=.5, d=1.4, center=(.5+.2)/1.4=.5, margin=2*sqrt(.025+.01)/1.4
    c, lo, hi, m = sql_wilson(db, 5, 10, 2.0)
    assert c == pytest.approx(0.5, abs=1e-15)
    assert m == pytest.approx(2 * math.sqrt(0.035) / 1.4, abs=1e-15)
    assert (lo, hi) == pytest.approx((0.5 - m, 0.5 + m), abs=1e-15)
    # s=9, t=10, z=1: d=1.1, center=.95/1.1, margin=sqrt(.009+.0025)/1.1
    c, lo, hi, m = sql_wilson(db, 9, 10, 1.0)
    assert c == pytest.approx(0.95 / 1.1, abs=1e-15)
    assert m == pytest.approx(math.sqrt(0.0115) / 1.1, abs=1e-15)


def test_wilson_without_trials_is_the_whole_unit_interval(db):
    for t in (0, -1.5):
        c, lo, hi, m = sql_wilson(db, 0, t, Z95)
        assert (c, lo, hi, m) == (0.5, 0.0, 1.0, 0.5)


def test_wilson_clamps_successes(db):
    assert sql_wilson(db, -3.2, 10, Z95) == sql_wilson(db, 0, 10, Z95)
    assert sql_wilson(db, 12.5, 10, Z95) == sql_wilson(db, 10, 10, Z95)


@pytest.mark.parametrize("t", [1, 2, 7, 100, 12345, 10**9])
def test_wilson_extremes_reach_zero_and_one(db, t):
    # Analytically W(t, t).high = 1 and W(0, t).low = 0 for any t (seed 000: "upper bound
    # = 1.0 for a perfect model regardless of sample count").
    assert sql_wilson(db, t, t, Z95)[2] == pytest.approx(1.0, abs=1e-12)
    assert sql_wilson(db, 0, t, Z95)[1] == pytest.approx(0.0, abs=1e-12)


FIXED = [
    (10, 0, 5, 0.0), (10, 2, 6, 1.0), (1, 0, 0, 0.0), (1, 1, 0, 0.0), (1, 0, 1, 0.5),
    (128, 17, 90, 27.75), (500, 500, 0, 0.0), (40, 0, 40, 0.0), (40, 10, 30, 30.0),
    (40, 10, 3, 15.0),  # fewer correct than the guess accumulator: clamped to 0
    (3, 1, 2, 2.0),     # g == n_u: the corrected trial count is 0
]


def test_estimators_match_reference(db):
    got = sql_estimates(db, FIXED)
    for mode in ALL_MODES:
        for counters_, value in zip(FIXED, got[mode]):
            assert value == pytest.approx(ref_estimate(mode, *counters_), abs=1e-12), (mode, counters_)


def test_c_p_hand_worked(db):
    # n=10, n_t=2, n_e=6, g=1: A = W(5, 7), U = W(8, 10), both at z975, bounds multiply.
    a, u = ref_wilson(5, 7, Z975), ref_wilson(8, 10, Z975)
    est, low, high = sql_estimate(db, "C_P", 10, 2, 6, 1.0)
    assert (est, low, high) == pytest.approx((a[0] * u[0], a[1] * u[1], a[2] * u[2]), abs=1e-15)
    # C_O: Q = W(n_u - n_e, n_u - g) = W(2, 7); its high bound gives C_O's low bound.
    q = ref_wilson(2, 7, Z975)
    assert sql_estimate(db, "C_O", 10, 2, 6, 1.0) == pytest.approx(
        (1 - q[0] * u[0], 1 - q[2] * u[2], 1 - q[1] * u[1]), abs=1e-15)


# -- properties over every valid counter set --------------------------------------------


@st.composite
def counters(draw, max_n=10**6):
    """Valid counters (STATISTICS.md): 1 <= n, 0 <= n_t <= n, 0 <= n_e <= n_u, 0 <= g <= n_u."""
    n = draw(st.integers(1, max_n))
    n_t = draw(st.integers(0, n))
    n_u = n - n_t
    n_e = draw(st.integers(0, n_u))
    g = draw(st.one_of(st.just(0.0), st.just(float(n_u)), st.floats(0, 1).map(lambda f: f * n_u)))
    return n, n_t, n_e, g


def sql_wilsons(db, rows):
    """[(center, low, high)] of W(s, t, z) for rows (s, t, z), in one query."""
    cols = [[float(r[k]) for r in rows] for k in range(3)]
    return db.con.execute(
        "SELECT wilson_center(s, t, z), wilson_low(s, t, z), wilson_high(s, t, z) FROM ("
        "SELECT unnest(?::DOUBLE[]) AS s, unnest(?::DOUBLE[]) AS t, unnest(?::DOUBLE[]) AS z,"
        " generate_subscripts(?::DOUBLE[], 1) AS i) ORDER BY i", [*cols, cols[0]]).fetchall()


BATCH = st.lists(counters(), min_size=1, max_size=100)


@settings(max_examples=12, deadline=None)
@given(rows=BATCH)
def test_every_estimator_matches_reference_and_is_ordered(db, rows):
    got = sql_estimates(db, rows)
    for mode in ALL_MODES:
        for c, (est, low, high) in zip(rows, got[mode]):
            assert (est, low, high) == pytest.approx(ref_estimate(mode, *c), abs=1e-12, rel=1e-12), (mode, c)
            assert -1e-12 <= low <= est + 1e-12, (mode, c)
            assert est <= high + 1e-12 and high <= 1 + 1e-12, (mode, c)
    for c, (est, _, _) in zip(rows, got["V1"]):  # the v1 task score keeps its 0.01 floor
        assert 0.01 <= est <= 1 + 1e-12, c


@settings(max_examples=8, deadline=None)
@given(rows=BATCH.map(lambda rows: [(n, n_t, n_e, 0.0) for n, n_t, n_e, _ in rows]))
def test_c_family_equals_e_family_without_guessing(db, rows):
    """g = 0: C_I is E_I exactly (both z95). C_P / C_O use z975 per factor, so at g = 0 they
    agree with E_P / E_O in the maximum-likelihood estimate (p_A * p_U = n_e / n and
    1 - q_Q * p_U = (n_e + n_t) / n), the E estimate lies inside the C interval, and the
    two Wilson estimates differ by O(1/n)."""
    got = sql_estimates(db, rows)
    for k, (n, n_t, n_e, _) in enumerate(rows):
        assert got["C_I"][k] == got["E_I"][k]
        n_u = n - n_t
        if n_u:
            assert (n_e / n_u) * (n_u / n) == pytest.approx(n_e / n, abs=1e-15)
            assert 1 - ((n_u - n_e) / n_u) * (n_u / n) == pytest.approx((n_e + n_t) / n, abs=1e-15)
        bound = (Z95**2 / 2 + Z975**2) / n
        for c_mode, e_mode in (("C_P", "E_P"), ("C_O", "E_O")):
            c_est, c_low, c_high = got[c_mode][k]
            e_est = got[e_mode][k][0]
            assert c_low - 1e-12 <= e_est <= c_high + 1e-12, (c_mode, rows[k])
            assert abs(c_est - e_est) <= bound, (c_mode, rows[k])


@settings(max_examples=8, deadline=None)
@given(rows=BATCH.map(lambda rows: [(n, 0, n_e, g) for n, _, n_e, g in rows]))
def test_truncation_assumptions_agree_without_truncation(db, rows):
    """n_t = 0. E family (one z): E_I = E_P = E_O exactly. C family: at one z (z975) the
    three share the corrected factor A = W(n_e - g, n - g); C_P's high bound and C_O's low
    bound are A's, and C_P / C_O differ from A only by the completion factor
    U = W(n, n, z975), whose center falls short of 1 by z^2 / (2n + 2z^2). So they do not
    coincide at a finite n even at one z; they coincide as n grows (next test)."""
    got = sql_estimates(db, rows)  # rows stay valid with n_t = 0: n_e <= n_u <= n, g <= n
    a = sql_wilsons(db, [(n_e - g, n - g, Z975) for n, _, n_e, g in rows])
    u = sql_wilsons(db, [(n, n, Z975) for n, *_ in rows])
    a95 = sql_wilsons(db, [(n_e - g, n - g, Z95) for n, _, n_e, g in rows])
    for k, (n, _, n_e, g) in enumerate(rows):
        assert got["E_I"][k] == got["E_P"][k] == got["E_O"][k]
        (a_c, a_low, a_high), (u_c, u_low, u_high) = a[k], u[k]
        cp, co, ci = got["C_P"][k], got["C_O"][k], got["C_I"][k]
        assert cp == pytest.approx((a_c * u_c, a_low * u_low, a_high * u_high), abs=1e-14)
        assert u_high == pytest.approx(1.0, abs=1e-12)
        assert cp[2] == pytest.approx(a_high, abs=1e-12)
        assert co[1] == pytest.approx(a_low, abs=1e-12)
        shortfall = Z975**2 / (2 * n + 2 * Z975**2)
        assert 1 - u_c == pytest.approx(shortfall, abs=1e-12)
        assert co[0] - cp[0] == pytest.approx(shortfall, abs=1e-12)
        assert cp[0] <= a_c + 1e-12 and a_c <= co[0] + 1e-12
        # C_I is the same A at z95 instead of z975: same data, a narrower interval.
        assert ci == pytest.approx(a95[k], abs=1e-15)
        assert ci[2] - ci[1] <= a_high - a_low + 1e-12


def test_c_family_differences_vanish_with_sample_size(db):
    # The C_P / C_O gap at n_t = 0 is the Wilson shrinkage of a 100 % completion rate:
    # large at n = 10, negligible at n = 10^7 (same proportions throughout).
    sizes = (10, 1000, 10**7)
    got = sql_estimates(db, [(n, 0, 0.7 * n, 0.25 * n) for n in sizes])
    gaps = [max(abs(co[0] - cp[0]), abs(ci[0] - cp[0]), abs(ci[0] - co[0]))
            for cp, co, ci in zip(got["C_P"], got["C_O"], got["C_I"])]
    assert gaps[0] > 0.1 and gaps[0] > gaps[1] > gaps[2]
    assert gaps[2] < 1e-6
    assert got["C_I"][2][0] == pytest.approx((0.7 - 0.25) / 0.75, abs=1e-6)


def test_v1_perfect_point_scores_one(db):
    sizes = [1, 2, 3, 10, 128, 1000, 99991, 10**9]
    rows = [(n, 0, n, 0.0) for n in sizes] + [(n, 0, n, n / 4) for n in sizes]
    # With or without a guess accumulator, W(n - g, n - g).high = 1 at any n.
    for est, _, _ in sql_estimates(db, rows)["V1"]:
        assert est == pytest.approx(1.0, abs=1e-12)
